#!/usr/bin/env bash
# Session 34, call 1 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s34/call1.sh
# 1. The cuda fuzz regressions (5640584's among them) and the ptxas workaround suites.
# 2. The full rows benchmark with the peers on today's tree (the layout spill tolerance
#    in; the last full table is session 27's), as far as half the call goes.
# 3. The standard campaign from 4920001 (75,200 checked so far; the bar is 100,000).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "fuzz regressions and ptxas workarounds"
timeout 120 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*' > $r/t-regressions.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-regressions.log | head -12
timeout 60 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaAbsAgainstNonPositive.*:CudaNegativeZero.*:CudaNegatedInt32MinMax.*:CudaPtxHazards.*' > $r/t-workarounds.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-workarounds.log | head -12
s=$(( $(left) / 2 ))
el "full row benchmark with peers (stop after $s s)"
python3 -X faulthandler bench/rows_bench.py --lib $lib --out $r/rows.json --stop $s --budget $((s / 2)) > $r/rows.log 2>&1; echo "rc $?"
grep -E "device copy|problems," $r/rows.log; cat $r/rows.md 2>/dev/null | head -70
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns standard 4920001 2 8 $s standard
finish
