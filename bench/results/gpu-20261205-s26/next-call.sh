#!/usr/bin/env bash
# Written in session 26 for the next session's first device call (session 26's
# device time ran out after a start that failed; call5.sh never ran). From the
# repository root with .deps carried:
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s26/next-call.sh
# 1. Correctness first, of what session 26 built offline: the GEMM device tests (among
#    them RowsAcrossLinesCopiedByCpAsyncMatchF64, the cp.async producer's first run),
#    every GEMM variant with KILN_GEMM_CPASYNC=1 (the cp.async variant wherever rows
#    straddle lines: a_trans, both_trans, batched_heads_4d, batched_grouped, ...) and as
#    by default (batched tiles counted over the batches, batched operands packed, no L2
#    promotion for straddling rows).
# 2. The bmm rows and 3000 x 5000 x 7000 against cuBLAS: default, KILN_GEMM_CPASYNC=1
#    (alternated twice: the default should follow), KILN_GEMM_RETILE=0, KILN_GEMM_PACK=0.
# 3. Then the campaigns with what is left (interp vs cuda: the generic kernels under
#    6e36c3c's layout, where unit axes hold no order, among them).
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_unit_tests kiln_variants_tests kiln_gemm_bench kiln_catalog_tests
el "device tests: the catalog on cuda (its row kernels under the unit-axes layout, argmax in registers: statistics_losses)"
timeout 150 build-gpu/tests/kiln_catalog_tests > $r/t-catalog.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]' $r/t-catalog.log | head -12
el "device tests: GEMM"
timeout 120 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmDevice.*' > $r/t-gemm-device.log 2>&1; echo "rc $?"
grep -E '^\[ +(OK|PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-gemm-device.log | head -20
for cp in 1 0; do
  for i in 0 1; do
    KILN_GEMM_CPASYNC=$cp GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i timeout 100 build-gpu/tests/kiln_variants_tests \
      --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*' > $r/t-gemm-variants-cp$cp-$i.log 2>&1 &
  done; wait
  echo "KILN_GEMM_CPASYNC=$cp"; grep -hE '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]' $r/t-gemm-variants-cp$cp-*.log | head -12
done
el "gemm: straddling rows, cp.async against packing"
rows="bmm|3000 x 5000"
for cp in 0 1 0 1; do
  KILN_GEMM_CPASYNC=$cp timeout 50 build-gpu/bench/kiln_gemm_bench $r/gemm-cp$cp-$SECONDS.json "$rows" > $r/gemm-cp$cp-$SECONDS.log 2>&1
  echo "KILN_GEMM_CPASYNC=$cp: rc $?"; cat $r/gemm-cp$cp-*.log | tail -12
done
KILN_GEMM_RETILE=0 timeout 25 build-gpu/bench/kiln_gemm_bench $r/gemm-retile0.json "bmm 32 x 1000x1000x1000" > $r/gemm-retile0.log 2>&1; echo "rc $?"; cat $r/gemm-retile0.log
KILN_GEMM_PACK=0 timeout 25 build-gpu/bench/kiln_gemm_bench $r/gemm-pack0.json "bmm 8 x 2000|3000 x 5000" > $r/gemm-pack0.log 2>&1; echo "rc $?"; cat $r/gemm-pack0.log
s=$(( ($(left) - 30) / 2 )); [ $s -gt 30 ] && campaigns exact 5400001 2 8 $s exact
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns standard 4760001 2 8 $s standard
finish
