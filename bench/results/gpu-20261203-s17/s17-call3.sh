#!/usr/bin/env bash
# Session 17, call 3: the kernel's own key block (31f370d) on the device: the new device
# test (key blocks of 32/64/128/256 keys, d 64-256, against f64), the catalog's attention
# entries (medium: 64-key programs now on 128-key kernel blocks) against f64 and exact,
# sanitizers; A/B of KILN_ATTENTION_KEY_BLOCK=64 against the default on programs of
# 64-key blocks.
source scratch-device/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench kiln_catalog_tests >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
el "device tests"
timeout 120 build-gpu/tests/kiln_catalog_tests --gtest_filter='AttentionKeyBlock*:CudaFastPrecisionDevice.Attention*' > $r/tests.log 2>&1; echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED)|key block \]|^\[  FAILED" $r/tests.log
el "catalog entries"
export KILN_CACHE_DIR=/tmp/kc
for e in attention_bf16 attention_softcap; do
  timeout 40 $kiln run $e --target cuda --size medium --seed 13 --precision fast >>$r/check.log 2>&1 || echo "FAILED: $e fast"
  timeout 40 $kiln run $e --target cuda --size medium --seed 13 >>$r/check.log 2>&1 || echo "FAILED: $e standard"
  timeout 40 $kiln compare $e --targets interp,cuda --precision exact --seed 13 >>$r/check.log 2>&1 || echo "FAILED: compare $e"
done
grep -E "passed|FAIL|identical" $r/check.log | sort | uniq -c
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $kiln run attention_bf16 --target cuda --size medium --seed 7 --precision fast > $r/racecheck.log 2>&1; echo "racecheck rc $?"; tail -2 $r/racecheck.log
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $kiln run attention_bf16 --target cuda --size medium --seed 7 > $r/memcheck.log 2>&1; echo "memcheck rc $?"; tail -2 $r/memcheck.log
el "key block A/B"
for u in 0 64 0 64; do
  KILN_ATTENTION_KEY_BLOCK=$u KILN_CACHE_DIR=/tmp/kc-kb$u timeout 100 $a /tmp/a.json "bf16 2x16x3000x3001" fast 2>&1 | sed "s/^/kb$u /" | tee -a $r/keyblock-ab.log
  KILN_ATTENTION_KEY_BLOCK=$u KILN_CACHE_DIR=/tmp/kc-kb$u timeout 100 $a /tmp/a.json "bf16 4x32x4096x4096 d128 kv32 causal" fast 2>&1 | sed "s/^/kb$u /" | tee -a $r/keyblock-ab.log
done
finish
