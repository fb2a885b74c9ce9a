#!/usr/bin/env bash
# Session 8, call 3: HEAD: GEMM device tests (half width by default) and the GEMM table.
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
el "build"
cmake -S . -B build-s8 -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-s8 -j 16 --target kiln_unit_tests kiln_gemm_bench >$r/build.log 2>&1; echo "build rc $?"
el "tests"
KILN_CACHE_DIR=/tmp/kc-s8 timeout 150 build-s8/tests/kiln_unit_tests --gtest_filter='CudaGemm*:CudaDevice.*' >$r/tests.log 2>&1; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/tests.log
el "gemm bench"
KILN_CACHE_DIR=/tmp/kc-s8 timeout 200 build-s8/bench/kiln_gemm_bench $r/bench-gemm.json > $r/bench-gemm.log 2>&1; cat $r/bench-gemm.log | grep -E "^[0-9]|kiln" | head -20
el done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $r
