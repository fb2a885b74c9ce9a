#!/usr/bin/env bash
# Session 28, call 2 (chained on the warm machine after call 1; build-gpu is there):
#   OUT=<dir> CALL_SECONDS=<s> bash bench/results/gpu-20261205-s28/call2.sh
# interp vs cuda campaigns, exact (bit for bit) then standard (within the derived
# bounds), from the seeds after call 1's.
source bench/results/gpu-20261205-s23/common.sh
[ -x $k ] || build kiln_tool
s=$(( ($(left) - 20) / 2 )); [ $s -gt 30 ] && campaigns exact 5480001 2 8 $s exact
s=$(( $(left) - 15 )); [ $s -gt 30 ] && campaigns standard 4840001 2 8 $s standard
finish
