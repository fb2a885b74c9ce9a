#!/usr/bin/env bash
# Written in session 23 (2026-12-05), which had no device (new loans were paused), for
# the next session's first call; not yet run. Run from the repository root with .deps
# carried: OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261205-s23/next-call.sh
# 1. Correctness first: the device tests of what sessions 22-23 built offline (the GEMM
#    kernel's accumulator started from a tile, the rows' spill ladder, the attention
#    forms; kiln_variants_tests' device part if the suite is there), the row and
#    attention catalog entries on cuda.
# 2. The A/B that decides KILN_CUDA_SPLIT_FIRST's default (on now, unmeasured): the row
#    kernels whose first compile spilled at 8192, 4000, 1000 and 5123 columns (bf16 and
#    f32), each configuration twice in alternation.
# 3. Session 22's shared-divisor A/B (KILN_CUDA_SHARED_DIVISOR, off by default).
# 4. The rest of the call: an exact campaign (common.sh's campaigns()).
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_unit_tests kiln_catalog_tests kiln_variants_tests
el "device tests of the offline work"
timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmEpilogueDevice.*:CudaGemmDevice.*:CudaDevice.*Row*:CudaRows*' > $r/tests-unit.log 2>&1; echo "rc $?"; tail -3 $r/tests-unit.log
timeout 120 build-gpu/tests/kiln_catalog_tests --gtest_filter='AttentionKeyBlockDevice.*:*AttentionDevice*' > $r/tests-attention.log 2>&1; echo "rc $?"; tail -3 $r/tests-attention.log
[ -x build-gpu/tests/kiln_variants_tests ] && { timeout 150 build-gpu/tests/kiln_variants_tests --gtest_filter='*Device*' > $r/tests-variants.log 2>&1; echo "rc $?"; grep -E "FAILED|PASSED|SKIPPED" $r/tests-variants.log | tail -5; }
el "row catalog entries on cuda (standard against f64, exact against interp)"
for e in layernorm_affine rmsnorm_weighted log_softmax cross_entropy residual_layernorm_bf16 swiglu column_sum softmax_norm; do
  timeout 60 $k run $e --target cuda --precision standard --size medium > $r/run-$e.log 2>&1 || echo "FAILED run $e"
  timeout 60 $k compare $e --targets interp,cuda --precision exact > $r/compare-$e.log 2>&1 || echo "FAILED compare $e"
done
el "rows A/B: KILN_CUDA_SPLIT_FIRST"
OUT=$r/ab-split KILN_BUILD_DIR=build-gpu ROWS_AB="KILN_CUDA_SPLIT_FIRST=0|KILN_CUDA_SPLIT_FIRST=1|KILN_CUDA_SPLIT_FIRST=0|KILN_CUDA_SPLIT_FIRST=1" \
  ROWS_ARGS="--kernels softmax,log_softmax,cross_entropy,swiglu,layernorm,residual_layernorm --widths 8192,4000,1000,5123" ROWS_STOP=150 \
  timeout 200 bash scripts/gpu-rows.sh > $r/ab-split.log 2>&1; echo "rc $?"; cat $r/ab-split/ab.md 2>/dev/null | head -60
el "rows A/B: KILN_CUDA_SHARED_DIVISOR"
OUT=$r/ab-divisor KILN_BUILD_DIR=build-gpu ROWS_AB="KILN_CUDA_SHARED_DIVISOR=0|KILN_CUDA_SHARED_DIVISOR=1|KILN_CUDA_SHARED_DIVISOR=0|KILN_CUDA_SHARED_DIVISOR=1" \
  ROWS_ARGS="--kernels softmax,cross_entropy --widths 8192,4000,1000" ROWS_STOP=90 timeout 120 bash scripts/gpu-rows.sh > $r/ab-divisor.log 2>&1; echo "rc $?"
cat $r/ab-divisor/ab.md 2>/dev/null | head -30
campaigns exact 5320001 2 8 $(( $(left) - 20 )) exact
finish
