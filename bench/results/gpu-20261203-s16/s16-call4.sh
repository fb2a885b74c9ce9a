#!/usr/bin/env bash
# Session 16, call 4 (at 94fc37a: the fold on causal 128-row blocks and free issue at
# d 64 by default): the whole bf16 bench (precision fast) with the defaults, cuDNN and
# FA2 in the same call, then the catalog's attention entries (fast and standard
# against f64, exact against the interpreter).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
export KILN_CACHE_DIR=/tmp/kc
el "bench bf16 (all rows)"
timeout 140 $a $r/att-bf16.json "bf16" fast > $r/att-bf16.log 2>&1; echo "rc $?"; cat $r/att-bf16.log
el "peers bf16"
timeout 90 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"
el "catalog attention entries"
for e in attention_bf16 attention_softcap; do
  timeout 40 $kiln run $e --target cuda --size medium --seed 13 --precision fast >>$r/check.log 2>&1 || echo "FAILED: $e fast"
  timeout 40 $kiln run $e --target cuda --size medium --seed 13 >>$r/check.log 2>&1 || echo "FAILED: $e standard"
  timeout 40 $kiln compare $e --targets interp,cuda --precision exact --seed 13 >>$r/check.log 2>&1 || echo "FAILED: compare $e"
done
grep -E "passed|FAIL|identical" $r/check.log | sort | uniq -c
finish
