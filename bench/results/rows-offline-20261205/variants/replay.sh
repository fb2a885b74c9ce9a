#!/bin/bash
# Replays every plan: ./replay.sh [outdir]; needs librows.so (build line in build.sh).
cd "$(dirname "$0")"
export KILN_CACHE_DIR=/tmp/variants-rows/cache
OUT=${1:-plans}; mkdir -p "$OUT"
KILN=/work/main/build/tools/kiln
plan() {  # name R C args...
  local name=$1 R=$2 C=$3; shift 3
  local a=(); for s in "$@"; do s=${s//R/$R}; s=${s//C2/$((2*C))}; s=${s//C/$C}; a+=(--arg "$s"); done
  for try in 1 2 3 4 5; do
    $KILN plan --library ./librows.so "$name" "${a[@]}" --target cuda > "$OUT/$name.${R}x$C.txt" 2>&1 && break
    grep -q "Permission denied" "$OUT/$name.${R}x$C.txt" || break; sleep 3
  done
}
for RC in "32768 8192" "4096 5123"; do
  set -- $RC; R=$1; C=$2
  for k in v01_softmax_online v02_softmax_chunked v04_softmax_2rows v13_log_softmax_literal; do plan $k $R $C RxC RxC; done
  for k in v03_layernorm_chunked v08_layernorm_onepass v09_layernorm_f32params v22_layernorm_chunked_3loops; do plan $k $R $C RxC C C RxC; done
  for k in v05_rmsnorm_4rows v18_bias_gelu v19_rmsnorm_f32; do plan $k $R $C RxC C RxC; done
  for k in v06_rmsnorm_w1c v07_rmsnorm_w1c_ownaxis; do plan $k $R $C RxC 1xC RxC; done
  plan v10_residual_rmsnorm $R $C RxC RxC C RxC RxC
  plan v11_swiglu_two_views $R $C RxC RxC RxC
  plan v12_geglu_tanh $R $C RxC2 RxC
  for k in v14_ce_loss_iota_first v15_ce_loss_label_first v16_row_max_argmax; do plan $k $R $C RxC R R; done
  plan v17_column_sum_rowblocks $R $C RxC C
  plan v23_row_argmax_masked_min $R $C RxC R R
  for k in v24_softmax_online_lanes v27_softmax_online_pipeline v26_softmax_chunked_4k softmax_rows; do plan $k $R $C RxC RxC; done
  for k in v25_rmsnorm_2rows rmsnorm_weighted; do plan $k $R $C RxC C RxC; done
  plan layernorm_affine $R $C RxC C C RxC
  plan column_sum $R $C RxC C
  for k in v20_row_scale v21_dequant_i8; do plan $k $R $C RxC R RxC; done
done
