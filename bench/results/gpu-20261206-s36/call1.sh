#!/usr/bin/env bash
# For the next session's first device call (session 35 had no device time left for it; .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261206-s35/next-call.sh
# The tree with the new defaults (16-bit misaligned rows dealt from the start, rows over
# a cluster loading ahead) and the kernel cache's ladder judging a reused kernel itself:
# 1. the cuda fuzz regressions and PTX hazard scans;
# 2. every row kernel at 5123 and 65536 columns, bf16 and f32, outputs checked first, with
#    the defaults and with the previous ones (KILN_CUDA_COALESCED_ELEMENTS=0
#    KILN_CUDA_CLUSTER_PREFETCH=0) in the same call;
# 3. the exact and standard campaigns for what is left.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "fuzz regressions and PTX hazards"
timeout 120 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-regressions.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-regressions.log | head -12
el "rows at 5123 and 65536: defaults, then the previous ones"
outs=(); i=0
for env in "KILN_NOTHING=0" "KILN_CUDA_COALESCED_ELEMENTS=0 KILN_CUDA_CLUSTER_PREFETCH=0"; do
  env $env timeout 60 python3 bench/rows_bench.py --lib $lib --no-peers --kernels softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu \
    --widths 5123,65536 --kinds bf16,f32 --out $r/defaults-$i.json > $r/defaults-$i.log 2>&1 || echo "rc $?"
  outs+=("$(echo $env | sed 's/KILN_CUDA_//g; s/KILN_NOTHING=0/defaults/; s/ /+/')=$r/defaults-$i.json"); i=$((i + 1))
done
python3 bench/rows_ab.py "${outs[@]}" > $r/defaults.md 2>&1; cat $r/defaults.md
grep -h "failed their check" $r/defaults-*.log
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact 5800001 2 4 $s exact & campaigns standard 6220001 2 4 $s standard & wait; }
finish
