#!/usr/bin/env bash
# Written at the end of session 28 for the next device call (from the repository root,
# .deps carried):
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s28/next-call.sh
# 1. Misaligned f32 rows' whole runs in narrower vectors (emit_memory.cpp:
#    narrower_vectors, on by default, offline only: emulated bit for bit) against the
#    element-by-element code they replace (KILN_CUDA_NARROWER_VECTORS=0), at 5123 columns.
# 2. The cluster CTA default (KILN_CUDA_CLUSTER_CTA=auto: 256 threads for 16-bit rows,
#    1024 for wider; chosen from call 1's A/B) against 1024 everywhere, at 65536 columns.
# 3. What call 1 had no time for: f32 rows one instance ahead (KILN_CUDA_PREFETCH=3) at
#    ragged widths; the shifted runs of misaligned bf16 rows (KILN_CUDA_SHIFTED_RUNS);
#    the int8 rows against cuBLAS; the shared divisor where the rows are issue bound.
# 4. Campaigns with what is left (exact from 5520001, standard from 4880001).
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
# ab: common.sh's (the A/B of a row knob; defined here until session 30 moved it there).
ab narrower KILN_CUDA_NARROWER_VECTORS "1 0" softmax,layernorm,rmsnorm,log_softmax,cross_entropy 5123 f32
ab cluster KILN_CUDA_CLUSTER_CTA "auto 1024" softmax,layernorm,rmsnorm,cross_entropy,residual_layernorm,swiglu 65536 bf16,f32
ab prefetch KILN_CUDA_PREFETCH "2 3" softmax,layernorm,cross_entropy 1000,4000,5123 f32
ab shift KILN_CUDA_SHIFTED_RUNS "1 0" softmax,layernorm,cross_entropy 5123 bf16
# The shared divisor was within noise where the rows are memory bound (session 27); the
# misaligned bf16 rows are issue bound (call 1's Nsight Compute): its fewer instructions
# a quotient may count there.
ab divisor KILN_CUDA_SHARED_DIVISOR "0 1" softmax,cross_entropy 5123 bf16,f32
if [ $(left) -gt 120 ]; then
  el "int8 GEMM against cuBLAS, 128x256 and 128x128 tiles"
  timeout 90 build-gpu/bench/kiln_gemm_bench $r/gemm-i8.json "i8" > $r/gemm-i8.log 2>&1; echo "rc $?"; cat $r/gemm-i8.log
fi
s=$(( ($(left) - 30) / 2 )); [ $s -gt 30 ] && campaigns exact 5520001 2 8 $s exact
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns standard 4880001 2 8 $s standard
finish
