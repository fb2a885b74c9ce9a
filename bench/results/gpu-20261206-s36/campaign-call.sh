#!/usr/bin/env bash
# A device call that is only the two interp-vs-cuda campaigns (issue 15's counts):
#   OUT=<dir> CALL_SECONDS=560 EXACT=<seed> STANDARD=<seed> bash bench/results/gpu-20261206-s36/campaign-call.sh
# builds the kiln tool, then exact and standard at once, each 2 processes x 4 jobs
# (process i from seed + i * 20000) until the call's budget ends.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
