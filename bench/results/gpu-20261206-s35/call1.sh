#!/usr/bin/env bash
# Session 35, call 1 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s35/call1.sh
# 1. The cuda fuzz regressions and the PTX hazard scans.
# 2. A/B of rows spread over a cluster loading ahead of their instance
#    (KILN_CUDA_CLUSTER_PREFETCH 0/1; 1: a persistent grid of the clusters the driver
#    says fit at once, each thread holding half its share where the loads ahead spill):
#    every row kernel at 2048 x 65536, bf16 and f32, outputs checked before timing.
# 3. The exact and the standard campaigns from where session 34's stopped.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "fuzz regressions and PTX hazards"
timeout 150 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-regressions.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-regressions.log | head -12
ab cluster KILN_CUDA_CLUSTER_PREFETCH "0 1" softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu 65536 bf16,f32
grep -h "failed their check\|output failed" $r/ab-cluster-*.log | head -5
s=$(( $(left) - 25 ))
[ $s -gt 30 ] && { campaigns exact 5720001 2 4 $s exact & campaigns standard 6140001 2 4 $s standard & wait; }
finish
