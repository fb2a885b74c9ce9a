#!/usr/bin/env bash
# Session 12, call 5 (at 0e58ab2: the launch tile decided before compiling). Build the
# unit tests; the GEMM, index and tuner tests on the device.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests >$r/build.log 2>&1; echo "build rc $?"
el "tests"
KILN_CACHE_DIR=/tmp/kc-tests timeout 120 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemm*:CudaIndex*:CudaTune*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head; grep -c '^\[       OK' $r/cuda-tests.log
finish
