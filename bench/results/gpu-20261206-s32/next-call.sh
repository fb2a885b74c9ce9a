#!/usr/bin/env bash
# For the next session's first device call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s32/next-call.sh
# What session 32's one call left: the two device tests it rewrote (kc::fdiv against
# every dividend significand on the hardware's reciprocals, rows of 4096 now; div.full.f32
# against the correctly rounded quotient), the spill tolerance A/B (with kc::fdiv on, where
# the first layouts spill 12-72 bytes, and with `/`), then the exact campaign restarted on
# the NVVM workaround (9337549; its regression passed in session 32).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_catalog_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "inline division: the significand sweep; fast division: its bound"
KILN_CUDA_INLINE_DIVISION=1 timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaInlineDivision.OnTheDevice*' > $r/t-inline-division.log 2>&1; echo "rc $?"
grep -E "^\[ *(OK|PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|cuda " $r/t-inline-division.log | head -12
timeout 120 build-gpu/tests/kiln_catalog_tests --gtest_filter='CudaFastPrecisionDevice.Division*' > $r/t-fast.log 2>&1; echo "rc $?"
grep -E "^\[ *(OK|PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|fast division" $r/t-fast.log | head -12
KILN_CUDA_INLINE_DIVISION=1 ab tolerance-fdiv KILN_CUDA_SPILL_TOLERANCE "0 96" softmax,cross_entropy,swiglu 1000,4000,8192 bf16
ab tolerance KILN_CUDA_SPILL_TOLERANCE "0 160" softmax,cross_entropy,swiglu,log_softmax 1000,4000,8192 bf16
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5560001 2 8 $s exact
finish
