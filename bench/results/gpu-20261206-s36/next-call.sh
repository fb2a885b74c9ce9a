#!/usr/bin/env bash
# For the next session's first device call:
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s36/next-call.sh
# 1. the cuda fuzz regressions and PTX hazard scans;
# 2. the whole-row path of dealt rows (KILN_CUDA_WHOLE_ROWS 1, the default, against 0) and
#    the index facts on top (KILN_CUDA_INDEX_FACTS=1), bf16 rows at 5123 columns, every
#    output checked first, twice each in alternation;
# 3. the exact and standard campaigns for what is left (next seeds 5920001, 6340001).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "fuzz regressions and PTX hazards"
timeout 120 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-regressions.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-regressions.log | head -12
el "whole rows and index facts, bf16 at 5123 columns"
outs=(); i=0
for round in 1 2; do
  for env in "KILN_CUDA_WHOLE_ROWS=0" "KILN_CUDA_WHOLE_ROWS=1" "KILN_CUDA_INDEX_FACTS=1"; do
    env $env timeout 60 python3 bench/rows_bench.py --lib $lib --no-peers --kernels softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu \
      --widths 5123 --kinds bf16 --out $r/whole-$i.json > $r/whole-$i.log 2>&1 || echo "rc $?"
    outs+=("$env=$r/whole-$i.json"); i=$((i + 1))
  done
done
python3 bench/rows_ab.py "${outs[@]}" > $r/whole.md 2>&1; cat $r/whole.md
grep -h "failed their check" $r/whole-*.log
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact 5920001 2 4 $s exact & campaigns standard 6340001 2 4 $s standard & wait; }
finish
