#!/usr/bin/env bash
# Session 33's third call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=430 bash bench/results/gpu-20261206-s33/call3.sh
# With the layout spill tolerance in the ladder (4a63b85), do loads ahead of the
# instance (KILN_CUDA_PREFETCH=2, the default, against 1: vectors only) and the index
# facts (KILN_CUDA_INDEX_FACTS, off: session 31 measured them moving log-softmax and
# SwiGLU to worse layouts) pay? Offline, the index facts now let log-softmax and
# cross-entropy at 8192 columns keep their loads ahead unspilled, and f32 LayerNorm at
# 8192 and 4000 too. Each value twice in alternation, kiln alone.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
all=softmax,log_softmax,cross_entropy,swiglu,layernorm,rmsnorm,residual_layernorm
ab prefetch KILN_CUDA_PREFETCH "2 1" $all 8192,1000,4000 bf16
ab facts KILN_CUDA_INDEX_FACTS "0 1" $all 8192,1000,4000 bf16
ab facts-f32 KILN_CUDA_INDEX_FACTS "0 1" softmax,layernorm,residual_layernorm,cross_entropy 8192,4000 f32
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5640001 2 8 $s exact
finish
