#!/usr/bin/env bash
# The next session's first device call (written 2026-12-03, not yet run). Run from the
# repository root with OUT set (device tool; carry .deps):
#   bash bench/results/gpu-20261203-s16/next-call.sh
# 1. What this session could not run on the device: the generic kernel compiled only
#    when a launch needs it (a08455f): the CUDA unit tests (GEMM device tests among
#    them: RowStridesTmaCannotDescribe, ViewsTmaCannotReadInPlaceAreStaged) and the
#    attention device tests (AttentionTheKernelRefusesRunsTheGenericKernelCompiledThen),
#    the catalog on cuda.
# 2. KILN_ATTENTION_DEFER_OUTPUT=0/1 alternately (1d92c8f: a tile's output stored under
#    the next tile's first S), with racecheck/memcheck on the deferred kernel first;
#    cuDNN in the same call.
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench kiln_unit_tests kiln_catalog_tests >$r/build.log 2>&1; echo "build rc $?"
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/unit-cuda.log 2>&1; echo "unit rc $?"; grep -E "^\[  (PASSED|FAILED)" $r/unit-cuda.log | head
timeout 100 build-gpu/tests/kiln_catalog_tests --gtest_filter='CudaFastPrecisionDevice.*:CudaAttention*' > $r/catalog-tests.log 2>&1; echo "catalog tests rc $?"; grep -E "^\[  (PASSED|FAILED)" $r/catalog-tests.log
for e in attention_bf16 attention_softcap; do
  KILN_ATTENTION_DEFER_OUTPUT=1 KILN_CACHE_DIR=/tmp/kc-d1 timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $kiln run $e --target cuda --size medium --seed 7 --precision fast > $r/racecheck-$e.log 2>&1; echo "racecheck $e rc $?"
  KILN_ATTENTION_DEFER_OUTPUT=1 KILN_CACHE_DIR=/tmp/kc-d1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $kiln run $e --target cuda --size medium --seed 7 > $r/memcheck-$e.log 2>&1; echo "memcheck $e rc $?"
done
for u in 0 1 0 1; do
  KILN_ATTENTION_DEFER_OUTPUT=$u KILN_CACHE_DIR=/tmp/kc-d$u timeout 150 $a /tmp/a.json "bf16" fast 2>&1 | sed "s/^/defer$u /" | tee -a $r/defer-ab.log
done
timeout 100 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"
tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$r"
