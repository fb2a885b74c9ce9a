#!/usr/bin/env bash
# Session 31, device call 1 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261205-s31/call1.sh
# The rotated attention schedule (KILN_ATTENTION_ROTATED=1, off by default): a tile's
# first key block run by the loop's code, no prologue (emit_attention.cpp:
# rotated_blocks). Correctness first (every fast attention variant against the
# interpreter within its derived bound, the catalog entries), then an A/B against the
# default in alternation with cuDNN in the same call, first launches included.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_variants_tests kiln_attention_bench kiln_rows_bench
el "attention variants on the device, rotated"
for i in 0 1 2 3; do
  KILN_ATTENTION_ROTATED=1 GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 200 build-gpu/tests/kiln_variants_tests \
    --gtest_filter='Attention/VariantDevice.TheHopperKernelIsWithin*' > $r/tv-rotated-$i.log 2>&1 &
done
wait
grep -hE "^\[  (PASSED|FAILED) |tests? ran|FAILED  \]" $r/tv-rotated-*.log
el "catalog attention entries, rotated"
for e in attention_bf16 attention_softcap; do
  for p in standard fast; do
    KILN_ATTENTION_ROTATED=1 timeout 60 $k run $e --target cuda --size large --precision $p --seed 7 > $r/run-$e-$p.log 2>&1; echo "$e $p rc $?"
  done
done
el "A/B rotated: attention bench, fast, alternating"
for rep in 1 2; do
  for v in 0 1; do
    KILN_ATTENTION_ROTATED=$v timeout 100 build-gpu/bench/kiln_attention_bench $r/att-rot$v-$rep.json "bf16 4x32x4096x4096 d" fast > $r/att-rot$v-$rep.log 2>&1
    echo "rotated=$v rep $rep rc $?"; grep -E "ms" $r/att-rot$v-$rep.log | head -12
  done
done
el "peers"
timeout 120 python3 bench/attention_peers.py --dtypes bf16 --out $r/attention-peers.json > $r/attention-peers.log 2>&1; echo "peers rc $?"; tail -12 $r/attention-peers.log
finish
