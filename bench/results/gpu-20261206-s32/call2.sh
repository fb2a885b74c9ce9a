#!/usr/bin/env bash
# Session 32, device call 2 (chained on call 1's warm machine; from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s32/call2.sh
# Precision fast divides with div.full.f32 (afcd56b; KILN_CUDA_FAST_DIVISION=0 keeps
# div.rn.f32): its device test (2^24 quotients of random bit patterns against f64), the
# catalog in fast precision on cuda, then the attention bench (fast) in alternation
# with the knob off and on, first launches included, and the attention peers; the
# standard campaign with what is left.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_catalog_tests kiln_attention_bench
el "fast division: device tests"
timeout 120 build-gpu/tests/kiln_catalog_tests --gtest_filter='*FastPrecision*' > $r/t-fast.log 2>&1; echo "rc $?"
grep -E "^\[ *(OK|PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|fast division|fast exp" $r/t-fast.log | head -20
el "catalog, cuda, fast"
timeout 150 $k run --all --target cuda --precision fast --seed 7 > $r/run-all-fast.log 2>&1; echo "run --all fast rc $?"; tail -4 $r/run-all-fast.log
el "A/B fast division: attention bench, fast, alternating"
for rep in 1 2; do
  for v in 0 1; do
    KILN_CUDA_FAST_DIVISION=$v timeout 100 build-gpu/bench/kiln_attention_bench $r/att-fd$v-$rep.json "bf16 4x32x4096x4096 d" fast > $r/att-fd$v-$rep.log 2>&1
    echo "fast_division=$v rep $rep rc $?"; grep -E "ms" $r/att-fd$v-$rep.log | head -12
  done
done
el "peers"
timeout 120 python3 bench/attention_peers.py --dtypes bf16 --out $r/attention-peers.json > $r/attention-peers.log 2>&1; echo "peers rc $?"; tail -12 $r/attention-peers.log
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns standard 4920001 2 8 $s standard
finish
