#!/usr/bin/env bash
# Session 9, call 3 (a fresh machine, HEAD as committed): the Cuda* unit tests in one
# process (call 1a saw two fail there that pass alone, call 2a) while the attention
# bench kernels compile into one cache; then the bench timed one process at a time
# (bf16 and f16, standard and fast) and the peers in the same call.
source bench/results/gpu-20261202-s9/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error" $r/build.log | head
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
el "Cuda* tests || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 250 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head ) &
a=build-gpu/bench/kiln_attention_bench
( for c in "bf16 standard" "bf16 fast" "f16 standard" "f16 fast"; do KILN_CACHE_DIR=/tmp/ka timeout 250 $a /tmp/pc.json $c > /dev/null 2>&1 & done; wait; echo precompiled ) &
wait
el "timed"
for c in "bf16 standard" "bf16 fast" "f16 standard" "f16 fast"; do n=${c// /-}
  KILN_CACHE_DIR=/tmp/ka timeout 90 $a $r/att-$n.json $c > $r/att-$n.log 2>&1; echo "exit $?" >> $r/att-$n.log; grep -E "TFLOP|exit" $r/att-$n.log
done
el "peers"
timeout 120 python3 bench/attention_peers.py --out $r/att-peers.json > $r/att-peers.log 2>&1; python3 -c "
import json
for l in open('$r/att-peers.log'):
    try: d = json.loads(l)
    except Exception: continue
    print(d['dtype'], d['shape'], 'causal' if d['causal'] else 'full', d['peer'], round(d.get('tflops', 0), 1), d.get('error', ''))"
finish
