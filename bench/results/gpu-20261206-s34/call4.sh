#!/usr/bin/env bash
# Session 34, call 4 (the session's last 250 device seconds; .deps carried):
#   OUT=<dir> bash bench/results/gpu-20261206-s34/call4.sh
# A first look at KILN_CUDA_COALESCED_ELEMENTS on bf16 SwiGLU and softmax at 5123
# columns: as is, coalesced (SwiGLU's shifted runs are given up for spills, so it takes
# it), and coalesced with the shifted runs off for every kernel (softmax takes it too).
# One run each (no repeat: the device time left allows no more).
source bench/results/gpu-20261205-s23/common.sh
build kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
outs=(); i=0
for env in "KILN_CUDA_COALESCED_ELEMENTS=0" "KILN_CUDA_COALESCED_ELEMENTS=1" "KILN_CUDA_COALESCED_ELEMENTS=1 KILN_CUDA_SHIFTED_RUNS=0"; do
  el "$env"
  env $env timeout 60 python3 bench/rows_bench.py --lib $lib --no-peers --kernels swiglu,softmax --widths 5123 --kinds bf16 \
    --out $r/ab-coalesced-$i.json > $r/ab-coalesced-$i.log 2>&1 || echo "rc $?"
  outs+=("$(echo $env | sed 's/KILN_CUDA_//g; s/ /+/')=$r/ab-coalesced-$i.json"); i=$((i + 1))
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-coalesced.md 2>&1; cat $r/ab-coalesced.md
grep -h "kiln_check\|failed" $r/ab-coalesced-*.log | head -5
finish
