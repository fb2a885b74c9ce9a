#!/usr/bin/env bash
# Session 13, call 2 (relaxed arrivals at the peer's empty barrier). Build; the
# cluster device tests || precompile both variants; A/B KILN_GEMM_CLUSTER=1
# against the default, alternated; the TMA maps' L2 promotion on rows that straddle
# lines (unpacked); the catalog's GEMM entries on cuda.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_gemm_bench kiln_tool >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
g=build-gpu/bench/kiln_gemm_bench
rows="2048|4096|8192|3000|8191"
el "cluster tests || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 180 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmDevice.*:CudaGemmEpilogueDevice.*:CudaGemmSchedule.*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head ) &
( KILN_GEMM_CLUSTER=2 KILN_CACHE_DIR=/tmp/kg timeout 150 $g /tmp/g.json "$rows" > /tmp/pre2.log 2>&1; echo "precompile cluster=2 rc $?"; KILN_GEMM_CLUSTER=1 KILN_CACHE_DIR=/tmp/kg timeout 120 $g /tmp/g1.json "$rows" > /tmp/pre1.log 2>&1; echo "precompile cluster=1 rc $?" ) &
wait
el "A/B KILN_GEMM_CLUSTER"
for cl in 2 1 2 1; do echo "== KILN_GEMM_CLUSTER=$cl"; KILN_GEMM_CLUSTER=$cl KILN_CACHE_DIR=/tmp/kg timeout 60 $g $r/cl$cl.json "$rows" 2>&1 | tee -a $r/ab-cl$cl.log; done
el "A/B KILN_GEMM_L2_PROMOTION on rows that straddle lines, unpacked"
for pr in 3 0 3 0; do echo "== KILN_GEMM_L2_PROMOTION=$pr"; KILN_GEMM_PACK=0 KILN_GEMM_L2_PROMOTION=$pr KILN_CACHE_DIR=/tmp/kg timeout 40 $g /tmp/pr.json "3000x5000x7000" 2>&1 | tee -a $r/ab-promotion$pr.log; done
el "catalog gemm entries on cuda"
for e in gemm_epilogue linear gemm_bf16; do for p in standard exact; do KILN_CACHE_DIR=/tmp/kg timeout 30 build-gpu/tools/kiln run $e --target cuda --size large --precision $p > $r/run-$e-$p.log 2>&1; echo "$e $p rc $?"; done; done
finish
