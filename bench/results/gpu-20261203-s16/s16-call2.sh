#!/usr/bin/env bash
# Session 16, call 2 (at the persistent kernel with the shuffled warpgroup index, b516c9d+):
# correctness (catalog attention entries vs f64, exact vs interp, memcheck, racecheck),
# the whole bf16 bench in precision fast (4096 shapes, ragged causal, the 1k-16k sweep)
# and the f16 4096 shapes, cuDNN and FA2 in the same call; A/B of the kernel's switches
# where they might now pay (fold scale 2 on causal, ping-pong off at d64,
# overlap 2 at d256).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
export KILN_CACHE_DIR=/tmp/kc
el "catalog attention entries on cuda"
for e in attention_bf16 attention_softcap causal_attention; do
  for size in small medium; do
    timeout 60 $kiln run $e --target cuda --size $size --seed 12 >>$r/check.log 2>&1 || echo "FAILED: $e $size"
  done
  timeout 60 $kiln compare $e --targets interp,cuda --precision exact --seed 12 >>$r/check.log 2>&1 || echo "FAILED: compare $e"
done
grep -E "passed|FAIL|identical" $r/check.log | sort | uniq -c
el "sanitizer"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $kiln run attention_softcap --target cuda --size medium --seed 6 > $r/memcheck.log 2>&1; echo "memcheck rc $?"; tail -2 $r/memcheck.log
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $kiln run attention_bf16 --target cuda --size medium --seed 6 > $r/racecheck.log 2>&1; echo "racecheck rc $?"; tail -2 $r/racecheck.log
el "cold compile"
for i in 1 2 3; do for e in attention_bf16 attention_softcap; do
  s0=$(date +%s.%N); KILN_CACHE_DIR=/tmp/kc-cold$i$e timeout 60 $kiln source $e --target cuda --ptx > $r/ptx-$e.txt 2>&1; s1=$(date +%s.%N)
  echo "cold kiln source $e --target cuda --ptx: $(awk "BEGIN{print $s1 - $s0}") s (wgmma $(grep -c wgmma.mma_async $r/ptx-$e.txt), tma $(grep -c cp.async.bulk.tensor $r/ptx-$e.txt))"
done; done
el "bench bf16 (all rows), f16 (4096)"
timeout 200 $a $r/att-bf16.json "bf16" fast > $r/att-bf16.log 2>&1; echo "rc $?"; cat $r/att-bf16.log
timeout 60 $a $r/att-f16.json "f16 4x32x4096" fast > $r/att-f16.log 2>&1; echo "rc $?"; cat $r/att-f16.log
el "peers"
timeout 150 python3 bench/attention_peers.py --out $r/peers.json > $r/peers.log 2>&1; echo "peers rc $?"; grep cudnn $r/peers.log | cut -c1-140
el "A/B"
KILN_ATTENTION_FOLD_SCALE=2 KILN_CACHE_DIR=/tmp/kc-f2 timeout 60 $a /tmp/x.json "bf16 4x32x4096x4096 d128 kv32 causal" fast 2>&1 | sed "s/^/fold2 /"
KILN_ATTENTION_PINGPONG=0 KILN_CACHE_DIR=/tmp/kc-pp timeout 40 $a /tmp/x.json "bf16 4x32x4096x4096 d64" fast 2>&1 | sed "s/^/pingpong0 /"
KILN_ATTENTION_OVERLAP=2 KILN_CACHE_DIR=/tmp/kc-o2 timeout 40 $a /tmp/x.json "bf16 4x32x4096x4096 d256" fast 2>&1 | sed "s/^/overlap2 /"
finish
