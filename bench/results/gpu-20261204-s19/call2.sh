#!/usr/bin/env bash
# Session 19, call 2: the fix for program 3100033 (2f80e48: no select of -1.0 against
# -0.0 left for ptxas) on the device: its tests, the cuda tests and the catalog
# bit-exact against interp, the program itself, the lost campaign's seeds again, and
# the campaign on from further seeds (issue 15).
source bench/results/gpu-20261204-s19/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_unit_tests >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
k=build-gpu/tools/kiln
el tests
build-gpu/tests/kiln_unit_tests --gtest_filter='CudaNegativeZero.*' > $r/negative-zero-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED|SKIPPED)|Failure" $r/negative-zero-tests.log | head
build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/cuda-tests.log | head
el catalog
$k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-exact.log 2>&1; echo "rc $?"; tail -1 $r/compare-exact.log
$k run --all --target cuda --precision standard --seed 7 > $r/run-standard.log 2>&1; echo "rc $?"; tail -1 $r/run-standard.log
el "seed 3100033"
KILN_CACHE_DIR=/tmp/k2 $k fuzz --count 1 --seed 3100033 --targets interp,cuda --precision exact > $r/p33.log 2>&1; echo "rc $?"; tail -1 $r/p33.log
export KILN_FUZZ_REPORT_SECONDS=30
for spec in "exact 3100001 900 ${AGAIN_SECONDS:-170}" "exact 3300001 4000 ${EXACT_SECONDS:-150}" "standard 4300001 2000 ${STANDARD_SECONDS:-60}"; do
  set -- $spec
  el "fuzz $1 from $2"
  KILN_CACHE_DIR=/tmp/kf-$2 timeout $4 $k fuzz --count $3 --seed $2 --targets interp,cuda --precision $1 --jobs 16 --batch 16 > $r/fuzz-cuda-$1-$2.log 2>&1; echo "rc $?"
  tail -1 $r/fuzz-cuda-$1-$2.log; grep -E "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | head -3
  for s in $(grep -oE "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | awk '{print $2}' | head -1); do
    timeout 120 $k fuzz --minimize $s --targets interp,cuda --precision $1 > $r/minimized-$s.log 2>&1; echo "minimized $s: $(tail -3 $r/minimized-$s.log)"
  done
done
finish
