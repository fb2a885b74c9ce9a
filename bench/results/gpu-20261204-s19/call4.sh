#!/usr/bin/env bash
# Session 19, call 4: the rest of the session's device time on the fuzz campaign
# (interp vs cuda, 16 jobs, the tree of call 3 plus docs), further seeds.
source bench/results/gpu-20261204-s19/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
k=build-gpu/tools/kiln
export KILN_FUZZ_REPORT_SECONDS=20
for spec in "exact 3500001 20000 ${EXACT_SECONDS:-180}" "standard 4500001 10000 ${STANDARD_SECONDS:-60}"; do
  set -- $spec
  el "fuzz $1 from $2"
  KILN_CACHE_DIR=/tmp/kf-$2 timeout $4 $k fuzz --count $3 --seed $2 --targets interp,cuda --precision $1 --jobs 16 --batch 16 > $r/fuzz-cuda-$1-$2.log 2>&1; echo "rc $?"
  tail -1 $r/fuzz-cuda-$1-$2.log; grep -E "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | head -3
done
finish
