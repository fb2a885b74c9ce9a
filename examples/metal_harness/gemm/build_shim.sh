#!/bin/sh
# Compiles kernel.metal as C++ against kiln's Metal shim (shim/metal_stdlib); then
# `python3 run.py --shim shim/kernel.so` checks its outputs bit for bit.
set -e
cd "$(dirname "$0")"
${CXX:-c++} -std=c++20 -O2 -fPIC -shared -ffp-contract=off -fno-fast-math -fno-math-errno -fno-trapping-math -w -fsigned-char -I shim -I . shim/kernel.cpp -o shim/kernel.so
