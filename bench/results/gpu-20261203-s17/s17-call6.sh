#!/usr/bin/env bash
# Session 17, call 6: the key-block device test with blocks of no power of two (96 x 48)
# and of 16 keys added.
source scratch-device/common.sh
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_catalog_tests >$r/build.log 2>&1; echo "build rc $?"
el tests
timeout 90 build-gpu/tests/kiln_catalog_tests --gtest_filter='AttentionKeyBlock*' > $r/tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED)|key block \]|^\[  FAILED" $r/tests.log
finish
