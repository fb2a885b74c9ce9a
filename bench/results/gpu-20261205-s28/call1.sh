#!/usr/bin/env bash
# Session 28, call 1 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s28/call1.sh
# Session 27's planned call (next-call.sh there: the loop prefetch's A/B and the row
# catalog with it on; the int8 variants and rows) with, first, Nsight Compute on the
# row kernels furthest from copy bandwidth on an H100 in session 27 (bf16 softmax and
# cross-entropy at 5123 columns, LayerNorm at 65536 columns, with the aligned 8192-column
# softmax as the reference): where their time goes, for the offline work that follows.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_variants_tests kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "ncu on four row problems"
prof() {  # name kernel-regex kernel width kind
  timeout 60 ncu --clock-control none --kernel-name regex:$2 --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --section SourceCounters \
    python3 bench/rows_bench.py --lib $lib --no-peers --kernels $3 --widths $4 --kinds $5 --out /tmp/ncu-$1.json > $r/ncu-$1.txt 2>&1; echo "ncu $1 rc $?"
}
prof softmax-bf16-5123 softmax_rows softmax 5123 bf16
prof softmax-bf16-8192 softmax_rows softmax 8192 bf16
prof ce-bf16-5123 cross_entropy cross_entropy 5123 bf16
prof layernorm-bf16-65536 layernorm_affine layernorm 65536 bf16
prof softmax-f32-5123 softmax_rows softmax 5123 f32
el "A/B: KILN_CUDA_SHIFTED_RUNS on the 5123-column rows"
outs=()
for i in 0 1 2 3; do
  v=$((1 - i % 2))
  KILN_CUDA_SHIFTED_RUNS=$v timeout 60 python3 bench/rows_bench.py --lib $lib --no-peers --kernels softmax,layernorm,cross_entropy \
    --widths 5123 --kinds bf16,f32 --out $r/ab-shift-$i.json > $r/ab-shift-$i.log 2>&1 || echo "configuration $i: rc $?"
  outs+=("KILN_CUDA_SHIFTED_RUNS=$v=$r/ab-shift-$i.json")
done
python3 bench/rows_ab.py "${outs[@]}" > $r/ab-shift.md 2>&1; cat $r/ab-shift.md
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
timeout 40 $k run linear_i8 --target cuda --size medium --seed 7 > $r/run-linear_i8.log 2>&1; echo "linear_i8 rc $?"; tail -3 $r/run-linear_i8.log
el "int8 GEMM against cuBLAS, 128x256 and 128x128 tiles"
timeout 90 build-gpu/bench/kiln_gemm_bench $r/gemm-i8.json "i8" > $r/gemm-i8.log 2>&1; echo "rc $?"; cat $r/gemm-i8.log
s=$(( ($(left) - 30) / 2 )); [ $s -gt 30 ] && campaigns exact 5440001 2 8 $s exact
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns standard 4800001 2 8 $s standard
finish
