#!/usr/bin/env bash
# Session 17, call 4 (same machine as call 3, build-gpu kept): on 1k and 2k keys
# (d 128, full and causal), the defaults against KILN_ATTENTION_PINGPONG=0 and
# KILN_ATTENTION_DEFER_OUTPUT=1, alternately; NVRTC's cold compile with its own cache
# off (--no-cache: NVRTC 12.9+ caches, which made repeated compiles 0.04 s in call 1).
source scratch-device/common.sh
cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
g++ -O1 -I/usr/local/cuda/include scratch-device/nvrtc_time.cpp -o /tmp/nvt -L/usr/local/cuda/lib64 -lnvrtc -Wl,-rpath,/usr/local/cuda/lib64
for e in attention_bf16 attention_softcap; do
  $kiln source $e --target cuda --size large --precision fast | sed -n '2,$p' > /tmp/$e.cu
  for o in "--no-cache" "--no-cache --minimal" "--no-cache --minimal"; do
    echo "$e [$o]: $(/tmp/nvt /tmp/$e.cu $o 2>&1 | grep -E '^rc' | tr '\n' ' ')"
  done
done | tee $r/nvrtc-time.log
el "A/B at 1k-2k"
for round in 1 2; do
  for f in "bf16 16x32x1024x1024" "bf16 8x32x2048x2048"; do
    KILN_CACHE_DIR=/tmp/kc-base timeout 60 $a /tmp/a.json "$f" fast 2>&1 | sed "s/^/base /" | tee -a $r/ab.log
    KILN_ATTENTION_PINGPONG=0 KILN_CACHE_DIR=/tmp/kc-pp0 timeout 60 $a /tmp/a.json "$f" fast 2>&1 | sed "s/^/pp0 /" | tee -a $r/ab.log
    KILN_ATTENTION_DEFER_OUTPUT=1 KILN_CACHE_DIR=/tmp/kc-d1 timeout 60 $a /tmp/a.json "$f" fast 2>&1 | sed "s/^/defer1 /" | tee -a $r/ab.log
  done
  el "round $round"
done
finish
