#!/usr/bin/env bash
# Session 32's device call (two planned calls merged once the device
# budget left room for one call; from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261206-s32/call.sh
# 1. The NVVM workaround of 9337549: the cuda fuzz regressions (5521605 among them) and
#    the ptxas workaround tests.
# 2. kc::fdiv (KILN_CUDA_INLINE_DIVISION=1): its device tests, then the A/B on the bf16
#    rows that divide.
# 3. div.full.f32 in precision fast: its device test, the dividing catalog entries in
#    fast precision, the attention A/B at d 128 (first launches included).
# 4. The spill tolerance A/B with kc::fdiv, then the exact campaign, with what is left.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_unit_tests kiln_catalog_tests kiln_rows_bench kiln_attention_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "cuda fuzz regressions and the ptxas workaround tests"
timeout 200 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-fuzz-regressions.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $r/t-fuzz-regressions.log
timeout 120 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaNegatedInt32MinMax.*:CudaNegativeZero.*:CudaPtxasBoolBytes.*' > $r/t-workarounds.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $r/t-workarounds.log
el "inline division: device tests"
KILN_CUDA_INLINE_DIVISION=1 timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaInlineDivision.*' > $r/t-inline-division.log 2>&1; echo "rc $?"
grep -E "^\[ *(OK|PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|interpreter|host " $r/t-inline-division.log | head -20
el "fast division: device tests"
timeout 120 build-gpu/tests/kiln_catalog_tests --gtest_filter='*FastPrecision*' > $r/t-fast.log 2>&1; echo "rc $?"
grep -E "^\[ *(OK|PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|fast division|fast exp" $r/t-fast.log | head -20
el "dividing catalog entries: inline division (exact, standard), fast division (fast)"
for e in softmax_norm cross_entropy swiglu; do
  KILN_CUDA_INLINE_DIVISION=1 timeout 60 $k compare $e --targets interp,cuda --precision exact --seed 7 --size medium > $r/compare-div-$e.log 2>&1; echo "$e exact, inline division: rc $?"
done
for e in softmax_norm cross_entropy swiglu attention_bf16; do
  timeout 60 $k run $e --target cuda --precision fast --seed 7 > $r/run-fast-$e.log 2>&1; echo "$e fast: rc $?"; tail -2 $r/run-fast-$e.log
done
ab division KILN_CUDA_INLINE_DIVISION "0 1" softmax,cross_entropy,swiglu 1000,4000,5123,8192 bf16
el "A/B fast division: attention bench d128, fast, alternating"
for rep in 1 2; do
  for v in 0 1; do
    [ $(left) -lt 90 ] && break
    KILN_CUDA_FAST_DIVISION=$v timeout 60 build-gpu/bench/kiln_attention_bench $r/att-fd$v-$rep.json "bf16 4x32x4096x4096 d128" fast > $r/att-fd$v-$rep.log 2>&1
    echo "fast_division=$v rep $rep rc $?"; grep -E "ms" $r/att-fd$v-$rep.log | head -4
  done
done
KILN_CUDA_INLINE_DIVISION=1 ab tolerance KILN_CUDA_SPILL_TOLERANCE "0 96" softmax,cross_entropy,swiglu 1000,4000,8192 bf16
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5560001 2 8 $s exact
finish
