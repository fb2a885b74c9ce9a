#!/usr/bin/env bash
# Session 16, call 1: KILN_CUDA_UNIFORM_WARPGROUP off/on (main) and the persistent
# attention kernel with the shuffled warpgroup index (scratch-device/persist-uwg.tar.gz:
# b849c47 + persistent-attention.patch + shfl), alternately; GEMM off/on; cuDNN; the
# catalog's attention/GEMM entries with the switch on.
source scratch-device/common.sh
tar xzf scratch-device/persist-uwg.tar.gz -C /tmp
el "build main & persistent"
( cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 10 --target kiln_tool kiln_attention_bench kiln_gemm_bench >$r/build.log 2>&1; echo "main build rc $?" ) &
( cmake -S /tmp/p -B /tmp/p/build -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg-p.log 2>&1 && cmake --build /tmp/p/build -j 6 --target kiln_attention_bench >$r/build-p.log 2>&1; echo "persistent build rc $?" ) &
wait
el "attention A/B"
for round in 1 2; do
  for v in u0 u1 p; do
    case $v in u0) b=build-gpu/bench/kiln_attention_bench; u=0;; u1) b=build-gpu/bench/kiln_attention_bench; u=1;; p) b=/tmp/p/build/bench/kiln_attention_bench; u=0;; esac
    KILN_CUDA_UNIFORM_WARPGROUP=$u KILN_CACHE_DIR=/tmp/kc-$v timeout 60 $b /tmp/a-$v.json "bf16 4x32x4096" fast 2>&1 | sed "s/^/$v /" | tee -a $r/attention-ab.log
  done
done
el "gemm A/B"
for u in 0 1 0 1; do
  KILN_CUDA_UNIFORM_WARPGROUP=$u KILN_CACHE_DIR=/tmp/kg-u$u timeout 90 build-gpu/bench/kiln_gemm_bench /tmp/g.json "4096^3|8192^3|2048^3|relu" 2>&1 | sed "s/^/u$u /" | tee -a $r/gemm-ab.log
done
el "peers"
timeout 120 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; grep cudnn $r/peers.log | head -6 | cut -c1-150
el "catalog, switch on"
for e in attention_bf16 attention_softcap gemm_bf16 gemm_epilogue linear; do
  KILN_CUDA_UNIFORM_WARPGROUP=1 timeout 60 build-gpu/tools/kiln run $e --target cuda --size medium --seed 9 2>&1 | tail -1 | sed "s/^/$e /"
done
finish
