#!/usr/bin/env bash
# The next session's first device call, planned at the end of session 44 (not yet run):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261207-s44/next-call.sh
# 1. the GEMM row that fell 52x (README.md: `4096^3 A B, B a view of w.t()` 14.5 TFLOP/s,
#    correct): the two w.t() rows alone (is it the rows run before them?), with
#    KILN_DUMP_DIR set (which modules it compiles: a second module of the same kernel
#    with the generic kernel in it means the GEMM kernel refused the launch), then the
#    4096^3 plain row and the w.t() row together, dumped likewise;
# 2. the staging kernels as a module each (2fe4e27): CudaStagingKernels.* and
#    CudaGemmDevice.*, and the cold compiles of the GEMM entries (session 44: the
#    ragged second case 0.97 s for gemm_bf16, the staging module's three kernels);
# 3. the A/B session 44 could not make: KILN_CUDA_ELEMENTS_PER_THREAD 32, 16, 8 on the
#    seven bf16 row kernels at 26000 x 5123, now that the knob is an emit option the
#    program index keys (19505e1);
# 4. campaigns for the rest (issue 15's counts are past 100,000; these add margin).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_rows_bench kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "gemm: the w.t() rows alone, then after the plain row"
KILN_CACHE_DIR=$(mktemp -d) KILN_DUMP_DIR=$r/dump-flip-alone timeout 90 build-gpu/bench/kiln_gemm_bench $r/gemm-flip-alone.json "B a view of w.t()" \
  > $r/gemm-flip-alone.log 2>&1; echo "rc $?"; cut -c1-160 $r/gemm-flip-alone.log
ls $r/dump-flip-alone; grep -l "kiln_bench_gemm(" $r/dump-flip-alone/* 2>/dev/null | sed 's/^/generic kernel in: /'
KILN_CACHE_DIR=$(mktemp -d) KILN_DUMP_DIR=$r/dump-flip-after timeout 90 build-gpu/bench/kiln_gemm_bench $r/gemm-flip-after.json "4096^3|B a view of w.t()" \
  > $r/gemm-flip-after.log 2>&1; echo "rc $?"; cut -c1-160 $r/gemm-flip-after.log
ls $r/dump-flip-after; grep -l "kiln_bench_gemm(" $r/dump-flip-after/* 2>/dev/null | sed 's/^/generic kernel in: /'
el "device tests: staging kernels, GEMM"
timeout 100 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmDevice.*:CudaStagingKernels.*:CudaRowsGeneral.*' > $r/t-gemm-device.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-gemm-device.log | head -20
cold_compiles gemm_bf16 gemm_epilogue linear
ab rows-ept-5123 KILN_CUDA_ELEMENTS_PER_THREAD "32 16 8" softmax,cross_entropy,log_softmax,layernorm,rmsnorm,residual_layernorm,swiglu 5123 bf16
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact 6800001 2 4 $s exact & campaigns standard 7140001 2 4 $s standard & wait; }
finish
