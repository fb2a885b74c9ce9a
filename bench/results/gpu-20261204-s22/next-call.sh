#!/usr/bin/env bash
# Written at the end of session 22 for the next session's first device call (not yet run).
# 1. KILN_CUDA_SHARED_DIVISOR (kc::fdiv_shared, off by default): the catalog bit-exact
#    against interp with it on, a short exact campaign with it on, then the A/B that
#    decides its default: softmax and cross_entropy (the row kernels that divide by a
#    row's sum) at 8192, 4000 and 1000 columns, bf16 and f32, each configuration twice in
#    alternation (later processes measured up to 13% lower in session 6's A/Bs).
# 2. The rest of the call: exact campaigns, 2 processes x 8 jobs (common.sh), on seeds carrying on
#    from this session's (the generic kernels are still emitted as in a605f61 with the
#    knob off, so these add to the 58,624 exact and 39,664 standard programs).
source bench/results/gpu-20261204-s22/common.sh
build kiln_tool kiln_rows_bench
el "catalog exact with the shared divisor"
KILN_CUDA_SHARED_DIVISOR=1 timeout 150 $k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-shared-divisor.log 2>&1; echo "rc $?"; tail -2 $r/compare-shared-divisor.log
el "exact campaign with the shared divisor, 60 s"
KILN_CUDA_SHARED_DIVISOR=1 $k fuzz --count 1000000 --seed 5300001 --targets interp,cuda --precision exact --jobs 16 --batch 16 --seconds 60 > $r/fuzz-shared-divisor-5300001.log 2>&1
grep -E "time budget|^[0-9]+ programs:|^program [0-9]+" $r/fuzz-shared-divisor-5300001.log
el "rows A/B"
OUT=$r/ab KILN_BUILD_DIR=build-gpu ROWS_AB="KILN_CUDA_SHARED_DIVISOR=0|KILN_CUDA_SHARED_DIVISOR=1|KILN_CUDA_SHARED_DIVISOR=0|KILN_CUDA_SHARED_DIVISOR=1" \
  ROWS_ARGS="--kernels softmax,cross_entropy --widths 8192,4000,1000" ROWS_STOP=120 timeout 300 bash scripts/gpu-rows.sh > $r/ab.log 2>&1; echo "rc $?"; cat $r/ab/ab.md 2>/dev/null | head -30
campaigns exact 5320001 2 8 $(( $(left) - 20 )) exact
finish
