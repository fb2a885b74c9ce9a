#!/usr/bin/env bash
# Session 15, call 3: the output in 16-byte chunks through quad transposes (the query
# rows released after the last S), Q first on a CTA's first tile. Correctness first
# (catalog attention entries small/medium on cuda vs f64, exact vs interp, memcheck,
# racecheck), then bf16 fast: default vs KILN_ATTENTION_QUAD_STORES=0, cuDNN in the
# same call, and d256 overlap A/B again.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
export KILN_CACHE_DIR=/tmp/kc
el "catalog attention entries on cuda"
for e in attention_bf16 attention_softcap attention causal_attention flash_attention; do
  for size in small medium; do
    timeout 60 $kiln run $e --target cuda --size $size --seed 11 >>$r/check.log 2>&1 || echo "FAILED: $e $size"
  done
  timeout 60 $kiln compare $e --targets interp,cuda --precision exact --seed 11 >>$r/check.log 2>&1 || echo "FAILED: compare $e"
done
grep -cE " ok$| identical$" $r/check.log; grep -E "passed|FAIL" $r/check.log | sort | uniq -c
el "sanitizer"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $kiln run attention_bf16 --target cuda --size medium --seed 5 > $r/memcheck.log 2>&1; echo "memcheck rc $?"; tail -2 $r/memcheck.log
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 $kiln run attention_bf16 --target cuda --size medium --seed 5 > $r/racecheck.log 2>&1; echo "racecheck rc $?"; tail -2 $r/racecheck.log
el "bench bf16: quads (default) then staged"
timeout 120 $a $r/att-quads.json "bf16" fast > $r/att-quads.log 2>&1; echo "rc $?"; cat $r/att-quads.log
KILN_ATTENTION_QUAD_STORES=0 KILN_CACHE_DIR=/tmp/kc-staged timeout 120 $a $r/att-staged.json "bf16 4x32x4096" fast > $r/att-staged.log 2>&1; echo "rc $?"; cat $r/att-staged.log
el "peers bf16"
timeout 100 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"; grep cudnn $r/peers.log | cut -c1-140
el "d256 overlap A/B"
for o in 1 2 1 2; do KILN_ATTENTION_OVERLAP=$o KILN_CACHE_DIR=/tmp/kc-o$o timeout 40 $a /tmp/d.json "bf16 4x32x4096x4096 d256" fast 2>&1 | sed "s/^/o$o /"; done
finish
