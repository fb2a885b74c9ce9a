#!/usr/bin/env bash
# Session 20, call 1: the session's fixes on the device (the two ptxas workarounds'
# campaign programs replayed, the misaligned vector loaded once over a persistent
# grid, the cuda tests, the catalog bit-exact), then an exact campaign to the call's end.
source bench/results/gpu-20261204-s20/common.sh
build kiln_tool kiln_unit_tests kiln_fuzz_tests
el tests
build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*' > $r/regression-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|Failure|DIFFERS" $r/regression-tests.log | head
build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*:ConcurrentLaunch*' > $r/cuda-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/cuda-tests.log | head
grep -E "AMisalignedVectorLoadedOnce" $r/cuda-tests.log | head -3
el catalog
$k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-exact.log 2>&1; echo "rc $?"; tail -1 $r/compare-exact.log
campaign exact 3600001 $(( $(left) - 20 ))
finish
