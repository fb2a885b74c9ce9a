#!/usr/bin/env bash
# Session 40's first device call:
#   OUT=<dir> CALL_SECONDS=575 EXACT=6160001 bash bench/results/gpu-20261207-s40/call1.sh
# 1. program 6545841's bisect (session 39's bisect-6545841.sh, with the ptxas -O0..-O3
#    replays and the two sanitizers added this session);
# 2. the exact interp-vs-cuda campaign for the rest of the call, four processes, before
#    any workaround changes the generated code (issue 15 needs 14,560 more exact programs).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool
(CALL_SECONDS=$(( $(left) )) OUT=$OUT/bisect bash bench/results/gpu-20261207-s39/bisect-6545841.sh) 2>&1 | tail -20
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && campaigns exact $EXACT 4 4 $s exact
finish
