#!/usr/bin/env bash
# Session 14, call 3: the cluster test with and without quad stores (which elements a
# cluster launch leaves unwritten or writes differently).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
t=build-gpu/tests/kiln_unit_tests
for qs in 1 0 1; do
  el "cluster test, KILN_GEMM_QUAD_STORES=$qs"
  KILN_GEMM_QUAD_STORES=$qs KILN_CACHE_DIR=/tmp/kc-$qs timeout 100 $t --gtest_filter='CudaGemmDevice.ClusterPairs*' > $r/cluster-q$qs.log 2>&1; echo "rc $?"; grep -E "differ at|Failure|OK \]|FAILED \]" $r/cluster-q$qs.log | head -6
done
el "all CudaGemmDevice with quads"
KILN_CACHE_DIR=/tmp/kc-1 timeout 150 $t --gtest_filter='CudaGemmDevice.*:CudaGemmEpilogueDevice.*' > $r/gemm-device.log 2>&1; echo "rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $r/gemm-device.log | head
finish
