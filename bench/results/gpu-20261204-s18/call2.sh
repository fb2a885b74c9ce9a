#!/usr/bin/env bash
# Session 18, call 2 (at the commit that re-blocks -inf programs by default): the key-block
# and catalog attention device tests at the new default; the headline causal shape as
# written with 128x128, 64x64 and 128x32 blocks (the last re-blocked from -inf onto the
# kernel's 128 keys), and cuDNN in the same call.
source bench/results/gpu-20261204-s18/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench kiln_catalog_tests >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
a=build-gpu/bench/kiln_attention_bench
el "tests"
timeout 200 build-gpu/tests/kiln_catalog_tests --gtest_filter='AttentionKeyBlock*:CudaFastPrecisionDevice.*:*OnDevice/*attention*' > $r/tests.log 2>&1; echo "tests rc $?"
grep -E "^\[  (PASSED|FAILED)|key block \]" $r/tests.log
el "bench"
KILN_CACHE_DIR=/tmp/kc-base timeout 90 $a $r/att.json "bf16 4x32x4096x4096 d128 kv32 causal" fast > $r/att.log 2>&1; echo "rc $?"; cat $r/att.log
el "racecheck, 32-key program"
KILN_CACHE_DIR=/tmp/kc-base timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 build-gpu/tests/kiln_catalog_tests --gtest_filter='AttentionKeyBlockDevice.LeftPadding*' > $r/racecheck.log 2>&1; echo "racecheck rc $?"; tail -1 $r/racecheck.log
el "peers bf16"
timeout 110 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"; grep -E "4096x4096.*d128|4096, 128" $r/peers.log | head
finish
