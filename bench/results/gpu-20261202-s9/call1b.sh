#!/usr/bin/env bash
# Session 9, call 1b (same warm machine as 1a): warm hit and kiln_cuda_bench against
# c224355; attention A/B: ping-pong on (default) / off, and an exp experiment.
source bench/results/gpu-20261202-s9/common.sh
old=/tmp/old/b/bench/kiln_cuda_bench; new=build-gpu/bench/kiln_cuda_bench
el "warm hit: 31 fresh processes x 3 rounds, alternated"
for round in 1 2 3; do for which in old new; do
  b=${!which}; d=/tmp/kcw-$which; rm -rf $d; KILN_CACHE_DIR=$d $b x --probe-cache >/dev/null
  for i in $(seq 31); do KILN_CACHE_DIR=$d $b x --probe-cache; echo; done | sort -n | awk -v w=$which -v r=$round 'NF{a[n++]=$1} END{print w, "round", r, "median", a[int(n/2)], "min", a[0]}'
done; done | tee $r/ab-warm.txt
el "kiln_cuda_bench old/new"
for which in old new; do
  b=${!which}; rm -rf /tmp/kc-$which; KILN_CACHE_DIR=/tmp/kc-$which timeout 100 $b $r/bench-$which.json > $r/bench-$which.log 2>&1
  echo "$which: $(grep -E 'fresh process|GEMM|softmax|RMSNorm' $r/bench-$which.log | awk '{print $1,$2,$3,$4,$(NF-9),$(NF-8)}' | tr '\n' ';')"
done | tee $r/ab-bench.txt
el "attention bf16: default (ping-pong), ping-pong off, fast-exp experiment"
a=build-gpu/bench/kiln_attention_bench
KILN_CACHE_DIR=/tmp/ka-pp timeout 100 $a $r/att-pp.json bf16 > $r/att-pp.log 2>&1; cat $r/att-pp.log
KILN_ATTENTION_PINGPONG=0 KILN_CACHE_DIR=/tmp/ka-nopp timeout 100 $a $r/att-nopp.json bf16 > $r/att-nopp.log 2>&1; cat $r/att-nopp.log
KILN_EXPERIMENT_FAST_EXP=1 KILN_CACHE_DIR=/tmp/ka-fx timeout 100 $a $r/att-fx.json bf16 > $r/att-fx.log 2>&1; cat $r/att-fx.log
el "peers"
timeout 120 python3 bench/attention_peers.py --dtypes bf16 --out $r/att-peers.json > $r/att-peers.log 2>&1; grep -E "bf16" $r/att-peers.log | head -12
finish
