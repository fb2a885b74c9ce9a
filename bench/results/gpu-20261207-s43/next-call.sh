#!/usr/bin/env bash
# The next session's first device call, planned at the end of session 43 (not yet run):
#   OUT=<dir> CALL_SECONDS=575 bash bench/results/gpu-20261207-s43/next-call.sh
# 1. issue 15's last exact programs: 2,601 were missing from 100,000 on the code as it
#    stands; four exact processes (16 jobs in all) from 6560001 for 150 s give about 5,000;
# 2. session 43's GEMM changes, never run on a device: the operand staging kernels as a
#    module of their own (b3131ab, c4887b3), and 2-byte outputs without the unchecked
#    pair-store epilogue (981d0fc): CudaGemmDevice.* (operands packed), the GEMM
#    variants' device tests (int8 and tf32 operands transposed, batches packed), the
#    GEMM benchmark against cuBLAS on the shapes they touch (packed operands, odd and
#    unaligned leading dimensions, the bias epilogue), and the cold compiles of the
#    GEMM and attention entries (session 43, before them: gemm_bf16 0.61 s,
#    gemm_epilogue 1.10 s; offline NVRTC CPU time since -23%);
# 3. an A/B of KILN_CUDA_ELEMENTS_PER_THREAD 32 (the default) against 16 and 8 on the seven bf16
#    row kernels at 26000 x 5123 (rows dealt one element a thread in turn): offline
#    (session 43) 8 gives SwiGLU, RMSNorm, LayerNorm, residual LayerNorm and cross-entropy
#    a cluster of two 1024-thread CTAs a row at 32-34 registers (two CTAs an SM) where 32
#    gives one CTA of 512-1024 threads at 52-64 registers (SwiGLU: one CTA an SM);
# 4. exact and standard campaigns for what is left.
# The call after it: issue 15's sanitizer runs (compute-sanitizer's four tools over 1,000
# fuzzed programs each and over the catalog, the attention entries among them), then
# campaigns:
#   OUT=<dir> CALL_SECONDS=575 EXACT=6680001 STANDARD=7020001 bash bench/results/gpu-20261207-s42/sanitizer-call.sh
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_variants_tests kiln_rows_bench kiln_gemm_bench
lib=build-gpu/bench/libkiln_rows_bench.so
campaigns exact 6560001 4 4 150 top-up
el "device tests: GEMM, staging from the shared module"
timeout 100 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaGemmDevice.*:CudaStagingKernels.*' > $r/t-gemm-device.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]|Failure' $r/t-gemm-device.log | head -20
for i in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i timeout 110 build-gpu/tests/kiln_variants_tests \
    --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*' > $r/t-gemm-variants-$i.log 2>&1 &
done; wait
grep -hE '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]' $r/t-gemm-variants-*.log | head -20
grep -h -A8 "Failure" $r/t-gemm-variants-*.log | head -40
el "gemm against cuBLAS"
timeout 150 build-gpu/bench/kiln_gemm_bench $r/gemm.json "4096^3|3000x5000x7000|8191^3|64x8192x8192" > $r/gemm.log 2>&1; echo "rc $?"; cat $r/gemm.log | cut -c1-160
cold_compiles gemm_bf16 gemm_epilogue linear attention_bf16
ab rows-ept-5123 KILN_CUDA_ELEMENTS_PER_THREAD "32 16 8" softmax,cross_entropy,log_softmax,layernorm,rmsnorm,residual_layernorm,swiglu 5123 bf16
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact 6640001 2 4 $s exact & campaigns standard 6980001 2 4 $s standard & wait; }
finish
