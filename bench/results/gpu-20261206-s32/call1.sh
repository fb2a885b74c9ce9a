#!/usr/bin/env bash
# Session 32, device call 1 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s32/call1.sh
# 1. Session 31's NVVM workaround (9337549) on a device: the cuda fuzz regressions
#    (5521605 among them) and the ptxas workaround tests.
# 2. kc::fdiv (KILN_CUDA_INLINE_DIVISION=1, off by default): its device tests (the
#    hardware's reciprocals against every dividend significand, random bit patterns
#    against the interpreter), the dividing catalog entries bit for bit, then the A/B
#    on the rows that divide (softmax, cross-entropy, SwiGLU), and with it on, the spill
#    tolerance (KILN_CUDA_SPILL_TOLERANCE=96, off by default) against none.
# 3. The exact campaign restarted on this emitter with what is left.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_unit_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "cuda fuzz regressions and the ptxas workaround tests"
timeout 200 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-fuzz-regressions.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $r/t-fuzz-regressions.log
timeout 120 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaNegatedInt32MinMax.*:CudaNegativeZero.*:CudaPtxasBoolBytes.*' > $r/t-workarounds.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $r/t-workarounds.log
el "inline division: device tests"
KILN_CUDA_INLINE_DIVISION=1 timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaInlineDivision.*' > $r/t-inline-division.log 2>&1; echo "rc $?"
grep -E "^\[ *(OK|PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|interpreter|host " $r/t-inline-division.log | head -20
el "inline division: dividing catalog entries, interp vs cuda, exact and standard"
for e in softmax_norm cross_entropy swiglu; do
  for p in exact standard; do
    KILN_CUDA_INLINE_DIVISION=1 timeout 60 $k compare $e --targets interp,cuda --precision $p --seed 7 --size medium > $r/compare-div-$e-$p.log 2>&1; echo "$e $p rc $?"
  done
done
ab division KILN_CUDA_INLINE_DIVISION "0 1" softmax,cross_entropy,swiglu 1000,4000,5123,8192 bf16,f32
# With kc::fdiv the first layouts spill 12-72 bytes where `/` spilled 60-144 (offline):
# keep such spills (KILN_CUDA_SPILL_TOLERANCE) rather than give up the loads ahead?
KILN_CUDA_INLINE_DIVISION=1 ab tolerance KILN_CUDA_SPILL_TOLERANCE "0 96" softmax,cross_entropy,swiglu 1000,4000,8192 bf16
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5560001 2 8 $s exact
finish
