#!/usr/bin/env bash
# Session 26's last device call (run from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=420 bash bench/results/gpu-20261205-s26/call4.sh
# This session's GEMM work checked on the device: the batched tile choice counted over
# the batches and batched operands packed to whole lines (the GEMM variants, among
# them 24-row batches on 64-row tiles and batches with K = 77, packed); then the GEMM
# table on this device with the bmm rows and their controls (rows on whole 128-byte
# lines; aligned extents; odd K; straddling rows), the A/Bs of the tile choice
# (KILN_GEMM_RETILE=0) and of packing (KILN_GEMM_PACK=0 on the bmm rows, =2 on
# 3000 x 5000 x 7000), then an exact campaign.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_variants_tests kiln_gemm_bench
el "device tests: every GEMM variant (2 shards)"
for i in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i timeout 100 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*' > $r/t-gemm-$i.log 2>&1 &
done; wait
for i in 0 1; do grep -E '^\[ +(PASSED|FAILED) |batched' $r/t-gemm-$i.log | head -12; done
el "gemm: every row"
timeout 150 build-gpu/bench/kiln_gemm_bench $r/gemm-all.json > $r/gemm-all.log 2>&1; echo "rc $?"; cat $r/gemm-all.log
el "gemm: A/B"
KILN_GEMM_RETILE=0 timeout 40 build-gpu/bench/kiln_gemm_bench $r/gemm-retile0.json "bmm 32 x 1000x1000x1000" > $r/gemm-retile0.log 2>&1; echo "rc $?"; cat $r/gemm-retile0.log
KILN_GEMM_PACK=0 timeout 40 build-gpu/bench/kiln_gemm_bench $r/gemm-pack0.json "bmm 8" > $r/gemm-pack0.log 2>&1; echo "rc $?"; cat $r/gemm-pack0.log
KILN_GEMM_PACK=2 timeout 30 build-gpu/bench/kiln_gemm_bench $r/gemm-pack2.json "3000" > $r/gemm-pack2.log 2>&1; echo "rc $?"; cat $r/gemm-pack2.log
s=$(( $(left) - 15 )); [ $s -gt 30 ] && campaigns exact 5400001 2 8 $s exact
finish
