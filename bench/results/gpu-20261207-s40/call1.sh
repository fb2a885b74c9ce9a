#!/usr/bin/env bash
# Session 40's device call:
#   OUT=<dir> CALL_SECONDS=575 EXACT=7000001 STANDARD=7500001 bash bench/results/gpu-20261207-s40/call1.sh
# 1. the cuda fuzz regressions (Seed6545841 among them) and PTX hazard scans;
# 2. program 6545841 replayed with the kernel as generated now (a bool reaches f64
#    through cvt.rn.f64.s32: prelude.cpp, "ptxas and f64 values built from halves"),
#    and through KILN_CUDA_SOURCE_DIR with session 39's kernel (old/, its dump) and with
#    that kernel less the two unused load paths (none/: predicted to differ too, since
#    the offline SASS of both drops the same narrowings), and old/ under ptxas -O1;
# 3. interp-vs-cuda campaigns in both precisions on this code for the rest of the call.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests
regressions
d=bench/results/gpu-20261207-s40/6545841
replay() {  # NAME [ENV...]: the program in exact precision, its verdict
  local name=$1; shift
  echo "$name: $(env "$@" timeout 60 $k fuzz --count 1 --seed 6545841 --targets interp,cuda --precision exact 2>&1 | grep -E '^1 programs|^program 6545841' | tr '\n' ' ' | cut -c1-160)"
}
replay now
replay old KILN_CUDA_SOURCE_DIR=$d/old
replay none KILN_CUDA_SOURCE_DIR=$d/none
replay old-ptxas-O1 KILN_CUDA_SOURCE_DIR=$d/old KILN_CUDA_PTXAS_OPTIONS=-O1

s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
