#!/usr/bin/env bash
# Session 47's second device call: what the first (../gpu-20261207-s46/call.sh) ran out
# of time for, in one run so that ratios are same-run: the GEMM rows whose tiles take
# the checked epilogue and the grouped order (with cuBLAS in the bench), the attention
# bench's default configuration (bf16, fast), and cuDNN/FA2 through torch SDPA on the
# same shapes. From the repository root, with make-carry.sh's build-carry and .deps:
#   CARRIED=1 OUT=<dir> CALL_SECONDS=330 bash bench/results/gpu-20261208-s47/call.sh
set -uo pipefail
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
export LD_LIBRARY_PATH=$PWD/build-carry:${LD_LIBRARY_PATH:-}
k=build-carry/kiln G=build-carry/kiln_gemm_bench A=build-carry/kiln_attention_bench
$k --version
el "gemm rows"
timeout 150 $G $r/gemm-rows.json "=4096^3|=3000x5000x7000|4096^3 relu|8191|grouped order|=4096^3 X W^T (W [N, K])" > $r/gemm-rows.log 2>&1; echo "rc $?"
cut -c1-170 $r/gemm-rows.log | grep -E "TFLOP|warning" | head -12
el "attention, default configuration"
KILN_CACHE_DIR=$(mktemp -d) timeout 90 $A $r/att.json "bf16 4x32x4096x4096 d" fast > $r/att.log 2>&1; echo "rc $?"; grep -E "ms" $r/att.log | cut -c1-170 | head -8
el "peers"
[ $(left) -gt 45 ] && { timeout $(( $(left) - 12 )) python3 bench/attention_peers.py --dtypes bf16 --out $r/attention-peers.json > $r/attention-peers.log 2>&1; echo "peers rc $?"; tail -10 $r/attention-peers.log; }
finish
