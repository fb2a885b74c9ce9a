#!/usr/bin/env bash
# Session 31, device call 2 (chained on call 1's warm machine; from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261205-s31/call2.sh
# Session 30's planned call (its next-call.sh, never run: no device was lent):
# the index facts (KILN_CUDA_INDEX_FACTS=1, off by default) bit for bit against the
# interpreter on the row entries and an A/B on the rows they moved offline; the
# narrower vectors at 5123 and the cluster CTA rule at 65536 A/Bs; then the standard
# interp-vs-cuda campaign from 4880001 with what is left. First this session's paired loads
# of misaligned rows (KILN_CUDA_PAIRED_LOADS=1|2, off by default): the row entries bit for bit
# against the interpreter at medium size (do their rows misalign? the medium cases' widths
# decide), then the A/B at 5123 columns bf16.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "interp vs cuda, exact, row entries, index facts on"
for e in cross_entropy log_softmax layernorm_affine rmsnorm_weighted softmax_norm swiglu residual_layernorm_bf16; do
  KILN_CUDA_INDEX_FACTS=1 timeout 60 $k compare $e --targets interp,cuda --precision exact --seed 7 --size medium > $r/compare-$e.log 2>&1; echo "$e rc $?"
done
el "interp vs cuda, exact, misaligned row entries, paired loads 1 and 2"
for m in 1 2; do
  for e in softmax_norm cross_entropy layernorm_affine residual_layernorm_bf16; do
    KILN_CUDA_PAIRED_LOADS=$m timeout 60 $k compare $e --targets interp,cuda --precision exact --seed 7 --size medium > $r/compare-paired$m-$e.log 2>&1; echo "paired=$m $e rc $?"
  done
done
ab paired KILN_CUDA_PAIRED_LOADS "0 1 2" softmax,layernorm,log_softmax,cross_entropy,residual_layernorm 5123 bf16
ab facts KILN_CUDA_INDEX_FACTS "1 0" softmax,layernorm,log_softmax,cross_entropy,swiglu 4000,8192 bf16,f32
ab narrower KILN_CUDA_NARROWER_VECTORS "1 0" softmax,layernorm,rmsnorm,log_softmax,cross_entropy 5123 f32
ab cluster KILN_CUDA_CLUSTER_CTA "auto 1024" softmax,layernorm,cross_entropy,residual_layernorm 65536 bf16,f32
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns standard 4880001 2 8 $s standard
finish
