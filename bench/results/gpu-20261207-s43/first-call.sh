#!/usr/bin/env bash
# Session 43's first device call: session 42's plan (its next-call.sh) and the cold compile of the GEMM and attention entries:
#   OUT=<dir> CALL_SECONDS=575 EXACT=6440001 STANDARD=6860001 bash bench/results/gpu-20261207-s43/first-call.sh
# 1. the cuda fuzz regressions and PTX hazard scans with bools in shared memory behind
#    volatile pointers (program 6405128's workaround: its replay,
#    CudaFuzzRegression.Seed6405128...) and the bool-moves test on the device
#    (CudaPtxasBoolBytes.*), both never run on a device;
# 2. the row kernels, bf16 at 8192, 4000 and 5123 columns, on the new defaults (the NaN
#    minimum beside loads ahead and the narrow index compares): precision standard (kiln
#    and copy) and fast (with the peers), the figures the README quotes;
#    and in precision standard an A/B of the narrow index compares on the cross-entropy
#    (offline at 8192 columns they leave it a 4-byte spill, kept within the layout
#    tolerance, where without them it has none; the A/B that made them the default ran
#    in precision fast); and the cross-entropy in standard with KILN_CUDA_SHARED_DIVISOR=1
#    (offline, with the new defaults, its ladder ends at 48 registers and no spill, where
#    the default ends at 64 with a 4-byte spill; within noise on an H100 in session 27,
#    before the knobs);
# 3. the interp-vs-cuda campaigns (issue 15) for the rest of the call; later calls:
#    gpu-20261206-s36/campaign-call.sh with both seeds + 40000 a call.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_unit_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
regressions
el "bool moves on the device"
timeout 60 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaPtxasBoolBytes.*' > $r/t-bool-bytes.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED|SKIPPED) |FAILED  \]" $r/t-bool-bytes.log | head -6
rows standard standard 70 --no-peers
rows fast fast 130 --budget 75
ab ce-narrow KILN_CUDA_NARROW_INDEX_COMPARES "0 1" cross_entropy 8192,4000,5123 bf16
el "cold compiles (an empty cache each)"
for e in gemm_bf16 gemm_epilogue linear attention_bf16; do
  KILN_CACHE_DIR=$(mktemp -d) timeout 60 $k bench $e --target cuda --reps 3 > $r/bench-cold-$e.log 2>&1; echo "$e rc $?"
done
cat $r/bench-cold-*.log | grep -v "^kiln bench" | head -30
ab ce-shared-divisor KILN_CUDA_SHARED_DIVISOR "0 1" cross_entropy 8192,4000,5123 bf16
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
