#!/usr/bin/env bash
# Session 28, call 1 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s28/call1.sh
# 1. Nsight Compute on the row kernels furthest from copy bandwidth on an H100 in
#    session 27 (bf16 softmax and cross-entropy, f32 softmax at 5123 columns; LayerNorm
#    at 65536 columns), the aligned 8192-column softmax as the reference: where their
#    time goes, for the offline work that follows.
# 2. A/B runs of row knobs, kiln alone, each output checked against f64 before it is
#    timed, the configurations in alternation: the loop prefetch (session 27, off by
#    default) on rows written as loops over column chunks; the CTA size of a cluster
#    spanning a 65536-column row (KILN_CUDA_CLUSTER_CTA, new); f32 rows loaded one row
#    ahead (KILN_CUDA_PREFETCH=3) at ragged widths; the shifted runs of misaligned rows.
# 3. The int8 variants added after session 27's calls; the int8 rows against cuBLAS.
# 4. Campaigns with what is left.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_variants_tests kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "ncu on five row problems"
prof() {  # name kernel-regex kernel width kind
  timeout 45 ncu --clock-control none --kernel-name regex:$2 --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy \
    python3 bench/rows_bench.py --lib $lib --no-peers --kernels $3 --widths $4 --kinds $5 --out /tmp/ncu-$1.json > $r/ncu-$1.txt 2>&1; echo "ncu $1 rc $?"
}
prof softmax-bf16-5123 softmax_rows softmax 5123 bf16
prof softmax-bf16-8192 softmax_rows softmax 8192 bf16
prof softmax-f32-5123 softmax_rows softmax 5123 f32
prof ce-bf16-5123 cross_entropy cross_entropy 5123 bf16
prof layernorm-bf16-65536 layernorm_affine layernorm 65536 bf16
# ab NAME VARIABLE "V1 V2 ..." KERNELS WIDTHS KINDS: the values in turn, twice over
# (the first value a third time when there are three), then the table.
ab() {
  local name=$1 var=$2 values=($3) kernels=$4 widths=$5 kinds=$6 outs=() i=0
  [ $(left) -lt 150 ] && { el "skipped A/B $name: $(left) s left"; return; }
  el "A/B $name: $var in ${values[*]}"
  local order=("${values[@]}" "${values[@]}")
  for v in "${order[@]}"; do
    env $var=$v timeout 80 python3 bench/rows_bench.py --lib $lib --no-peers --kernels $kernels --widths $widths --kinds $kinds \
      --out $r/ab-$name-$i.json > $r/ab-$name-$i.log 2>&1 || echo "$var=$v: rc $?"
    outs+=("$var=$v=$r/ab-$name-$i.json"); i=$((i + 1))
  done
  python3 bench/rows_ab.py "${outs[@]}" > $r/ab-$name.md 2>&1; cat $r/ab-$name.md
}
ab loop KILN_CUDA_LOOP_PREFETCH "0 1" softmax,softmax_online,layernorm,layernorm_chunked 8192,5123 bf16,f32
ab cluster KILN_CUDA_CLUSTER_CTA "1024 512 256" softmax,layernorm,cross_entropy 65536 bf16,f32
ab prefetch KILN_CUDA_PREFETCH "2 3" softmax,layernorm,cross_entropy 1000,4000,5123 f32
ab shift KILN_CUDA_SHIFTED_RUNS "1 0" softmax,layernorm,cross_entropy 5123 bf16
el "loop prefetch on: catalog row entries interp vs cuda, exact"
for e in softmax_norm layernorm_affine cross_entropy; do
  KILN_CUDA_LOOP_PREFETCH=1 timeout 40 $k compare $e --targets interp,cuda --precision exact --seed 7 > $r/compare-$e.log 2>&1 || echo "FAILED compare $e"
done
el "int8 GEMM variants on the device"
timeout 90 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*/i8*' > $r/t-i8.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-i8.log | head
timeout 40 $k run linear_i8 --target cuda --size medium --seed 7 > $r/run-linear_i8.log 2>&1; echo "linear_i8 rc $?"; tail -3 $r/run-linear_i8.log
if [ $(left) -gt 100 ]; then
  el "int8 GEMM against cuBLAS, 128x256 and 128x128 tiles"
  timeout 90 build-gpu/bench/kiln_gemm_bench $r/gemm-i8.json "i8" > $r/gemm-i8.log 2>&1; echo "rc $?"; cat $r/gemm-i8.log
fi
s=$(( ($(left) - 30) / 2 )); [ $s -gt 30 ] && campaigns exact 5440001 2 8 $s exact
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns standard 4800001 2 8 $s standard
finish
