#!/usr/bin/env bash
# Session 19, call 3: the kernel cache compiling outside its lock (b466578: threads compile
# at once) on the device: the cuda tests, concurrent launches, the catalog bit-exact
# against interp; then the fuzz campaign's rate with 16 jobs (3 programs a second
# before) and the -0.0 fix's tests.
source bench/results/gpu-20261204-s19/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_unit_tests >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
k=build-gpu/tools/kiln
el tests
build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*:ConcurrentLaunch*' > $r/cuda-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/cuda-tests.log | head
el catalog
$k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-exact.log 2>&1; echo "rc $?"; tail -1 $r/compare-exact.log
export KILN_FUZZ_REPORT_SECONDS=30
for spec in "exact 3400001 20000 ${EXACT_SECONDS:-120}" "standard 4400001 10000 ${STANDARD_SECONDS:-60}"; do
  set -- $spec
  el "fuzz $1 from $2"
  KILN_CACHE_DIR=/tmp/kf-$2 timeout $4 $k fuzz --count $3 --seed $2 --targets interp,cuda --precision $1 --jobs 16 --batch 16 > $r/fuzz-cuda-$1-$2.log 2>&1; echo "rc $?"
  tail -1 $r/fuzz-cuda-$1-$2.log; grep -E "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | head -3
done
finish
