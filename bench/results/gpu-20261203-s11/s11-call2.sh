#!/usr/bin/env bash
# Session 11, call 2: build; Cuda* unit tests || the attention entries in fast with the
# fold everywhere (KILN_ATTENTION_FOLD_SCALE=2) || the benches precompiling; then timed
# alone: the GEMM rows that changed (and line staging off, A/B), attention bf16 fast with
# the fold on row-independent blocks only (1, the default) and everywhere (2).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_catalog_tests kiln_tool kiln_gemm_bench kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
a=build-gpu/bench/kiln_attention_bench; k=build-gpu/tools/kiln; g=build-gpu/bench/kiln_gemm_bench
el "tests || entries || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 230 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head; grep -c '^\[       OK' $r/cuda-tests.log ) &
( KILN_CACHE_DIR=/tmp/kc timeout 100 build-gpu/tests/kiln_catalog_tests --gtest_filter='CudaFast*' > $r/fast-tests.log 2>&1; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/fast-tests.log
  for e in attention_bf16 attention_softcap; do KILN_ATTENTION_FOLD_SCALE=2 KILN_CACHE_DIR=/tmp/kc timeout 70 $k run $e --target cuda --size medium --precision fast --seed 13 > $r/run-$e-fold2.log 2>&1; echo "$e fast medium fold 2: rc $? $(tail -1 $r/run-$e-fold2.log)"; done ) &
( KILN_CACHE_DIR=/tmp/ka timeout 200 $a /tmp/pc.json "bf16" fast > /dev/null 2>&1 &
  KILN_ATTENTION_FOLD_SCALE=2 KILN_CACHE_DIR=/tmp/ka timeout 200 $a /tmp/pc2.json "bf16" fast > /dev/null 2>&1 &
  KILN_CACHE_DIR=/tmp/kg timeout 200 $g /tmp/g.json "3000x5000|decode|small M|64x8192|4096^3 relu" > /dev/null 2>&1 &
  KILN_GEMM_RETILE=0 KILN_CACHE_DIR=/tmp/kg timeout 200 $g /tmp/g2.json "held out" tune > /dev/null 2>&1 &
  wait; echo precompiled ) &
wait
el "gemm timed"
KILN_CACHE_DIR=/tmp/kg timeout 60 $g $r/gemm-changed.json "3000x5000|decode|small M|64x8192" > $r/gemm-changed.log 2>&1; cat $r/gemm-changed.log
KILN_GEMM_LINE_STAGING=0 KILN_CACHE_DIR=/tmp/kg timeout 30 $g $r/gemm-nostage.json "3000x5000" > $r/gemm-nostage.log 2>&1; echo "KILN_GEMM_LINE_STAGING=0:"; cat $r/gemm-nostage.log
KILN_GEMM_RETILE=0 KILN_CACHE_DIR=/tmp/kg timeout 60 $g $r/gemm-heldout-tuned0.json "held out" retune > $r/gemm-heldout-tuned0.log 2>$r/gemm-heldout-tuned0.err; echo "held out, tuned at program tiles:"; cat $r/gemm-heldout-tuned0.log
el "attention timed"
for f in 1 2; do KILN_ATTENTION_FOLD_SCALE=$f KILN_CACHE_DIR=/tmp/ka timeout 50 $a $r/att-fold$f.json bf16 fast > $r/att-fold$f.log 2>&1; echo "fold $f:"; grep TFLOP $r/att-fold$f.log; done
finish
