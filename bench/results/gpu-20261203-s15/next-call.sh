#!/usr/bin/env bash
# The next session's first device call (written 2026-12-03, not yet run): A/B of
# KILN_CUDA_UNIFORM_WARPGROUP (the wgmma descriptors on the uniform datapath, README
# here) on the attention and GEMM benches, alternately, one process each, cuDNN and
# cuBLAS in the same call. Run from the repository root with OUT set (device tool):
#   bash bench/results/gpu-20261203-s15/next-call.sh     (carry .deps)
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench kiln_gemm_bench >$r/build.log 2>&1; echo "build rc $?"
a=build-gpu/bench/kiln_attention_bench; g=build-gpu/bench/kiln_gemm_bench
for u in 0 1 0 1; do
    KILN_CUDA_UNIFORM_WARPGROUP=$u KILN_CACHE_DIR=/tmp/kc-u$u timeout 60 $a /tmp/a.json "bf16 4x32x4096" fast 2>&1 | sed "s/^/u$u /" | tee -a $r/attention-ab.log
done
for u in 0 1 0 1; do
    KILN_CUDA_UNIFORM_WARPGROUP=$u KILN_CACHE_DIR=/tmp/kg-u$u timeout 90 $g /tmp/g.json "4096^3|8192^3|2048^3|relu" 2>&1 | sed "s/^/u$u /" | tee -a $r/gemm-ab.log
done
timeout 100 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; grep cudnn $r/peers.log | head -5 | cut -c1-150
# Correctness of the switched-on kernels: the catalog's attention and GEMM entries.
for e in attention_bf16 attention_softcap gemm_bf16 gemm_epilogue linear; do
    KILN_CUDA_UNIFORM_WARPGROUP=1 timeout 60 build-gpu/tools/kiln run $e --target cuda --size medium --seed 9 2>&1 | tail -1 | sed "s/^/$e /"
done
tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$r"
