#!/usr/bin/env bash
# The next session's device call, as planned at the end of session 39 (not yet run):
#   OUT=<dir> CALL_SECONDS=580 EXACT=6160001 STANDARD=6580001 bash bench/results/gpu-20261207-s39/next-call.sh
# In this order, the most wanted first:
# 1. program 6545841's bisect (bisect-6545841.sh's steps: the program replayed with edited
#    copies of its kernel through KILN_CUDA_SOURCE_DIR, and the SASS of each);
# 2. the row kernels in precision standard and fast, with their peers, bf16 at 8192,
#    4000 and 5123 columns: how much of the gap to copy bandwidth is the standard
#    precision's exp and division (Nsight Compute in session 39: cross-entropy issues
#    56 instructions an element and spends 73% of its issue slots; offline, its fast
#    kernel has a fifth fewer instructions, no division slow-path calls, and keeps its
#    loads ahead, which the standard one gives up for the registers those calls hold);
# 3. the interp-vs-cuda campaigns for the rest of the call.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
(CALL_SECONDS=$(( $(left) )) OUT=$OUT/bisect bash bench/results/gpu-20261207-s39/bisect-6545841.sh) 2>&1 | tail -12
K=softmax,cross_entropy,log_softmax,layernorm
for p in standard fast; do
  [ $(left) -lt 200 ] && { el "skipped rows $p: $(left) s left"; continue; }
  el "rows in precision $p"
  timeout 150 python3 bench/rows_bench.py --lib $lib --precision $p --kernels $K --widths 8192,4000,5123 --kinds bf16 --budget 100 \
    --out $r/rows-$p.json > $r/rows-$p.log 2>&1; echo "rc $?"; cat $r/rows-$p.md 2>/dev/null
done
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
