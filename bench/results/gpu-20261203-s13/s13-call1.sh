#!/usr/bin/env bash
# Session 13, call 1 (at a09aa20: GEMM clusters of 2 with B multicast). Build; the
# CUDA GEMM/launch/tune/index unit tests (the new cluster test among them) ||
# precompile both variants; A/B KILN_GEMM_CLUSTER=1 against the default,
# alternated, on the rows clusters touch; memcheck over the cluster test.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_gemm_bench kiln_tool >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
g=build-gpu/bench/kiln_gemm_bench
rows="2048|4096|8192|3000|8191"
el "tests || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 240 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemm*:CudaTune*:CudaIndex*:CudaCompile*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head; grep -c '^\[       OK' $r/cuda-tests.log ) &
( KILN_CACHE_DIR=/tmp/kg timeout 150 $g /tmp/g.json "$rows" > $r/pre2.log 2>&1; echo "precompile default rc $?"; KILN_GEMM_CLUSTER=1 KILN_CACHE_DIR=/tmp/kg timeout 120 $g /tmp/g1.json "$rows" > $r/pre1.log 2>&1; echo "precompile cluster=1 rc $?" ) &
wait
tail -3 $r/pre2.log
el "A/B KILN_GEMM_CLUSTER"
for cl in 1 2 1 2; do echo "== KILN_GEMM_CLUSTER=$cl"; KILN_GEMM_CLUSTER=$cl KILN_CACHE_DIR=/tmp/kg timeout 60 $g $r/cl$cl.json "$rows" 2>&1 | tee -a $r/ab-cl$cl.log; done
el "catalog gemm entries on cuda, standard and exact"
for e in gemm_bf16 gemm_f16 gemm_epilogue linear gemm_i8; do for p in standard exact; do KILN_CACHE_DIR=/tmp/kg timeout 60 build-gpu/tools/kiln run $e --target cuda --size large --precision $p 2>&1 | tail -1; done; done
el "memcheck over the cluster test"
KILN_CACHE_DIR=/tmp/kc-tests timeout 120 compute-sanitizer --tool memcheck build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmDevice.ClusterPairs*:CudaGemmEpilogueDevice.WeightStoredNByK' > $r/memcheck.log 2>&1; echo "memcheck rc $?"; tail -4 $r/memcheck.log
finish
