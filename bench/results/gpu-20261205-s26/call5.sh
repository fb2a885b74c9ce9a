#!/usr/bin/env bash
# Session 26's last device call, cut to the device time left after a start that failed
# (call4.sh's full table and campaign did not fit). From the repository root, .deps carried:
#   OUT=<dir> CALL_SECONDS=280 bash bench/results/gpu-20261205-s26/call5.sh
# The GEMM variants on the device (the batched tile choice counted over the batches,
# 24-row batches on 64-row tiles, batches with K = 77 now packed), then the bmm rows
# and their controls against cuBLAS, and the A/Bs of the tile choice and of packing.
source bench/results/gpu-20261205-s23/common.sh
build kiln_variants_tests kiln_gemm_bench
el "device tests: every GEMM variant (2 shards)"
for i in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i timeout 70 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*' > $r/t-gemm-$i.log 2>&1 &
done; wait
for i in 0 1; do grep -E '^\[ +(PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|batched' $r/t-gemm-$i.log | head -12; done
el "gemm: bmm rows"
timeout 50 build-gpu/bench/kiln_gemm_bench $r/gemm-bmm.json "bmm|3000 x 5000" > $r/gemm-bmm.log 2>&1; echo "rc $?"; cat $r/gemm-bmm.log
el "gemm: A/B"
KILN_GEMM_RETILE=0 timeout 25 build-gpu/bench/kiln_gemm_bench $r/gemm-retile0.json "bmm 32 x 1000x1000x1000" > $r/gemm-retile0.log 2>&1; echo "rc $?"; cat $r/gemm-retile0.log
KILN_GEMM_PACK=0 timeout 25 build-gpu/bench/kiln_gemm_bench $r/gemm-pack0.json "bmm 8 x 2000|3000 x 5000" > $r/gemm-pack0.log 2>&1; echo "rc $?"; cat $r/gemm-pack0.log
finish
