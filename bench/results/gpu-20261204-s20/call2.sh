#!/usr/bin/env bash
# Session 20, call 2: a standard-precision campaign for the whole call (build-gpu
# kept from call 1 when the machine stayed warm; else built again first).
source bench/results/gpu-20261204-s20/common.sh
build kiln_tool
campaign standard 4600001 $(( $(left) - 20 ))
finish
