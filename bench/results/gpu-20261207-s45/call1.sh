#!/usr/bin/env bash
# Session 45's first device call:
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261207-s45/call1.sh
# 1. the GEMM row that fell 52x in session 44 (`4096^3 A B, B a view of w.t()`,
#    14.5 TFLOP/s, correct): alone and after the plain row, each dumped
#    (KILN_DUMP_DIR: a module with the generic kernel kiln_bench_gemm in it means
#    the Hopper kernel refused the launch), with its plan after the launch;
# 2. the checked epilogue as a rolled loop (store_tile_checked): the GEMM device
#    tests (epilogues on ragged shapes among them) and the GEMM variants on the
#    device, the cold compiles, and the rows whose every tile is checked (8191^3)
#    or whose edge tiles are (3000x5000x7000);
# 3. the elements-per-thread A/B (32, 16, 8) session 44 could not make.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_variants_tests kiln_rows_bench kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "gemm: the w.t() rows alone, then after the plain row"
for case in alone after; do
  sel="B a view of w.t()"; [ $case = after ] && sel="4096^3|B a view of w.t()"
  KILN_CACHE_DIR=$(mktemp -d) KILN_DUMP_DIR=$r/dump-flip-$case timeout 90 build-gpu/bench/kiln_gemm_bench $r/gemm-flip-$case.json "$sel" \
    > $r/gemm-flip-$case.log 2>&1; echo "rc $?"; cut -c1-200 $r/gemm-flip-$case.log | tail -12
  ls $r/dump-flip-$case | head; grep -l "kiln_bench_gemm(" $r/dump-flip-$case/* 2>/dev/null | sed 's/^/generic kernel in: /'
done
# Which kernels the w.t() row launches and how long each takes (nsys, where the machine has it).
if command -v nsys >/dev/null; then
  KILN_CACHE_DIR=$(mktemp -d) timeout 120 nsys profile -o $r/flip --stats=true --force-overwrite true build-gpu/bench/kiln_gemm_bench $r/gemm-flip-nsys.json "4096^3 A B, B a view" > $r/nsys-flip.log 2>&1
  echo "nsys rc $?"; grep -A14 "cuda_gpu_kern_sum" $r/nsys-flip.log | cut -c1-220
else echo "no nsys"; ls /usr/local/cuda/bin | tr '\n' ' '; fi
el "device tests: GEMM, its epilogues, staging kernels, rows; the GEMM variants"
timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmDevice.*:CudaGemmEpilogueDevice.*:CudaStagingKernels.*:CudaRowsGeneral.*' > $r/t-gemm-device.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-gemm-device.log | head -20
timeout 120 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.*' > $r/t-variants.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-variants.log | head -20
cold_compiles gemm_bf16 gemm_epilogue linear
el "gemm rows: square, bias, odd leading dimensions, ragged"
timeout 150 build-gpu/bench/kiln_gemm_bench $r/gemm-rows.json "relu|8191|3000x5000x7000|X W^T (W" > $r/gemm-rows.log 2>&1; echo "rc $?"
cut -c1-160 $r/gemm-rows.log | tail -16
ab rows-ept-5123 KILN_CUDA_ELEMENTS_PER_THREAD "32 16 8" softmax,layernorm,rmsnorm,swiglu 5123 bf16
finish
