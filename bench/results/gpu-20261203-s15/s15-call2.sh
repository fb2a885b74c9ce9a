#!/usr/bin/env bash
# Session 15, call 2: the persistent attention kernel against cuDNN in one run: kiln
# bf16 and f16 (fast) on every shape, the peers (cuDNN, FA2) in the same call; the
# d256 schedule A/B (KILN_ATTENTION_OVERLAP=2: softmax/product overlap at d 256).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
a=build-gpu/bench/kiln_attention_bench
export KILN_CACHE_DIR=/tmp/kc
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv > $r/smi.txt 2>&1; cat $r/smi.txt
el "kiln bf16 fast"
timeout 130 $a $r/att-bf16.json "bf16" fast > $r/att-bf16.log 2>&1; echo "rc $?"; cat $r/att-bf16.log
el "peers bf16,f16"
timeout 150 python3 bench/attention_peers.py --out $r/peers.json > $r/peers.log 2>&1; echo "peers rc $?"; grep cudnn $r/peers.log | cut -c1-160
el "kiln f16 fast"
timeout 130 $a $r/att-f16.json "f16" fast > $r/att-f16.log 2>&1; echo "rc $?"; cat $r/att-f16.log
el "d256 overlap A/B"
for o in 2 1 2; do KILN_ATTENTION_OVERLAP=$o KILN_CACHE_DIR=/tmp/kc-o$o timeout 40 $a $r/att-d256-o$o.json "bf16 4x32x4096x4096 d256" fast > $r/att-d256-o$o-$RANDOM.log 2>&1; echo "o$o rc $?"; done
cat $r/att-d256-o*.log
finish
