#!/usr/bin/env bash
# Session 37's first device call:
#   OUT=<dir> CALL_SECONDS=570 bash bench/results/gpu-20261206-s37/call1.sh
# (In this order, the most wanted first: a call may be cut short by the session's device time.)
# 1. int8 operands stored k outermost (B [K, N], A [K, M]) on the Hopper GEMM through a
#    transposed copy, and f32 GEMMs with allow_tf32 on wgmma tf32: the int8 and tf32 GEMM
#    variants (every output within its bound of the interpreter), the catalog's gemm_i8
#    and linear_i8 checked against their references, and the int8 and tf32 GEMM rows
#    against cuBLAS (B [K, N] rows included);
# 2. session 36's whole-row path of dealt rows (KILN_CUDA_WHOLE_ROWS 0 against 1), then
#    the index facts on it, bf16 rows at 5123 columns (common.sh: ab), and between the
#    two the cuda fuzz regressions and PTX hazard scans;
# 3. the exact and standard campaigns for what is left (EXACT, STANDARD: first seeds).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench kiln_variants_tests kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "int8 and tf32 GEMM variants on the device"
timeout 120 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.*/i8_*:Gemm/VariantDevice.*/tf32_*:Gemm/VariantDevice.*/kloop_mma_widened' > $r/t-i8-tf32-variants.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]|OK \]" $r/t-i8-tf32-variants.log | head -20
el "catalog gemm_i8, linear_i8 on cuda"
for e in gemm_i8 linear_i8; do for p in exact standard; do for z in small medium; do
  timeout 60 $k run $e --target cuda --precision $p --size $z >> $r/catalog-i8.log 2>&1; echo "$e $p $z: rc $?"
done; done; done
el "int8, tf32 and w.t() GEMM rows against cuBLAS"
timeout 200 build-gpu/bench/kiln_gemm_bench $r/gemm-i8-tf32.json "i8 |tf32 |w.t()" > $r/gemm-i8-tf32.log 2>&1; echo "rc $?"; tail -26 $r/gemm-i8-tf32.log
K=softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu
ab whole KILN_CUDA_WHOLE_ROWS "0 1" $K 5123 bf16
regressions
ab facts KILN_CUDA_INDEX_FACTS "0 1" $K 5123 bf16
grep -h "failed their check" $r/ab-*.log
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact ${EXACT:-5920001} 2 4 $s exact & campaigns standard ${STANDARD:-6340001} 2 4 $s standard & wait; }
finish
