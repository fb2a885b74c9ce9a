#!/usr/bin/env bash
# Session 18, call 4: the fuzzer on cuda again, on further seeds and for longer (the tree at 18e5ebf) (issue 15: no fuzzed program had
# been checked on cuda since 2026-12-01, whose fixes were "open until re-run on a GPU").
# interp vs cuda in exact precision (bit for bit) and in standard precision (within the
# bound derived from each program), one NVRTC compile a program, 16 jobs; the first two
# failing programs of each campaign minimized.
source bench/results/gpu-20261204-s18/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
k=build-gpu/tools/kiln
export KILN_FUZZ_REPORT_SECONDS=30
for spec in "exact 3100001 ${EXACT_COUNT:-4000} 300" "standard 4100001 ${STANDARD_COUNT:-2000} 150"; do
  set -- $spec
  el "fuzz $1"
  KILN_CACHE_DIR=/tmp/kf-$1 timeout $4 $k fuzz --count $3 --seed $2 --targets interp,cuda --precision $1 --jobs 16 --batch 16 > $r/fuzz-cuda-$1.log 2>&1; echo "rc $?"
  tail -2 $r/fuzz-cuda-$1.log
  for s in $(grep -oE "^program [0-9]+" $r/fuzz-cuda-$1.log | awk '{print $2}' | head -2); do
    timeout 30 $k fuzz --minimize $s --targets interp,cuda --precision $1 > $r/minimized-$s.log 2>&1; echo "minimized $s: $(tail -1 $r/minimized-$s.log)"
  done
done
finish
