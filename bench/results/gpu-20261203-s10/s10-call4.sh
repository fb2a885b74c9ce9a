#!/usr/bin/env bash
# Session 10, call 4: the folded score scale (precision fast). Build; the fast-precision
# device tests and the attention entries in fast (medium) || the bench precompiling
# (default and KILN_ATTENTION_FOLD_SCALE=0); then bf16 fast timed, and the A/B.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_catalog_tests kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
a=build-gpu/bench/kiln_attention_bench; k=build-gpu/tools/kiln
el "checks || precompile"
( KILN_CACHE_DIR=/tmp/kc timeout 100 build-gpu/tests/kiln_catalog_tests --gtest_filter='CudaFast*' > $r/fast-tests.log 2>&1; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/fast-tests.log
  for e in attention_bf16 attention_softcap; do KILN_CACHE_DIR=/tmp/kc timeout 60 $k run $e --target cuda --size medium --precision fast --seed 12 > $r/run-$e.log 2>&1; echo "$e fast medium: $(tail -1 $r/run-$e.log)"; done ) &
( KILN_CACHE_DIR=/tmp/ka timeout 150 $a /tmp/pc.json "bf16" fast > /dev/null 2>&1 &
  KILN_ATTENTION_FOLD_SCALE=0 KILN_CACHE_DIR=/tmp/ka timeout 150 $a /tmp/pc2.json "bf16 4x32x4096x4096 d128" fast > /dev/null 2>&1 &
  wait; echo precompiled ) &
wait
el "timed"
KILN_CACHE_DIR=/tmp/ka timeout 60 $a $r/att-bf16-fast.json bf16 fast > $r/att-bf16-fast.log 2>&1; grep TFLOP $r/att-bf16-fast.log
KILN_ATTENTION_FOLD_SCALE=0 KILN_CACHE_DIR=/tmp/ka timeout 40 $a $r/ab-fold0.json "bf16 4x32x4096x4096 d128" fast > $r/ab-fold0.log 2>&1; echo "KILN_ATTENTION_FOLD_SCALE=0:"; grep TFLOP $r/ab-fold0.log
KILN_CACHE_DIR=/tmp/ka timeout 40 $a $r/ab-fold1.json "bf16 4x32x4096x4096 d128" fast > $r/ab-fold1.log 2>&1; echo "default again:"; grep TFLOP $r/ab-fold1.log
finish
