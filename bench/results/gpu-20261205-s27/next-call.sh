#!/usr/bin/env bash
# Written at the end of session 27 for the next device call (from the repository root,
# .deps carried):
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s27/next-call.sh
# 1. The loop prefetch (passes/loop_prefetch.h, KILN_CUDA_LOOP_PREFETCH=1, off by
#    default; checked bit for bit on the emulated target only): the row catalog on cuda
#    with it on, then the A/B that decides its default: the rows written as loops over
#    column chunks (bench/rows_bench_lib.cpp: softmax_online, layernorm_chunked; each
#    output checked against f64 before it is timed), the two configurations twice in
#    alternation, kiln alone, with the whole-row forms beside them for reference.
# 2. The int8 variants added after the device calls (i8_acc_from_c, i8_batched) with the
#    others on the device; the int8 rows against cuBLAS at two tiles.
# 3. The campaigns with what is left.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_variants_tests kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "row catalog entries on cuda with KILN_CUDA_LOOP_PREFETCH=1"
for e in layernorm_affine rmsnorm_weighted log_softmax cross_entropy residual_layernorm_bf16 swiglu column_sum softmax_norm statistics_losses; do
  KILN_CUDA_LOOP_PREFETCH=1 timeout 40 $k run $e --target cuda --size medium --seed 7 > $r/run-$e.log 2>&1 || echo "FAILED run $e"
  KILN_CUDA_LOOP_PREFETCH=1 timeout 40 $k compare $e --targets interp,cuda --precision exact --seed 7 > $r/compare-$e.log 2>&1 || echo "FAILED compare $e"
done
el "A/B: KILN_CUDA_LOOP_PREFETCH on the chunked rows"
outs=()
for i in 0 1 2 3; do
  v=$((i % 2))
  KILN_CUDA_LOOP_PREFETCH=$v timeout 70 python3 bench/rows_bench.py --lib $lib --no-peers --kernels softmax,softmax_online,layernorm,layernorm_chunked \
    --widths 8192,1000,5123 --kinds bf16,f32 --out $r/ab-loop-$i.json > $r/ab-loop-$i.log 2>&1 || echo "configuration $i: rc $?"
  outs+=("KILN_CUDA_LOOP_PREFETCH=$v=$r/ab-loop-$i.json")
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-loop.md 2>&1; cat $r/ab-loop.md
el "int8 GEMM variants on the device"
timeout 90 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*/i8*' > $r/t-i8.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-i8.log | head
el "int8 GEMM against cuBLAS, 128x256 and 128x128 tiles"
timeout 90 build-gpu/bench/kiln_gemm_bench $r/gemm-i8.json "i8" > $r/gemm-i8.log 2>&1; echo "rc $?"; cat $r/gemm-i8.log
s=$(( ($(left) - 30) / 2 )); [ $s -gt 30 ] && campaigns exact 5440001 2 8 $s exact
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns standard 4800001 2 8 $s standard
finish
