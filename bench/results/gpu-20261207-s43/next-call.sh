#!/usr/bin/env bash
# The next session's first device call, planned at the end of session 43 (not yet run):
#   OUT=<dir> CALL_SECONDS=575 bash bench/results/gpu-20261207-s43/next-call.sh
# 1. issue 15's last exact programs: 2,601 were missing from 100,000 on the code as it
#    stands; four exact processes (16 jobs in all) from 6560001 for 150 s give about 5,000;
# 2. the GEMM operand staging kernels as a module of their own (b3131ab, never run on a
#    device): CudaGemmDevice.* (operands packed), the GEMM variants' device tests
#    (int8 and tf32 operands transposed, batches packed), and the cold compiles of the
#    GEMM and attention entries (session 43: gemm_bf16 0.61 s, gemm_epilogue 1.10 s
#    with the staging kernels in each module);
# 3. compute-sanitizer's four tools over 1,000 fuzzed programs each and over the catalog
#    (gpu-20261207-s42/sanitizer-call.sh's loop, the attention entries among them);
# 4. exact and standard campaigns for what is left.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_variants_tests
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
cold_compiles gemm_bf16 gemm_epilogue linear attention_bf16
sanitizers 9400001
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact 6640001 2 4 $s exact & campaigns standard 6980001 2 4 $s standard & wait; }
finish
