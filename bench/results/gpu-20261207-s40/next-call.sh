#!/usr/bin/env bash
# The next session's first device call, as planned at the end of session 40 (not yet run):
#   OUT=<dir> CALL_SECONDS=575 EXACT=6240001 STANDARD=6660001 bash bench/results/gpu-20261207-s40/next-call.sh
# 1. the cuda fuzz regressions and PTX hazard scans on the widened workaround (every
#    conversion to f64 through an empty asm, `12bd611`; the masked constant sums,
#    `6b057fa`): the device has run only the bool -> f64 form (`ff7350f`);
# 2. program 6545841 replayed on this code;
# 3. the interp-vs-cuda campaigns for the rest of the call (issue 15: on `6b057fa` 29,865
#    exact and 32,632 standard so far; later calls: campaign-call.sh of session 36 with
#    both seeds + 40000 a call).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests
regressions
echo "6545841: $(timeout 60 $k fuzz --count 1 --seed 6545841 --targets interp,cuda --precision exact 2>&1 | grep -E '^1 programs|^program 6545841' | tr '\n' ' ' | cut -c1-160)"
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
