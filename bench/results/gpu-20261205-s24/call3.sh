#!/usr/bin/env bash
# Session 24's third device call: the attention forms added after call 2 (a value per
# query row stored beside the output; the sequence-major layout), on the device
# against the interpreter within their derived bounds (VariantDevice, four shards),
# then an exact campaign for the rest of the call. From the repository root, .deps carried:
#   OUT=<dir> CALL_SECONDS=280 bash bench/results/gpu-20261205-s24/call3.sh
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_variants_tests
el "device tests: every fast variant (4 shards)"
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 120 build-gpu/tests/kiln_variants_tests --gtest_filter='*VariantDevice.TheHopperKernelIsWithin*' \
    > $r/tests-variants-$i.log 2>&1 &
done
wait
for f in $r/tests-*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ')"; grep -E '^\[  FAILED  \] [A-Za-z]' $f | head -8; done
grep -h "OK \]" $r/tests-variants-*.log | grep -E "fa_bshd|fa_lse|fa_out_f32_lse|fa_stats"
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns exact 5360001 2 8 $s exact
finish
