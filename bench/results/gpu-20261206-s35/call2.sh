#!/usr/bin/env bash
# Session 35, call 2 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s35/call2.sh
# 1. A/B of misaligned rows dealt one element a thread in turn on every row kernel at
#    5123 bf16 columns: KILN_CUDA_COALESCED_ELEMENTS 0 (runs of 8, the default), 1 (dealt
#    where the shifted runs are given up; as runs of one now, so loads ahead may take
#    them) and 2 (the same, and each thread holds half its share where the loads ahead
#    then spill: LayerNorm, residual LayerNorm and SwiGLU become persistent at 1024
#    threads). Then the same with the shifted runs off for every kernel.
# 2. The campaigns on.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
ab coalesced KILN_CUDA_COALESCED_ELEMENTS "0 1 2" softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu 5123 bf16
grep -h "failed their check\|output failed" $r/ab-coalesced-*.log | head -5
el "A/B coalesced with the shifted runs off"
outs=(); i=0
for v in 0 1 2; do
  KILN_CUDA_SHIFTED_RUNS=0 KILN_CUDA_COALESCED_ELEMENTS=$v timeout 90 python3 bench/rows_bench.py --lib $lib --no-peers \
    --kernels softmax,log_softmax,rmsnorm,cross_entropy --widths 5123 --kinds bf16 --out $r/ab-unshifted-$i.json > $r/ab-unshifted-$i.log 2>&1 || echo "rc $?"
  outs+=("unshifted,coalesced=$v=$r/ab-unshifted-$i.json"); i=$((i + 1))
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-unshifted.md 2>&1; cat $r/ab-unshifted.md
s=$(( $(left) - 25 ))
[ $s -gt 30 ] && { campaigns exact ${EXACT_SEED:-5760001} 2 4 $s exact & campaigns standard ${STANDARD_SEED:-6180001} 2 4 $s standard & wait; }
finish
