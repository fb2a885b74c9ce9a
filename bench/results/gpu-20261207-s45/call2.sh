#!/usr/bin/env bash
# Session 45, device call 2 (on call 1's warm machine, its build kept):
#   OUT=<dir> CALL_SECONDS=570 bash bench/results/gpu-20261207-s45/call2.sh
# 1. the attention A/B: the default (rotated 0, rolled 0) against rotated 1 + rolled 1
#    and rotated 0 + rolled 2, fast precision, in alternation, two rounds; first
#    launches (cold compiles) in each; cuDNN through torch SDPA in the same call;
# 2. GEMM rows whose tiles take the checked epilogue (8191^3: every tile; 3000 x 5000
#    x 7000: the edge tiles) and the bias epilogue, against cuBLAS.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_attention_bench kiln_gemm_bench
el "gemm rows"
timeout 120 build-gpu/bench/kiln_gemm_bench $r/gemm-rows.json "4096^3 relu|8191|3000x5000x7000|4096^3 X W^T" > $r/gemm-rows.log 2>&1; echo "rc $?"
cut -c1-160 $r/gemm-rows.log | tail -12
el "A/B attention: rotated/rolled, fast, alternating"
for rep in 1 2; do
  for cfg in "0 0" "1 1" "0 2"; do
    set -- $cfg
    [ $(left) -lt 110 ] && break 2
    KILN_ATTENTION_ROTATED=$1 KILN_ATTENTION_ROLLED_FORMS=$2 KILN_CACHE_DIR=$(mktemp -d) timeout 100 build-gpu/bench/kiln_attention_bench \
      $r/att-rot$1-rolled$2-$rep.json "bf16 4x32x4096x4096 d" fast > $r/att-rot$1-rolled$2-$rep.log 2>&1
    echo "rotated $1 rolled $2 rep $rep rc $?"; grep -E "ms" $r/att-rot$1-rolled$2-$rep.log | cut -c1-160 | head -12
  done
done
el "peers"
[ $(left) -gt 60 ] && { timeout $(( $(left) - 15 )) python3 bench/attention_peers.py --dtypes bf16 --out $r/attention-peers.json > $r/attention-peers.log 2>&1; echo "peers rc $?"; tail -12 $r/attention-peers.log; }
finish
