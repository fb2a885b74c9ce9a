#!/usr/bin/env bash
# Session 11, call 3: is call 2's slower split-K the split-K variant's change (b933ee1)?
# Tree A: this tree; tree B: this tree with b933ee1 reversed (split-variant.patch). Both
# build the GEMM bench; then, alternated, the decode rows tuned at program tiles.
source scratch-device/common.sh
mkdir -p /tmp/b && tar cf - --exclude=./build-gpu --exclude=./.deps . | tar xf - -C /tmp/b && ln -sfn "$PWD/.deps" /tmp/b/.deps
( cd /tmp/b && patch -s -R -p1 < scratch-device/split-variant.patch && echo "B: reversed" )
el "build A || B"
( cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfgA.log 2>&1 && cmake --build build-gpu -j 8 --target kiln_gemm_bench >$r/buildA.log 2>&1; echo "A rc $?" ) &
( cd /tmp/b && cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfgB.log 2>&1 && cmake --build build-gpu -j 8 --target kiln_gemm_bench >$r/buildB.log 2>&1; echo "B rc $?" ) &
wait
el "timed"
rows="16x4096x4096 (decode)|16x1024x8192"
for t in A B A B; do
  if [ $t = A ]; then g=build-gpu/bench/kiln_gemm_bench; else g=/tmp/b/build-gpu/bench/kiln_gemm_bench; fi
  echo "== tree $t"; KILN_GEMM_RETILE=0 KILN_CACHE_DIR=/tmp/k$t timeout 60 $g $r/t$t.json "$rows" retune 2>&1 >/dev/null | sed 's/(first launch[^)]*)//' | grep -v chose
done
finish
