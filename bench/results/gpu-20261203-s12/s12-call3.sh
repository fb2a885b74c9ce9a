#!/usr/bin/env bash
# Session 12, call 3 (at 700619c: packed operands and split-K scratch in per-stream
# workspaces). Build; the CUDA GEMM/launch/tune unit tests || precompile; A/B
# KILN_GEMM_PACK=0 against the default, alternated, on the rows packing touches;
# then the full GEMM table once more.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_gemm_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
g=build-gpu/bench/kiln_gemm_bench
el "tests || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 200 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemm*:CudaTune*:CudaIndex*:CudaCompile*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head; grep -c '^\[       OK' $r/cuda-tests.log ) &
( KILN_CACHE_DIR=/tmp/kg timeout 200 $g /tmp/g.json > /dev/null 2>&1; KILN_GEMM_PACK=0 KILN_CACHE_DIR=/tmp/kg timeout 100 $g /tmp/g0.json "3000x5000x7000|8191" > /dev/null 2>&1; echo precompiled ) &
wait
el "A/B KILN_GEMM_PACK"
for pk in 0 1 0 1; do echo "== KILN_GEMM_PACK=$pk"; KILN_GEMM_PACK=$pk KILN_CACHE_DIR=/tmp/kg timeout 60 $g $r/pack$pk.json "3000x5000x7000|8191" 2>&1 | tee -a $r/ab-pack$pk.log; done
el "gemm, every row"
KILN_CACHE_DIR=/tmp/kg timeout 200 $g $r/gemm.json > $r/gemm.log 2>&1; cat $r/gemm.log
finish
