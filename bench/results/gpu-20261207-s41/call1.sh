#!/usr/bin/env bash
# Session 41, call 1: which NVRTC the device has (to learn whether kernels compiled
# offline on the development machine, CUDA 13.0's libnvrtc.so.13 of build ID
# 65be0db342ad51a06876e71e210bccc5aa8322cf, can serve it), then session 40's planned call.
#   OUT=<dir> CALL_SECONDS=575 EXACT=6240001 STANDARD=6660001 bash bench/results/gpu-20261207-s41/call1.sh
mkdir -p $OUT/r
for f in /usr/local/cuda/lib64/libnvrtc.so.13 /usr/local/cuda/lib64/libnvrtc-builtins.so.13.0; do
  g=$(readlink -f $f); echo "$f -> $g size $(stat -c %s $g) $(readelf -n $g 2>/dev/null | grep -i 'build id')"
done | tee $OUT/r/nvrtc-identity.txt
bash bench/results/gpu-20261207-s40/next-call.sh
