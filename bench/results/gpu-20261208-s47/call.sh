#!/usr/bin/env bash
# Session 47's second device call, one run so that ratios are same-run:
# 1. NVRTC's -Ofast-compile=min (KILN_CUDA_FAST_COMPILE) against the default on the
#    GEMM's cold compiles (offline it halves gemm_epilogue's NVRTC + ptxas time,
#    0.96 -> 0.48 s) and on the GEMM rows' speed (cuBLAS in the same bench run);
# 2. the attention bench's default configuration (bf16, fast) and cuDNN/FA2 through
#    torch SDPA on the same shapes, for the ratios call 1 had no time for.
# From the repository root, with make-carry.sh's build-carry and .deps:
#   OUT=<dir> CALL_SECONDS=330 bash bench/results/gpu-20261208-s47/call.sh
set -uo pipefail
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
export LD_LIBRARY_PATH=$PWD/build-carry:${LD_LIBRARY_PATH:-}
k=build-carry/kiln G=build-carry/kiln_gemm_bench A=build-carry/kiln_attention_bench
$k --version
el "GEMM variants new this session, against the interpreter"
timeout 60 build-carry/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*/epi_*' > $r/tv-gemm-epi.log 2>&1; echo "rc $?"
grep -hE "^\[  (PASSED|FAILED) |FAILED  \]|OK \]" $r/tv-gemm-epi.log
rows="=4096^3|=3000x5000x7000|=4096^3 relu(A B + bias[n])|=4096^3 X W^T (W [N, K])|=8191^3 (odd leading dimensions)"
entries="gemm_bf16 gemm_epilogue linear"
# QUICK=1 (a call with little device time left): two rows, two entries, no attention.
[ -n "${QUICK:-}" ] && { rows="=4096^3|=4096^3 relu(A B + bias[n])"; entries="gemm_bf16 gemm_epilogue"; }
for fc in "" min; do
  el "fast compile '${fc}': cold compiles, then the GEMM rows"
  for e in $entries; do
    KILN_CUDA_FAST_COMPILE=$fc KILN_CACHE_DIR=$(mktemp -d) timeout 40 $k bench $e --target cuda > $r/cold-$e-fc$fc.log 2>&1; echo "$e rc $?"; grep -E "^$e " $r/cold-$e-fc$fc.log
  done
  KILN_CUDA_FAST_COMPILE=$fc KILN_CACHE_DIR=$(mktemp -d) timeout 100 $G $r/gemm-fc$fc.json "$rows" > $r/gemm-fc$fc.log 2>&1; echo "rc $?"
  cut -c1-150 $r/gemm-fc$fc.log | grep -E "TFLOP|warning" | head -8
done
[ -n "${QUICK:-}" ] && { finish; exit 0; }
el "attention, default configuration"
[ $(left) -gt 120 ] && { KILN_CACHE_DIR=$(mktemp -d) timeout 90 $A $r/att.json "bf16 4x32x4096x4096 d" fast > $r/att.log 2>&1; echo "rc $?"; grep -E "ms" $r/att.log | cut -c1-170 | head -8; }
el "peers"
[ $(left) -gt 45 ] && { timeout $(( $(left) - 12 )) python3 bench/attention_peers.py --dtypes bf16 --out $r/attention-peers.json > $r/attention-peers.log 2>&1; echo "peers rc $?"; tail -10 $r/attention-peers.log; }
finish
