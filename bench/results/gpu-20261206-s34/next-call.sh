#!/usr/bin/env bash
# For the next session's first device call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s34/next-call.sh
# 1. The cuda fuzz regressions (4962944's among them) and the PTX hazard scans.
# 2. A/B of misaligned rows dealt one element a thread in turn (KILN_CUDA_COALESCED_ELEMENTS
#    0 vs 1) on every row kernel at 5123 bf16 columns: it changes only the kernels whose
#    shifted runs the spill ladder gives up (bf16 SwiGLU, 0.36 of copy). Then the same
#    with the shifted runs off for every kernel (KILN_CUDA_SHIFTED_RUNS=0), to see whether
#    coalesced elements beat the shifted vectors themselves (softmax: 0.44 of copy,
#    Triton's scalar loads 0.58); bf16 LayerNorm and RMSNorm, and f32 and i8-free widths,
#    as controls.
# 3. The exact and the standard campaigns from where session 34's stopped.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "fuzz regressions and PTX hazards"
timeout 150 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-regressions.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-regressions.log | head -12
ab coalesced KILN_CUDA_COALESCED_ELEMENTS "0 1" softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu 5123 bf16
el "A/B coalesced with the shifted runs off"
outs=(); i=0
for v in 0 1 0 1; do
  KILN_CUDA_SHIFTED_RUNS=0 KILN_CUDA_COALESCED_ELEMENTS=$v timeout 90 python3 bench/rows_bench.py --lib $lib --no-peers \
    --kernels softmax,layernorm,rmsnorm,swiglu --widths 5123 --kinds bf16 --out $r/ab-unshifted-$i.json > $r/ab-unshifted-$i.log 2>&1 || echo "rc $?"
  outs+=("unshifted,coalesced=$v=$r/ab-unshifted-$i.json"); i=$((i + 1))
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-unshifted.md 2>&1; cat $r/ab-unshifted.md
s=$(( $(left) - 25 ))
[ $s -gt 30 ] && { campaigns exact 5720001 2 4 $s exact & campaigns standard 6140001 2 4 $s standard & wait; }
finish
