#!/usr/bin/env bash
# Session 14, call 2: GEMM output stores in whole 16-byte chunks (quad transpose).
# Build; the GEMM device tests || precompile both variants; A/B KILN_GEMM_QUAD_STORES
# alternated; ncu of the 4096^3 kernel with quads (sectors, tensor utilisation).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_gemm_bench kiln_tool >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
g=build-gpu/bench/kiln_gemm_bench
rows="2048^3|4096^3|8192^3|3000x5000x7000|4096x14336x4096|relu|W^T|8191"
el "gemm tests || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 200 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemm*:CudaCompile*:CudaIndex*:CudaTune*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head -20 ) &
( KILN_GEMM_QUAD_STORES=1 KILN_CACHE_DIR=/tmp/kg timeout 150 $g /tmp/g.json "$rows" > $r/pre1.log 2>&1; echo "precompile quads=1 rc $?"; KILN_GEMM_QUAD_STORES=0 KILN_CACHE_DIR=/tmp/kg timeout 120 $g /tmp/g0.json "$rows" > /tmp/pre0.log 2>&1; echo "precompile quads=0 rc $?" ) &
wait
el "A/B KILN_GEMM_QUAD_STORES"
for qs in 1 0 1 0; do echo "== KILN_GEMM_QUAD_STORES=$qs"; KILN_GEMM_QUAD_STORES=$qs KILN_CACHE_DIR=/tmp/kg timeout 70 $g $r/q$qs.json "$rows" 2>&1 | tee -a $r/ab-q$qs.log; done
el "ncu 4096^3 with quads"
KILN_CACHE_DIR=/tmp/kg timeout 60 ncu --kernel-name regex:bench_gemm_sm90 --launch-skip 2 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section InstructionStats -o $r/ncu-q $g /tmp/y.json "4096^3" > $r/ncu-q.log 2>&1; echo "ncu rc $?"
ncu --import $r/ncu-q.ncu-rep --page details > $r/ncu-q.txt 2>&1; rm -f $r/*.ncu-rep
grep -E "Duration|Compute \(SM\) Throughput|excessive|Executed Instructions  " $r/ncu-q.txt | head
el "catalog gemm entries on cuda"
for e in gemm_epilogue linear gemm_bf16; do KILN_CACHE_DIR=/tmp/kc-tests timeout 40 build-gpu/tools/kiln run $e --target cuda --size medium > $r/run-$e.log 2>&1; echo "$e rc $?"; tail -2 $r/run-$e.log; done
finish
