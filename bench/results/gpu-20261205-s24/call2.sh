#!/usr/bin/env bash
# Session 24's second device call (the first ran ../gpu-20261205-s23/next-call.sh and
# was stopped at its 600 s limit before packing its logs; what came back is in this
# folder's README). Run from the repository root with .deps carried:
#   OUT=<dir> CALL_SECONDS=510 bash bench/results/gpu-20261205-s24/call2.sh
# 1. Correctness of what is new since: the fast variants on the device (sharded four
#    ways: one process took over 150 s), 2^y as exp2 against f64, the row compile tests.
# 2. The spill ladder's measured rule (kernel_cache.cpp) A/B at 5123 columns, where it
#    changes what the kernel keeps.
# 3. GEMM rows with A stored [K, M] (new this session) against cuBLAS, beside the
#    plain and X W^T rows of the same shapes.
# 4. The rest of the call: an exact campaign from 5320001 (never started in call 1).
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_unit_tests kiln_variants_tests kiln_catalog_tests kiln_gemm_bench
el "device tests: variants (4 shards), 2^y, rows, fast precision"
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 150 build-gpu/tests/kiln_variants_tests --gtest_filter='*VariantDevice.TheHopperKernelIsWithin*' \
    > $r/tests-variants-$i.log 2>&1 &
done
timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaPowerOfTwo*:CudaRows*:CudaGemmEpilogueDevice.*' > $r/tests-unit.log 2>&1 &
timeout 150 build-gpu/tests/kiln_catalog_tests --gtest_filter='*FastPrecisionDevice*:AttentionKeyBlockDevice.*' > $r/tests-catalog.log 2>&1 &
wait
for f in $r/tests-*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ')"; grep -E '^\[  FAILED  \] [A-Za-z]' $f | head -8; done
el "rows A/B: KILN_CUDA_SPLIT_FIRST at 5123 columns"
for cfg in 0 1 0 1; do
  KILN_CUDA_SPLIT_FIRST=$cfg timeout 60 python3 bench/rows_bench.py --lib build-gpu/bench/libkiln_rows_bench.so --no-peers --widths 5123 \
    --out $r/ab-split-$cfg-$SECONDS.json > $r/ab-split-$cfg-$SECONDS.log 2>&1 || echo "A/B config $cfg: exit $?"
done
python3 bench/rows_ab.py $(for f in $r/ab-split-*.json; do c=${f#$r/ab-split-}; echo "KILN_CUDA_SPLIT_FIRST=${c%%-*}=$f"; done) > $r/ab-split.md; cat $r/ab-split.md
el "GEMM: A^T B against cuBLAS"
timeout 120 build-gpu/bench/kiln_gemm_bench $r/gemm.json "A^T B|4096^3 X W^T (W [N, K])|3000x5000x7000|4096x14336x4096" > $r/gemm.log 2>&1; echo "rc $?"; cat $r/gemm.log
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5320001 2 8 $s exact
finish
