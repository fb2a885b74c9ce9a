#!/usr/bin/env bash
# Session 26's last device call (run from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=420 bash bench/results/gpu-20261205-s26/call4.sh
# The batched tile choice counted over the batches (this session), checked on the
# device (the batched variants, among them 24-row batches on 64-row tiles), then the
# GEMM table on this device with the bmm rows and their controls (rows on whole
# 128-byte lines; aligned extents), the tile choice's A/B (KILN_GEMM_RETILE=0) and
# packing's on straddling rows (KILN_GEMM_PACK=2), then an exact campaign.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_variants_tests kiln_gemm_bench
el "device tests: batched variants"
timeout 90 build-gpu/tests/kiln_variants_tests --gtest_filter='*VariantDevice.TheHopperKernelIsWithin*batched*' > $r/t-batched.log 2>&1; echo "rc $?"
grep -E '^\[ +(OK|PASSED|FAILED) ' $r/t-batched.log | head -12
el "gemm: every row"
timeout 150 build-gpu/bench/kiln_gemm_bench $r/gemm-all.json > $r/gemm-all.log 2>&1; echo "rc $?"; cat $r/gemm-all.log
el "gemm: A/B"
KILN_GEMM_RETILE=0 timeout 40 build-gpu/bench/kiln_gemm_bench $r/gemm-retile0.json "bmm" > $r/gemm-retile0.log 2>&1; echo "rc $?"; cat $r/gemm-retile0.log
KILN_GEMM_PACK=2 timeout 30 build-gpu/bench/kiln_gemm_bench $r/gemm-pack2.json "3000" > $r/gemm-pack2.log 2>&1; echo "rc $?"; cat $r/gemm-pack2.log
s=$(( $(left) - 15 )); [ $s -gt 30 ] && campaigns exact 5400001 2 8 $s exact
finish
