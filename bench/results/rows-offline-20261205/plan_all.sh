#!/bin/bash
# Plans every row kernel of the benchmark (kind x width) on the cuda target offline, one line each.
# KINDS and KERNELS (space-separated) narrow it (session 32: KERNELS="softmax cross_entropy swiglu").
k=/work/main/build/tools/kiln
name() { case $1 in softmax) echo softmax_rows;; layernorm) echo layernorm_affine;; rmsnorm) echo rmsnorm_weighted;; residual_layernorm) echo residual_layernorm_affine;; *) echo $1;; esac; }
export KILN_CACHE_DIR=${KILN_CACHE_DIR:-/tmp/rows-offline-cache}
for kind in ${KINDS:-bf16 f32}; do
for wr in 8192:32768 128:1048576 1000:131072 4000:32768 5123:26000 65536:2048; do
  C=${wr%%:*}; R=${wr##*:}
  for kn in ${KERNELS:-softmax layernorm rmsnorm log_softmax cross_entropy residual_layernorm swiglu}; do
    case $kn in
      softmax|log_softmax) a="--arg ${R}x$C --arg ${R}x$C";;
      layernorm) a="--arg ${R}x$C --arg $C --arg $C --arg ${R}x$C";;
      rmsnorm) a="--arg ${R}x$C --arg $C --arg ${R}x$C";;
      cross_entropy) a="--arg ${R}x$C --arg $R --arg $R --arg ${R}x$C";;
      residual_layernorm) a="--arg ${R}x$C --arg ${R}x$C --arg $C --arg $C --arg ${R}x$C --arg ${R}x$C";;
      swiglu) a="--arg ${R}x$((2*C)) --arg ${R}x$C";;
    esac
    out=$($k plan --library ./librows_$kind.so $(name $kn) $a --target cuda 2>&1)
    grid=$(echo "$out" | grep -m1 "grid:" | sed "s/^ *grid: //; s/, serial and pipeline.*//; s/ CTAs (one per program instance of \[rows\])//")$(echo "$out" | grep -q "persistent:" && echo " persistent")
    regs=$(echo "$out" | grep -m1 "registers:" | sed 's/^ *registers: //')
    fit=$(echo "$out" | sed -n '/fitted to the registers/,/tensor-core/p' | grep -v "fitted\|tensor-core" | sed 's/^ *//' | tr '\n' ';')
    err=$(echo "$out" | grep -m1 -i "error" )
    echo "$kn $kind $C | $grid | $regs | $fit $err"
  done
done; done
