#!/usr/bin/env bash
# A device call planned at the end of session 42 (not yet run): issue 15's sanitizer runs
# on the emitter as it stands (session 21's were on `a605f61`'s), then campaigns:
#   OUT=<dir> CALL_SECONDS=575 EXACT=<seed> STANDARD=<seed> bash bench/results/gpu-20261207-s42/sanitizer-call.sh
# 1. compute-sanitizer's memcheck, racecheck, synccheck and initcheck over 1,000 fuzzed
#    programs each (exact, fresh seeds 9400001 on, one process of 16 jobs), and over the
#    catalog on cuda (small size; the attention entries among them);
# 2. the interp-vs-cuda campaigns for the rest of the call.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool
sanitizers 9400001
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
