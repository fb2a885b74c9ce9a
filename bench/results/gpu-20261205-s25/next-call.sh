#!/usr/bin/env bash
# Written in session 25 (no device was lent) for the next session's first call; not yet
# run. It supersedes gpu-20261205-s24/next-call.sh (whose steps it keeps, after its own).
# From the repository root with .deps carried:
#   OUT=<dir> CALL_SECONDS=540 bash bench/results/gpu-20261205-s25/next-call.sh
# 1. Correctness first, of what session 25 built offline: the variant device tests of the
#    batched GEMMs, the GEMM storing C^T and the attention kernels at head dims that are
#    not whole 64-channel boxes (32, 40, 80, 96, 160; a query prologue over the padding;
#    dv != d) and with tiles loaded over the rows and keys (a mask matrix, a key padding
#    mask, a relative position bias on re-blocked keys) and with a sliding window's loop
#    starting at the window's first key block and with K stored transposed, then the catalog's attention entries on cuda (their small head dims now
#    take the padded kernel).
# 2. The GEMM rows of the new forms against cuBLAS (bmm against
#    cublasGemmStridedBatchedEx; C^T) beside the 4096^3 headline, and the attention
#    rows at d 96 and d 80 against cuDNN beside d 128.
# 3. Session 24's pending steps: every fast variant's device test (4 shards), the forms
#    rows, the shared-divisor A/B, then campaigns.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool kiln_rows_bench kiln_variants_tests kiln_attention_bench kiln_gemm_bench kiln_catalog_tests
el "device tests: session 25's variants"
timeout 150 build-gpu/tests/kiln_variants_tests \
  --gtest_filter='*VariantDevice.TheHopperKernelIsWithin*batched*:*VariantDevice.TheHopperKernelIsWithin*store_transposed*:*VariantDevice.TheHopperKernelIsWithin*fa_q128_k64*:*VariantDevice.TheHopperKernelIsWithin*fa_q64_k64*:*VariantDevice.TheHopperKernelIsWithin*fa_scale_q_bf16*:*VariantDevice.TheHopperKernelIsWithin*fa_norm_recip*:*VariantDevice.TheHopperKernelIsWithin*fa_lse*:*VariantDevice.TheHopperKernelIsWithin*fa_attn_mask*:*VariantDevice.TheHopperKernelIsWithin*fa_key_mask*:*VariantDevice.TheHopperKernelIsWithin*fa_rel_bias_causal*:*VariantDevice.TheHopperKernelIsWithin*fa_window*:*VariantDevice.TheHopperKernelIsWithin*fa_kT*' \
  > $r/tests-s25-variants.log 2>&1; echo "rc $?"; grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]' $r/tests-s25-variants.log | head -20
timeout 120 build-gpu/tests/kiln_catalog_tests --gtest_filter='*attention*:*Attention*' > $r/tests-s25-catalog.log 2>&1; echo "rc $?"
grep -E '^\[  (PASSED|FAILED) |^\[  FAILED  \] [A-Za-z]' $r/tests-s25-catalog.log | head -20
el "gemm: new forms"
timeout 120 build-gpu/bench/kiln_gemm_bench $r/gemm-s25.json "4096^3|bmm|C^T" > $r/gemm-s25.log 2>&1; echo "rc $?"; cat $r/gemm-s25.log
el "attention: padded head dims"
for p in standard fast; do
  timeout 90 build-gpu/bench/kiln_attention_bench $r/attention-s25-$p.json "bf16 4x32x4096x4096 d" $p > $r/attention-s25-$p.log 2>&1; echo "rc $?"
  cat $r/attention-s25-$p.log
done
timeout 150 python3 bench/attention_peers.py --out $r/attention-peers.json --dtypes bf16 > $r/attention-peers.log 2>&1; echo "rc $?"; tail -20 $r/attention-peers.log
el "device tests: every fast variant (4 shards)"
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 200 build-gpu/tests/kiln_variants_tests --gtest_filter='*VariantDevice.TheHopperKernelIsWithin*' \
    > $r/tests-variants-$i.log 2>&1 &
done
wait
for f in $r/tests-variants-*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ')"; grep -E '^\[  FAILED  \] [A-Za-z]' $f | head -8; done
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
