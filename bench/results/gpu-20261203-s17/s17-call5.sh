#!/usr/bin/env bash
# Session 17, call 5 (final commit's defaults): head dimension 256 on 80-key blocks with
# the softmax overlapping the products (FlashAttention-3's shape) against the default
# (64-key blocks, one after the other) and 64-key blocks overlapped, alternately; the
# whole bf16 bench (fast) and cuDNN in the same call; 1k-2k keys with two block forms.
source scratch-device/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
a=build-gpu/bench/kiln_attention_bench
el "d256 A/B"
for round in 1 2; do
  KILN_CACHE_DIR=/tmp/kc-base timeout 40 $a /tmp/a.json "bf16 4x32x4096x4096 d256" fast 2>&1 | sed "s/^/base /" | tee -a $r/d256-ab.log
  KILN_ATTENTION_KEY_BLOCK=80 KILN_ATTENTION_OVERLAP=2 KILN_CACHE_DIR=/tmp/kc-80 timeout 40 $a /tmp/a.json "bf16 4x32x4096x4096 d256" fast 2>&1 | sed "s/^/kb80ov2 /" | tee -a $r/d256-ab.log
  KILN_ATTENTION_OVERLAP=2 KILN_CACHE_DIR=/tmp/kc-ov2 timeout 40 $a /tmp/a.json "bf16 4x32x4096x4096 d256" fast 2>&1 | sed "s/^/ov2 /" | tee -a $r/d256-ab.log
done
el "bench bf16 (all rows)"
KILN_CACHE_DIR=/tmp/kc-base timeout 170 $a $r/att-bf16.json "bf16" fast > $r/att-bf16.log 2>&1; echo "rc $?"; cat $r/att-bf16.log
el "peers bf16"
timeout 100 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"
el "two forms at 1k-2k"
for f in "bf16 16x32x1024x1024" "bf16 8x32x2048x2048"; do
  KILN_ATTENTION_BLOCK_FORMS=2 KILN_CACHE_DIR=/tmp/kc-f2 timeout 40 $a /tmp/a.json "$f" fast 2>&1 | sed "s/^/forms2 /" | tee -a $r/forms.log
done
finish
