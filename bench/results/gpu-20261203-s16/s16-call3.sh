#!/usr/bin/env bash
# Session 16, call 3 (at b516c9d + docs): are the attention kernel's switches that won
# single runs in call 2 (KILN_ATTENTION_FOLD_SCALE=2 on causal, PINGPONG=0 at d64,
# OVERLAP=2 at d256) better in alternation, and on which shapes? "base" forces the
# current defaults (1/1/1), "new" all three changed, "fold2" the fold alone. cuDNN
# in the same call. Cold compile of the FlashAttention kernel (--size large).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
el "cold compile (large: the FlashAttention kernel)"
for i in 1 2 3; do for e in attention_bf16 attention_softcap; do
  s0=$(date +%s.%N); KILN_CACHE_DIR=/tmp/kc-cold$i$e timeout 60 $kiln source $e --target cuda --ptx --size large > $r/ptx-$e.txt 2>&1; s1=$(date +%s.%N)
  echo "cold kiln source $e --target cuda --ptx --size large: $(awk "BEGIN{print $s1 - $s0}") s (wgmma $(grep -c wgmma.mma_async $r/ptx-$e.txt), tma $(grep -c cp.async.bulk.tensor $r/ptx-$e.txt))"
done; done
run() {  # config filter
  local c=$1 f=$2
  case $c in
    base) env KILN_ATTENTION_OVERLAP=1 KILN_ATTENTION_PINGPONG=1 KILN_ATTENTION_FOLD_SCALE=1 KILN_CACHE_DIR=/tmp/kc-base timeout 150 $a /tmp/x.json "$f" fast ;;
    new) env KILN_ATTENTION_OVERLAP=2 KILN_ATTENTION_PINGPONG=0 KILN_ATTENTION_FOLD_SCALE=2 KILN_CACHE_DIR=/tmp/kc-new timeout 150 $a /tmp/x.json "$f" fast ;;
    fold2) env KILN_ATTENTION_FOLD_SCALE=2 KILN_CACHE_DIR=/tmp/kc-fold2 timeout 150 $a /tmp/x.json "$f" fast ;;
  esac 2>&1 | sed "s/^/$c /" | tee -a $r/ab.log
}
el "round 1"
for c in base new; do for f in "4x32x4096" "3000x3001" "1024x1024" "2048x2048"; do
  if [[ $f == 4x32x4096 ]]; then run $c $f; else run $c "bf16 $f"; fi
done; done
el "round 2"
for c in base new; do run $c "bf16 4x32x4096"; done
el "fold2 alone on causal"
for c in fold2 base fold2; do run $c "bf16 4x32x4096x4096 d128 kv32 causal"; run $c "bf16 2x16x3000"; done
el "peers bf16"
timeout 100 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"; grep cudnn $r/peers.log | cut -c1-140
finish
