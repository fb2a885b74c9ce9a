#!/usr/bin/env bash
# Session 38's first device call:
#   OUT=<dir> CALL_SECONDS=580 bash bench/results/gpu-20261206-s38/call1.sh
# (In this order, the most wanted first: a call may be cut short by the session's device time.)
# 1. Aligned slots (passes/cuda_layout.h; KILN_CUDA_ALIGNED_SLOTS, off by default): the
#    seven bf16 row kernels at 26000 x 5123 (rows at every 2-byte shift of a 16-byte
#    boundary) with it off (the dealt rows of the defaults) and on, each output checked
#    against its f64 reference before timing (common.sh: ab);
# 2. the row entries of the catalog on cuda with it on, exact and standard, small and
#    medium sizes (37, 100, 1000, 4000 and 5123 columns), against their references; the
#    whole catalog compared with the interpreter, bit for bit, with it on;
# 3. the cuda fuzz regressions and PTX hazard scans, a short exact campaign with it on,
#    and the default exact and standard campaigns for what is left (EXACT, STANDARD).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
K=softmax,layernorm,rmsnorm,log_softmax,cross_entropy,residual_layernorm,swiglu
ab aligned KILN_CUDA_ALIGNED_SLOTS "0 1" $K 5123 bf16
grep -h "failed their check" $r/ab-*.log
el "row entries of the catalog with aligned slots"
for e in layernorm_affine rmsnorm_weighted log_softmax cross_entropy residual_layernorm_bf16 swiglu; do for p in exact standard; do for z in small medium; do
  KILN_CUDA_ALIGNED_SLOTS=1 timeout 60 $k run $e --target cuda --precision $p --size $z >> $r/catalog-aligned.log 2>&1; echo "$e $p $z: rc $?"
done; done; done
el "catalog compared with the interpreter, aligned slots on"
KILN_CUDA_ALIGNED_SLOTS=1 timeout 150 $k compare --all --targets interp,cuda --precision exact --seed 38 > $r/compare-aligned.log 2>&1; echo "rc $?"; tail -3 $r/compare-aligned.log
regressions
el "exact campaign with aligned slots on"
KILN_CUDA_ALIGNED_SLOTS=1 campaigns exact 9380001 1 8 45 aligned-exact
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact ${EXACT:-6000001} 2 4 $s exact & campaigns standard ${STANDARD:-6420001} 2 4 $s standard & wait; }
finish
