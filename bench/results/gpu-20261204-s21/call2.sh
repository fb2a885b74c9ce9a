#!/usr/bin/env bash
# Session 21, call 2 (same tree as call 1): the exact campaign carried on from where call 1's
# stopped (3801521), to the call's end.
source bench/results/gpu-20261204-s21/common.sh
build kiln_tool
campaign exact 3801521 $(( $(left) - 15 ))
finish
