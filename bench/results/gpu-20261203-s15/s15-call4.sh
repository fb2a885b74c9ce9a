#!/usr/bin/env bash
# Session 15, call 4: is the new attention kernel slower than session 14's? The bench
# built at b849c47 (s14's final tree, scratch-device/old-b849c47.tar.gz) and at this
# tree, run alternately in one process each on the 4x32x4096 bf16 shapes (fast).
source scratch-device/common.sh
tar xzf scratch-device/old-b849c47.tar.gz -C /tmp
el "build new || old"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_attention_bench >$r/build.log 2>&1; echo "new build rc $?"
cmake -S /tmp/old -B /tmp/old/build -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg-old.log 2>&1 && cmake --build /tmp/old/build -j 16 --target kiln_attention_bench >$r/build-old.log 2>&1; echo "old build rc $?"
el "A/B"
for v in old new old new; do
  if [[ $v == old ]]; then b=/tmp/old/build/bench/kiln_attention_bench; else b=build-gpu/bench/kiln_attention_bench; fi
  KILN_CACHE_DIR=/tmp/kc-$v timeout 60 $b /tmp/x.json "bf16 4x32x4096" fast 2>&1 | sed "s/^/$v /" | tee -a $r/ab.log
done
finish
