#!/usr/bin/env bash
# Session 15, call 1: the persistent attention kernel (tile counter, Q per warpgroup,
# ring running on across tiles). Correctness first (catalog attention entries on cuda
# against f64, exact vs interp, compute-sanitizer memcheck + racecheck), then the
# bench A/B KILN_ATTENTION_PERSISTENT=1/0 (bf16 fast, 13 shapes) and cuDNN/FA2.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
export KILN_CACHE_DIR=/tmp/kc
el "catalog attention entries on cuda"
for e in attention_bf16 attention_softcap attention causal_attention flash_attention; do
  for size in small medium large; do
    timeout 60 $kiln run $e --target cuda --size $size --seed 7 >>$r/check.log 2>&1 || echo "FAILED: $e $size"
  done
  timeout 60 $kiln compare $e --targets interp,cuda --precision exact --seed 7 >>$r/check.log 2>&1 || echo "FAILED: compare $e"
done
grep -cE " ok$" $r/check.log; grep -iE "fail|error" $r/check.log | head
$kiln plan attention_bf16 --target cuda --size large > $r/plan.log 2>&1; grep -iE "flashattention|registers|spill" $r/plan.log | head -5
el "sanitizer"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $kiln run attention_bf16 --target cuda --size medium --seed 3 > $r/memcheck.log 2>&1; echo "memcheck rc $?"; tail -3 $r/memcheck.log
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $kiln run attention_bf16 --target cuda --size medium --seed 3 > $r/racecheck.log 2>&1; echo "racecheck rc $?"; tail -3 $r/racecheck.log
el "bench A/B"
for p in 1 0 1; do
  KILN_ATTENTION_PERSISTENT=$p timeout 150 $a $r/att-p$p.json "bf16" fast > $r/att-p$p-$RANDOM.log 2>&1; echo "p$p rc $?"
done
for f in $r/att-p*.log; do echo "== $f"; cat $f; done
el "peers"
timeout 150 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"; grep cudnn $r/peers.log | cut -c1-200
finish
