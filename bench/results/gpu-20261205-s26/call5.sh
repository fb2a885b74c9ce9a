#!/usr/bin/env bash
# Session 26's last device call, cut to the device time left after a start that failed
# (call4.sh's full table and campaign did not fit). From the repository root, .deps carried:
#   OUT=<dir> CALL_SECONDS=200 bash bench/results/gpu-20261205-s26/call5.sh
# The batched GEMM variants on the device (the batched tile choice counted over the batches,
# 24-row batches on 64-row tiles, batches with K = 77 now packed), then the bmm rows
# and their controls against cuBLAS, and the A/Bs of the tile choice and of packing.
source bench/results/gpu-20261205-s23/common.sh
build kiln_variants_tests kiln_gemm_bench
el "device tests: the batched GEMM variants (only batched launches changed; the 2-D packing path is the 3000 row's)"
timeout 60 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*batched*' > $r/t-batched.log 2>&1; echo "rc $?"
grep -E '^\[ +(OK|PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure|Which is' $r/t-batched.log | head -20
el "gemm: bmm rows"
timeout 50 build-gpu/bench/kiln_gemm_bench $r/gemm-bmm.json "bmm|3000 x 5000" > $r/gemm-bmm.log 2>&1; echo "rc $?"; cat $r/gemm-bmm.log
el "gemm: A/B"
KILN_GEMM_RETILE=0 timeout 25 build-gpu/bench/kiln_gemm_bench $r/gemm-retile0.json "bmm 32 x 1000x1000x1000" > $r/gemm-retile0.log 2>&1; echo "rc $?"; cat $r/gemm-retile0.log
KILN_GEMM_PACK=0 timeout 25 build-gpu/bench/kiln_gemm_bench $r/gemm-pack0.json "bmm 8 x 2000|3000 x 5000" > $r/gemm-pack0.log 2>&1; echo "rc $?"; cat $r/gemm-pack0.log
finish
