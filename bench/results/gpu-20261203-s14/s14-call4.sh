#!/usr/bin/env bash
# Session 14, call 4 (at the final GEMM commit): every CUDA unit test || the catalog on
# cuda; then the whole GEMM table against cuBLAS.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_gemm_bench kiln_tool >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
el "Cuda* unit tests || catalog on cuda"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 230 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]|DISABLED' $r/cuda-tests.log | head -20 ) &
( KILN_CACHE_DIR=/tmp/kc-cat timeout 230 build-gpu/tools/kiln run --all --target cuda > $r/catalog-cuda.log 2>&1; echo "catalog rc $?"; tail -3 $r/catalog-cuda.log ) &
wait
el "GEMM table"
KILN_CACHE_DIR=/tmp/kg timeout 150 build-gpu/bench/kiln_gemm_bench $r/gemm.json > $r/gemm.log 2>&1; echo "gemm bench rc $?"; cat $r/gemm.log
finish
