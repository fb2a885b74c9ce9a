#!/usr/bin/env bash
# Session 11, call 1: build; Cuda* unit tests (64-row retiling's device test) while the
# GEMM bench compiles its candidates; the small-M rows tuned over seven tiles each at its
# own tile (KILN_GEMM_RETILE=0), then the whole table by default (launch-time tiles).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_tool kiln_gemm_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
small="decode|small M|64x8192x8192"
el "Cuda* tests || gemm compiles"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 280 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head ) &
( KILN_GEMM_RETILE=0 KILN_CACHE_DIR=/tmp/kg timeout 250 build-gpu/bench/kiln_gemm_bench /tmp/warm.json "$small" tune > $r/gemm-warm.log 2>&1; echo "warm rc $?";
  KILN_CACHE_DIR=/tmp/kg timeout 100 build-gpu/bench/kiln_gemm_bench /tmp/warm2.json "3000x5000" > /dev/null 2>&1 ) &
wait
el "small M tuned at program tiles, timed alone"
KILN_GEMM_RETILE=0 KILN_CACHE_DIR=/tmp/kg timeout 150 build-gpu/bench/kiln_gemm_bench $r/gemm-tuned0.json "$small" retune > $r/gemm-tuned0.log 2>$r/gemm-tuned0.err; echo "rc $?"; cat $r/gemm-tuned0.log
el "default table"
KILN_CACHE_DIR=/tmp/kg timeout 200 build-gpu/bench/kiln_gemm_bench $r/gemm-default.json > $r/gemm-default.log 2>&1; echo "rc $?"; cat $r/gemm-default.log
finish
