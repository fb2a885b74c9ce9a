#!/usr/bin/env bash
# Session 30, device call 1 (not run) (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261205-s30/next-call.sh
# (Written in session 30 for its first call; no device was lent that session, so it is
# the next session's first call.)
# 0. The index facts (09c5ad0, KILN_CUDA_INDEX_FACTS=1, off by default): the row catalog entries bit for
#    bit against the interpreter, then an A/B on the rows they moved offline.
# 1. The two row defaults set offline in session 28 and never measured: misaligned f32
#    rows' runs in narrower vectors (KILN_CUDA_NARROWER_VECTORS, on) at 5123 columns and
#    the cluster CTA size rule (KILN_CUDA_CLUSTER_CTA=auto) against 1024 at 65536.
# 2. The interp-vs-cuda exact campaign from seed 5520001 with what is left (issue 15 asks
#    for 100,000; 81,904 so far).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "interp vs cuda, exact, row entries, index facts on"
for e in cross_entropy log_softmax layernorm_affine rmsnorm_weighted softmax_norm swiglu residual_layernorm_bf16; do
  KILN_CUDA_INDEX_FACTS=1 timeout 60 $k compare $e --targets interp,cuda --precision exact --seed 7 --size medium > $r/compare-$e.log 2>&1; echo "$e rc $?"
done
ab facts KILN_CUDA_INDEX_FACTS "1 0" softmax,layernorm,log_softmax,cross_entropy,swiglu 4000,8192 bf16,f32
ab narrower KILN_CUDA_NARROWER_VECTORS "1 0" softmax,layernorm,rmsnorm,log_softmax,cross_entropy 5123 f32
ab cluster KILN_CUDA_CLUSTER_CTA "auto 1024" softmax,layernorm,cross_entropy,residual_layernorm 65536 bf16,f32
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5520001 2 8 $s exact
finish
