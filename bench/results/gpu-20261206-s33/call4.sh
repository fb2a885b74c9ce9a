#!/usr/bin/env bash
# Session 33's fourth call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=300 bash bench/results/gpu-20261206-s33/call4.sh
# 1. The ptxas abs workaround (8765355) on the device: CudaAbsAgainstNonPositive.* and
#    the campaign's program 5640584 replayed.
# 2. Do loads ahead pay where they fit? With the index facts on, log-softmax and
#    cross-entropy at 8192 columns keep their loads ahead unspilled (persistent grids)
#    and log-softmax lost 0.99 -> 0.85 of copy (call 3). Three configurations in
#    alternation, each twice: the defaults (facts 0, prefetch 2), facts 1 with
#    prefetch 2, facts 1 with prefetch 1 (vectors only, no rows ahead).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "abs workaround"
timeout 60 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaAbsAgainstNonPositive.*:CudaNegativeZero.*:CudaNegatedInt32MinMax.*' > $r/t-abs.log 2>&1; echo "rc $?"
grep -E "^\[ *(OK|PASSED|FAILED|SKIPPED) |FAILED  \]|Failure" $r/t-abs.log | head -12
timeout 60 $k fuzz --count 1 --seed 5640584 --targets interp,cuda --precision exact > $r/replay-5640584.log 2>&1; echo "replay rc $?"; tail -2 $r/replay-5640584.log
el "loads ahead where they fit"
all=softmax,log_softmax,cross_entropy,swiglu,layernorm,rmsnorm,residual_layernorm
outs=(); i=0
for round in 1 2; do
  for cfg in "0 2" "1 2" "1 1"; do
    set -- $cfg
    [ $(left) -lt 45 ] && { el "skipped facts=$1 prefetch=$2: $(left) s left"; continue; }
    KILN_CUDA_INDEX_FACTS=$1 KILN_CUDA_PREFETCH=$2 timeout 60 python3 bench/rows_bench.py --lib $lib --no-peers --kernels $all \
      --widths 8192,1000,4000 --kinds bf16 --out $r/ab-ahead-$i.json > $r/ab-ahead-$i.log 2>&1 || echo "facts=$1 prefetch=$2: rc $?"
    outs+=("facts=$1,prefetch=$2=$r/ab-ahead-$i.json"); i=$((i + 1))
  done
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-ahead.md 2>&1; cat $r/ab-ahead.md
finish
