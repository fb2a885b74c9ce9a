#!/usr/bin/env bash
# The next session's first device call, as planned at the end of session 41 (not yet run):
#   OUT=<dir> CALL_SECONDS=575 EXACT=6320001 STANDARD=6740001 bash bench/results/gpu-20261207-s41/next-call.sh
# 1. an A/B in precision fast, each setting twice in alternation, of the two knobs that
#    cut the bf16 cross-entropy's instructions (offline, a row's loop on a whole row's
#    path: 526 -> 448 at 8192 columns, 602 -> 557 at 4000): KILN_CUDA_NAN_MINIMUM_AHEAD=1
#    and KILN_CUDA_NARROW_INDEX_COMPARES=1 together against neither, on the seven bf16
#    row kernels at 8192, 4000 and 5123 columns (session 41 ran the first alone once:
#    cross-entropy at 8192 0.75 -> 0.81 of copy, the rest -3% to +2%);
# 2. the interp-vs-cuda campaigns (issue 15) for the rest of the call; later calls:
#    gpu-20261206-s36/campaign-call.sh with both seeds + 40000 a call.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
K=softmax,cross_entropy,log_softmax,layernorm,rmsnorm,residual_layernorm,swiglu
outs=()
for round in 1 2; do
  for v in 0 1; do
    [ $(left) -lt 120 ] && break
    el "rows fast, both knobs $v (round $round)"
    KILN_CUDA_NAN_MINIMUM_AHEAD=$v KILN_CUDA_NARROW_INDEX_COMPARES=$v timeout 60 python3 bench/rows_bench.py --lib $lib --precision fast --no-peers \
      --kernels $K --widths 8192,4000,5123 --kinds bf16 --out $r/ab-$v-$round.json > $r/ab-$v-$round.log 2>&1 || echo "rc $?"
    outs+=("knobs=$v=$r/ab-$v-$round.json")
  done
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-knobs.md 2>&1; cat $r/ab-knobs.md
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
