#!/usr/bin/env bash
# Session 34, call 3 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s34/call3.sh
# 1. The cuda fuzz regressions (4962944's, on the NVVM workaround for i32 sums with a
#    constant) and the PTX hazard scans.
# 2. A/B of the half-share try after the loads ahead went too (KILN_CUDA_SPLIT_FIRST 1 vs 2):
#    bf16 SwiGLU at 5123 columns is the benchmark's one kernel it changes (0.35 of copy,
#    its misaligned rows moved element by element); softmax and LayerNorm as controls.
# 3. The exact and the standard campaigns at once on the new emitter (both counts restart
#    on it): exact from 5680001, standard from 6100001, two processes of 4 jobs each.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "fuzz regressions and PTX hazards"
timeout 150 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-regressions.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]|OK \] CudaFuzzRegression.Seed4962944" $r/t-regressions.log | head -12
ab split KILN_CUDA_SPLIT_FIRST "1 2" swiglu,softmax,layernorm 5123 bf16
ab split128 KILN_CUDA_SPLIT_FIRST "1 2" swiglu 1000,4000 bf16
s=$(( $(left) - 25 ))
[ $s -gt 30 ] && { campaigns exact 5680001 2 4 $s exact & campaigns standard 6100001 2 4 $s standard & wait; }
finish
