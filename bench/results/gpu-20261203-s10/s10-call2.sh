#!/usr/bin/env bash
# Session 10, call 2: the attention kernel with L2 groups and staged output stores.
# Build; Cuda* tests || attention bench precompile (default and the two A/B knobs);
# the attention entries on cuda (standard, fast; exact vs interp); compute-sanitizer
# memcheck and racecheck over them; the bench timed one process at a time; peers.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_catalog_tests kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
a=build-gpu/bench/kiln_attention_bench; k=build-gpu/tools/kiln
el "catalog Cuda* tests (every entry vs interp on the device, fast precision) || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 280 build-gpu/tests/kiln_catalog_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head ) &
( for c in "bf16 standard" "bf16 fast" "f16 fast"; do KILN_CACHE_DIR=/tmp/ka timeout 250 $a /tmp/pc.json $c > /dev/null 2>&1 & done
  KILN_ATTENTION_L2_GROUPS=0 KILN_CACHE_DIR=/tmp/ka timeout 250 $a /tmp/pc2.json "bf16 4x32x4096x4096 d128" fast > /dev/null 2>&1 &
  KILN_ATTENTION_STAGED_STORES=0 KILN_CACHE_DIR=/tmp/ka timeout 250 $a /tmp/pc3.json "bf16 4x32x4096x4096 d128" fast > /dev/null 2>&1 &
  wait; echo precompiled ) &
wait
el "attention entries on cuda"
for e in attention_bf16 attention_softcap; do
for p in standard fast; do for s in medium $([[ $e == attention_bf16 ]] && echo large); do
  KILN_CACHE_DIR=/tmp/kr timeout 100 $k run $e --target cuda --size $s --precision $p --seed 11 > $r/run-$e-$s-$p.log 2>&1; echo "$e $s $p: $(tail -1 $r/run-$e-$s-$p.log)"
done; done
KILN_CACHE_DIR=/tmp/kr timeout 60 $k compare $e --targets interp,cuda --precision exact --size small --seed 11 > $r/compare-exact-$e.log 2>&1; echo "$e exact: $(tail -1 $r/compare-exact-$e.log)"
done
el "sanitizers"
for tool in memcheck racecheck; do for e in attention_bf16; do
  KILN_CACHE_DIR=/tmp/kr timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $k run $e --target cuda --size medium --seed 11 > $r/sanitizer-$tool-$e.log 2>&1
  echo "$tool $e exit $? ; $(grep -E 'ERROR SUMMARY|passed,' $r/sanitizer-$tool-$e.log | tail -2 | tr '\n' ' ')"
done; done
el "timed"
for c in "bf16 standard" "bf16 fast" "f16 fast"; do n=${c// /-}
  KILN_CACHE_DIR=/tmp/ka timeout 90 $a $r/att-$n.json $c > $r/att-$n.log 2>&1; echo "exit $?" >> $r/att-$n.log; grep -E "TFLOP|exit" $r/att-$n.log
done
for knob in KILN_ATTENTION_L2_GROUPS KILN_ATTENTION_STAGED_STORES; do
  env $knob=0 KILN_CACHE_DIR=/tmp/ka timeout 60 $a $r/ab-$knob.json "bf16 4x32x4096x4096 d128" fast > $r/ab-$knob.log 2>&1; echo "$knob=0:"; grep TFLOP $r/ab-$knob.log
done
el "peers"
timeout 120 python3 bench/attention_peers.py --out $r/att-peers.json > $r/att-peers.log 2>&1; python3 -c "
import json
for l in open('$r/att-peers.log'):
    try: d = json.loads(l)
    except Exception: continue
    print(d['dtype'], d['shape'], 'causal' if d['causal'] else 'full', d['peer'], round(d.get('tflops', 0), 1), d.get('error', ''))"
el "ncu d128 fast"
KILN_CACHE_DIR=/tmp/ka timeout 100 ncu --kernel-name regex:_fa$ --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats -o $r/ncu-att $a /tmp/x.json "bf16 4x32x4096x4096 d128 kv32 full" fast > $r/ncu-att.log 2>&1; echo "ncu rc $?"
ncu --import $r/ncu-att.ncu-rep --page details > $r/ncu-att.txt 2>&1; rm -f $r/*.ncu-rep
grep -E "^\s+(Duration|DRAM Throughput|L2 Hit Rate|L2 Cache Throughput|Compute \(SM\) Throughput)" $r/ncu-att.txt
finish
