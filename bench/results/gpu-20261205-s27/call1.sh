#!/usr/bin/env bash
# Session 27's first device call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s27/call1.sh
# 1. Correctness: the GEMM device tests (session 26's cp.async producer among them);
#    every GEMM variant on the device as by default, with session 27's int8 variants
#    (i8 x i8 -> i32 on wgmma s8: i8_linear, i8_dequant); the variants that take
#    cp.async with KILN_GEMM_CPASYNC=1.
# 2. GEMM against cuBLAS: the bmm rows, 3000x5000x7000 and the int8 rows by default;
#    then the straddling rows with KILN_GEMM_CPASYNC=1, alternated with the default.
# 3. The exact interp-vs-cuda campaign with what is left.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_unit_tests kiln_variants_tests kiln_gemm_bench
el "device tests: GEMM"
timeout 100 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmDevice.*' > $r/t-gemm-device.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-gemm-device.log | head -20
el "GEMM variants on the device (default)"
for i in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i timeout 110 build-gpu/tests/kiln_variants_tests \
    --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*' > $r/t-gemm-variants-$i.log 2>&1 &
done; wait
grep -hE '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|^\[       OK \] .*i8' $r/t-gemm-variants-*.log | head -20
grep -h -A8 "Failure" $r/t-gemm-variants-*.log | head -40
el "GEMM variants with KILN_GEMM_CPASYNC=1 (those whose rows straddle lines)"
KILN_GEMM_CPASYNC=1 timeout 90 build-gpu/tests/kiln_variants_tests \
  --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*/a_trans*:Gemm/VariantDevice.TheHopperKernelIsWithin*/both_trans:Gemm/VariantDevice.TheHopperKernelIsWithin*/batched*:Gemm/VariantDevice.TheHopperKernelIsWithin*/ragged*' \
  > $r/t-gemm-variants-cp1.log 2>&1; echo "rc $?"
grep -hE '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]' $r/t-gemm-variants-cp1.log | head -12
el "gemm against cuBLAS: bmm, 3000x5000x7000, int8"
timeout 120 build-gpu/bench/kiln_gemm_bench $r/gemm-default.json "bmm|3000x5000x7000|i8" > $r/gemm-default.log 2>&1; echo "rc $?"; cat $r/gemm-default.log
for cp in 1 0 1; do
  KILN_GEMM_CPASYNC=$cp timeout 45 build-gpu/bench/kiln_gemm_bench $r/gemm-cp$cp-$SECONDS.json "bmm 32 x 1000x1000x1000 (ragged)|bmm 8 x 2000|3000x5000x7000" > $r/gemm-cp$cp-$SECONDS.log 2>&1
  echo "KILN_GEMM_CPASYNC=$cp: rc $?"; cat $(ls -t $r/gemm-cp$cp-*.log | head -1)
done
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns exact 5400001 2 8 $s exact
finish
