#!/usr/bin/env bash
# For the next session's first device call:
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s36/next-call.sh
# 1. the cuda fuzz regressions and PTX hazard scans;
# 2. the whole-row path of dealt rows (KILN_CUDA_WHOLE_ROWS 1, the default, against 0), then
#    the index facts on it (KILN_CUDA_INDEX_FACTS 0 against 1), bf16 rows at 5123 columns,
#    every output checked first, each value twice in alternation (common.sh: ab);
# 3. the exact and standard campaigns for what is left (next seeds 5920001, 6340001).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
regressions
K=softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu
ab whole KILN_CUDA_WHOLE_ROWS "0 1" $K 5123 bf16
ab facts KILN_CUDA_INDEX_FACTS "0 1" $K 5123 bf16
grep -h "failed their check" $r/ab-*.log
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact 5920001 2 4 $s exact & campaigns standard 6340001 2 4 $s standard & wait; }
finish
