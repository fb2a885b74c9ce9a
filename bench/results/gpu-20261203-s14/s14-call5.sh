#!/usr/bin/env bash
# Session 14, call 5: the flaky pair (CudaCompile.CatalogI8Gemm..., CudaRows.ColumnSums...)
# with their suites alone, then again beside `kiln run --all --target cuda`.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_tool >$r/build.log 2>&1; echo "build rc $?"
t=build-gpu/tests/kiln_unit_tests
el "alone"
KILN_CACHE_DIR=/tmp/kc-a timeout 80 $t --gtest_filter='CudaCompile.*:CudaRows.*' > $r/alone.log 2>&1; echo "alone rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/alone.log | head -5
el "beside the catalog"
( KILN_CACHE_DIR=/tmp/kc-cat timeout 80 build-gpu/tools/kiln run --all --target cuda > /dev/null 2>&1 ) &
KILN_CACHE_DIR=/tmp/kc-b timeout 80 $t --gtest_filter='CudaCompile.*:CudaRows.*' > $r/beside.log 2>&1; echo "beside rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/beside.log | head -5
wait
finish
