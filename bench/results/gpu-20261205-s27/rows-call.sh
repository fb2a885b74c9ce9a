#!/usr/bin/env bash
# Session 27's row call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s27/rows-call.sh
# 1. The row catalog entries on cuda (standard at medium size against f64, exact
#    against interp): the unit-axes layout and argmax in registers (session 26) on a GPU.
# 2. Rows written as loops over column chunks (rows_bench_lib.cpp's softmax_online,
#    layernorm_chunked) against the whole-row forms, kiln alone, in one process.
# 3. Session 22's shared-divisor A/B (KILN_CUDA_SHARED_DIVISOR, off by default; never
#    measured), each configuration twice in alternation.
# 4. The full row benchmark with the peers, as far as the call's time goes.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "row catalog entries on cuda"
for e in layernorm_affine rmsnorm_weighted log_softmax cross_entropy residual_layernorm_bf16 swiglu column_sum softmax_norm; do
  timeout 40 $k run $e --target cuda --size medium --seed 7 > $r/run-$e.log 2>&1 || echo "FAILED run $e"
  timeout 40 $k compare $e --targets interp,cuda --precision exact --seed 7 > $r/compare-$e.log 2>&1 || echo "FAILED compare $e"
done
el "chunked forms against whole rows (kiln alone)"
timeout 100 python3 bench/rows_bench.py --lib $lib --no-peers --kernels softmax,softmax_online,layernorm,layernorm_chunked \
  --widths 8192,1000,5123 --kinds bf16,f32 --out $r/chunked.json > $r/chunked.log 2>&1; echo "rc $?"
cat $r/chunked.md 2>/dev/null | head -30 || tail -20 $r/chunked.log
el "A/B: KILN_CUDA_SHARED_DIVISOR"
outs=()
for i in 0 1 2 3; do
  v=$((i % 2))
  KILN_CUDA_SHARED_DIVISOR=$v timeout 45 python3 bench/rows_bench.py --lib $lib --no-peers --kernels softmax,cross_entropy \
    --widths 8192,4000,1000 --kinds bf16 --out $r/ab-divisor-$i.json > $r/ab-divisor-$i.log 2>&1 || echo "configuration $i: rc $?"
  outs+=("KILN_CUDA_SHARED_DIVISOR=$v=$r/ab-divisor-$i.json")
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-divisor.md 2>&1; cat $r/ab-divisor.md | head -30
s=$(( $(left) - 60 ))
if [ $s -gt 40 ]; then
  el "full row benchmark with peers (stop after $s s)"
  python3 -X faulthandler bench/rows_bench.py --lib $lib --out $r/rows.json --stop $s --budget $((s / 2)) > $r/rows.log 2>&1; echo "rc $?"
  grep -E "device copy|problems," $r/rows.log; cat $r/rows.md 2>/dev/null | head -70
fi
finish
