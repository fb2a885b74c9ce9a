#!/usr/bin/env bash
# Session 12, call 2 (at 8e80fec: + 128x256 for narrow tiles on large problems, + the
# packing kernel). Build; the Cuda* unit tests alone; then the GEMM bench (every row,
# default); then A/B alternated in one tree: KILN_GEMM_PACK=0 against the default on
# the rows the packing touches, KILN_GEMM_RETILE=0 on the 128x128-tile row.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_catalog_tests kiln_tool kiln_gemm_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
k=build-gpu/tools/kiln; g=build-gpu/bench/kiln_gemm_bench
el "tests || precompile the bench"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 250 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head; grep -c '^\[       OK' $r/cuda-tests.log ) &
( KILN_CACHE_DIR=/tmp/kg timeout 250 $g /tmp/g.json > /dev/null 2>&1; KILN_GEMM_PACK=0 KILN_CACHE_DIR=/tmp/kg timeout 100 $g /tmp/g0.json "3000x5000x7000|8191" > /dev/null 2>&1; echo precompiled ) &
wait
el "gemm, every row"
KILN_CACHE_DIR=/tmp/kg timeout 200 $g $r/gemm.json > $r/gemm.log 2>&1; cat $r/gemm.log
el "A/B KILN_GEMM_PACK"
for pk in 0 1 0 1; do echo "== KILN_GEMM_PACK=$pk"; KILN_GEMM_PACK=$pk KILN_CACHE_DIR=/tmp/kg timeout 60 $g $r/pack$pk.json "3000x5000x7000|8191" 2>&1 | tee -a $r/ab-pack$pk.log; done
el "A/B KILN_GEMM_RETILE on the 128x128 row"
for rt in 0 1; do echo "== KILN_GEMM_RETILE=$rt"; KILN_GEMM_RETILE=$rt KILN_CACHE_DIR=/tmp/kg timeout 60 $g $r/retile$rt.json "tile 128x128" 2>&1 | tee -a $r/ab-retile$rt.log; done
el "catalog gemm entries on cuda"
for e in gemm_bf16 gemm_f16 gemm_epilogue linear; do KILN_CACHE_DIR=/tmp/kcat timeout 60 $k run $e --target cuda --size medium --seed 3 > $r/run-$e.log 2>&1; echo "$e medium: rc $? $(tail -1 $r/run-$e.log)"; done
finish
