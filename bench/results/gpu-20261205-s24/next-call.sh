#!/usr/bin/env bash
# Written at the end of session 24 (its device time spent) for the next session's first
# call; not yet run. From the repository root with .deps carried:
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s24/next-call.sh
# 1. The GEMM variants' device tests that call 3's shard timeout cut (every fast
#    variant again, four shards of 200 s: one shard took about 140 s in call 2).
# 2. The attention benchmark's headline rows (bf16 d128 at 4096 keys, full and causal) in
#    standard and fast precision: the kernel's speed after session 24's changes to its
#    matcher, epilogue and producer (the catalog's program takes the same code path); and
#    its "forms" rows: the forms session 24 brought onto the kernel (exp2, the reciprocal
#    rescale, Q scaled first, a log-sum-exp stored, the sequence-major layout, ALiBi),
#    each checked against the plain form's output and timed beside it.
# 3. Session 22's shared-divisor A/B (cut off in session 24's call 1).
# 4. The rest: exact and standard interp-vs-cuda campaigns.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_variants_tests kiln_attention_bench
el "device tests: every fast variant (4 shards)"
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 200 build-gpu/tests/kiln_variants_tests --gtest_filter='*VariantDevice.TheHopperKernelIsWithin*' \
    > $r/tests-variants-$i.log 2>&1 &
done
wait
for f in $r/tests-*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ')"; grep -E '^\[  FAILED  \] [A-Za-z]' $f | head -8; done
el "attention: headline rows"
for p in standard fast; do timeout 90 build-gpu/bench/kiln_attention_bench $r/attention-$p.json "bf16 4x32x4096x4096 d128" $p > $r/attention-$p.log 2>&1; cat $r/attention-$p.log; done
for p in standard fast; do timeout 90 build-gpu/bench/kiln_attention_bench $r/forms-$p.json forms $p > $r/forms-$p.log 2>&1; echo "rc $?"; cat $r/forms-$p.log; done
el "rows A/B: KILN_CUDA_SHARED_DIVISOR"
for cfg in 0 1 0 1; do
  KILN_CUDA_SHARED_DIVISOR=$cfg timeout 60 python3 bench/rows_bench.py --lib build-gpu/bench/libkiln_rows_bench.so --no-peers --kernels softmax,cross_entropy \
    --widths 8192,4000,1000 --out $r/ab-divisor-$cfg-$SECONDS.json > $r/ab-divisor-$cfg-$SECONDS.log 2>&1 || echo "A/B config $cfg: exit $?"
done
python3 bench/rows_ab.py $(for f in $r/ab-divisor-*.json; do c=${f#$r/ab-divisor-}; echo "KILN_CUDA_SHARED_DIVISOR=${c%%-*}=$f"; done) > $r/ab-divisor.md; cat $r/ab-divisor.md
s=$(( ($(left) - 30) / 2 )); [ $s -gt 30 ] && campaigns exact 5360001 2 8 $s exact
s=$(( $(left) - 20 )); [ $s -gt 30 ] && campaigns standard 4760001 2 8 $s standard
finish
