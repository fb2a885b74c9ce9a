#!/usr/bin/env bash
# Session 21, call 1 (written as next-call.sh at the end of session 20): the third ptxas
# workaround (a21e112) on the device, the cuda tests and the catalog, plain and with the grid
# capped, compute-sanitizer over fuzzed programs, then an exact campaign to the call's end.
source bench/results/gpu-20261204-s21/common.sh
build kiln_tool kiln_unit_tests kiln_fuzz_tests
el tests
build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*' > $r/regression-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|Failure|DIFFERS" $r/regression-tests.log | head
build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*:ConcurrentLaunch*' > $r/cuda-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/cuda-tests.log | head
# Again with every generic kernel's grid capped at 3 CTAs (KILN_CUDA_MAX_CTAS, session 20):
# each CTA runs several instances in turn, as only persistent kernels did before.
KILN_CUDA_MAX_CTAS=3 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*' > $r/capped-regression-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|Failure|DIFFERS" $r/capped-regression-tests.log | head
KILN_CUDA_MAX_CTAS=3 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaDevice.*:CudaNegatedInt32MinMax.*:CudaNegativeZero.*' > $r/capped-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/capped-tests.log | head
el catalog
$k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-exact.log 2>&1; echo "rc $?"; tail -1 $r/compare-exact.log
KILN_CUDA_MAX_CTAS=3 $k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-exact-capped.log 2>&1; echo "rc $?"; tail -1 $r/compare-exact-capped.log
# Each tool over fuzzed programs of both precisions (seeds apart from the campaigns').
for tool in memcheck racecheck synccheck initcheck; do
  el "compute-sanitizer $tool"
  KILN_CACHE_DIR=/tmp/ks-$tool compute-sanitizer --tool $tool --error-exitcode 9 $k fuzz --count 1000 --seed 5100001 --targets interp,cuda \
    --precision exact --jobs 16 --batch 16 --seconds ${SANITIZER_SECONDS:-50} > $r/sanitizer-$tool.log 2>&1; echo "rc $?"
  grep -E "time budget|^[0-9]+ programs:|ERROR SUMMARY|^program [0-9]+" $r/sanitizer-$tool.log | head -5
done
# Half the rest with the grid capped (the seeds' programs then run several instances per CTA).
half=$(( ($(left) - 40) / 2 ))
KILN_CUDA_MAX_CTAS=3 campaign exact 3900001 $half
campaign exact 3800001 $(( $(left) - 20 ))
finish
