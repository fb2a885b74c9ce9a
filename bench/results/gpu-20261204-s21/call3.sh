#!/usr/bin/env bash
# Session 21, call 3 (same tree): a standard campaign from 4700001,
# to the call's end.
source bench/results/gpu-20261204-s21/common.sh
build kiln_tool
campaign standard 4700001 $(( $(left) - 15 ))
finish
