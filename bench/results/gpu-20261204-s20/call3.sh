#!/usr/bin/env bash
# Session 20, call 3: the rest of the device time on an exact campaign from further seeds.
source bench/results/gpu-20261204-s20/common.sh
build kiln_tool
campaign exact 3700001 $(( $(left) - 20 ))
finish
