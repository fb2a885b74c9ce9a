#!/usr/bin/env bash
# Written at the end of session 19, not yet run: the argmin workaround (41ad29d) on the
# device. The two campaign programs replayed (CudaFuzzRegression), the ptxas workaround
# tests and the cuda tests, the catalog bit-exact against interp, then the campaigns on
# from further seeds (exact 3600001+, standard 4600001+; 16 jobs).
source bench/results/gpu-20261204-s19/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_unit_tests kiln_fuzz_tests >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
k=build-gpu/tools/kiln
el tests
build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*' > $r/regression-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|Failure|DIFFERS" $r/regression-tests.log | head
build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*:ConcurrentLaunch*' > $r/cuda-tests.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/cuda-tests.log | head
el catalog
$k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-exact.log 2>&1; echo "rc $?"; tail -1 $r/compare-exact.log
export KILN_FUZZ_REPORT_SECONDS=30
for spec in "exact 3600001 40000 ${EXACT_SECONDS:-240}" "standard 4600001 20000 ${STANDARD_SECONDS:-180}"; do
  set -- $spec
  el "fuzz $1 from $2"
  KILN_CACHE_DIR=/tmp/kf-$2 timeout $4 $k fuzz --count $3 --seed $2 --targets interp,cuda --precision $1 --jobs 16 --batch 16 > $r/fuzz-cuda-$1-$2.log 2>&1; echo "rc $?"
  tail -1 $r/fuzz-cuda-$1-$2.log; grep -E "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | head -3
  for s in $(grep -oE "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | awk '{print $2}' | head -1); do
    KILN_DUMP_DIR=$r/dump-$s timeout 120 $k fuzz --count 1 --seed $s --targets interp,cuda --precision $1 > $r/p$s.log 2>&1
    timeout 120 $k fuzz --minimize $s --targets interp,cuda --precision $1 > $r/minimized-$s.log 2>&1; echo "minimized $s: $(tail -3 $r/minimized-$s.log)"
  done
done
finish
