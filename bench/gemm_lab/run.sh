#!/bin/bash
# One device call: build the harness (on the H200: nvcc 13.0, sm_90a), then check
# and time; the table is printed last.
cd "$(dirname "$0")"
set -x
python3 gen_wgmma.py
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I../../src/targets/cuda -Xptxas -v -o gemm_lab gemm_lab.cu -lcuda -lcublas \
    > build.log 2>&1 || { cat build.log; exit 1; }
grep -E "registers|spill|error|warning" build.log | head -20
./gemm_lab
