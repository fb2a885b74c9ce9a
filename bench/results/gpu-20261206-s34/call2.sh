#!/usr/bin/env bash
# Session 34, call 2 (the machine of call 1, warm; .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s34/call2.sh
# 1. The standard campaign on to 100,000 (88,400 after call 1): seeds 4960001 and 4980001.
# 2. The rows table's f32 rows that call 1's half did not reach (4000 on, columns, transpose).
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
campaigns standard 4960001 2 8 300 standard
s=$(( $(left) - 20 ))
el "rows f32 from 4000 on (stop after $s s)"
python3 -X faulthandler bench/rows_bench.py --lib $lib --kinds f32 --widths 4000,5123,65536 --out $r/rows-f32.json --stop $s --budget $((s / 2)) > $r/rows-f32.log 2>&1; echo "rc $?"
grep -E "device copy|problems," $r/rows-f32.log; cat $r/rows-f32.md 2>/dev/null | head -40
finish
