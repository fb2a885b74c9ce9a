#!/usr/bin/env bash
# Session 19, call 1: the one exact-mode difference the cuda fuzz campaign of session 18
# found (program 3100033, seeds 3100001+, call 4, whose logs were lost with that session):
# reproduced with its detail, the generated source kept, run under racecheck and with the
# cuda knobs that change its code, minimized with time to finish; then the campaign goes
# on from further seeds (issue 15).
source bench/results/gpu-20261204-s19/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
k=build-gpu/tools/kiln
one() { KILN_CACHE_DIR=/tmp/k1-$1 timeout 60 $k fuzz --count 1 --seed 3100033 --targets interp,cuda --precision exact "${@:2}"; }
el "seed 3100033"
KILN_DUMP_DIR=$r/dump one a > $r/p33.log 2>&1; echo "rc $?"; tail -5 $r/p33.log
for knob in KILN_CUDA_PREFETCH=0 KILN_CUDA_ELEMENTS_PER_THREAD=1 KILN_CUDA_SHIFTED_RUNS=0 KILN_CUDA_UNIFORM_WARPGROUP=1; do
  ( export $knob; one ${knob%%=*} ) > $r/p33-$knob.log 2>&1; echo "$knob rc $?: $(tail -1 $r/p33-$knob.log)"
done
for i in 1 2 3; do one rep$i > $r/p33-rep$i.log 2>&1; echo "repeat $i rc $?"; done
el racecheck
KILN_CACHE_DIR=/tmp/k1-rc timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard $k fuzz --count 1 --seed 3100033 --targets interp,cuda --precision exact > $r/p33-racecheck.log 2>&1; echo "rc $?"; tail -4 $r/p33-racecheck.log
KILN_CACHE_DIR=/tmp/k1-sc timeout 120 compute-sanitizer --tool synccheck $k fuzz --count 1 --seed 3100033 --targets interp,cuda --precision exact > $r/p33-synccheck.log 2>&1; echo "rc $?"; tail -3 $r/p33-synccheck.log
KILN_CACHE_DIR=/tmp/k1-ic timeout 120 compute-sanitizer --tool initcheck $k fuzz --count 1 --seed 3100033 --targets interp,cuda --precision exact > $r/p33-initcheck.log 2>&1; echo "rc $?"; tail -3 $r/p33-initcheck.log
el minimize
KILN_DUMP_DIR=$r/dump-min timeout 200 $k fuzz --minimize 3100033 --targets interp,cuda --precision exact > $r/minimized-3100033.log 2>&1; echo "rc $?"; tail -3 $r/minimized-3100033.log
export KILN_FUZZ_REPORT_SECONDS=30
for spec in "exact 3200001 4000 ${EXACT_SECONDS:-200}" "standard 4200001 2000 ${STANDARD_SECONDS:-100}"; do
  set -- $spec
  el "fuzz $1"
  KILN_CACHE_DIR=/tmp/kf-$1 timeout $4 $k fuzz --count $3 --seed $2 --targets interp,cuda --precision $1 --jobs 16 --batch 16 > $r/fuzz-cuda-$1.log 2>&1; echo "rc $?"
  tail -2 $r/fuzz-cuda-$1.log; grep -E "^program [0-9]+" $r/fuzz-cuda-$1.log | head -3
done
finish
