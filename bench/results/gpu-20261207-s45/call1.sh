#!/usr/bin/env bash
# Session 45, device call 1 (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=570 bash bench/results/gpu-20261207-s45/call1.sh
# Correctness of this session's two compile-time changes, and the GEMM regression:
# 1. the GEMM row that fell 52x in session 44 (`4096^3 A B, B a view of w.t()`,
#    14.5 TFLOP/s, correct), alone, dumped (KILN_DUMP_DIR: a module holding the generic
#    kernel kiln_bench_gemm means the Hopper kernel refused the launch);
# 2. the GEMM's checked epilogue as a rolled loop (53215a7): the GEMM variants on the
#    device (4 shards), the catalog GEMMs at the large size, their cold compiles;
# 3. the attention softmax's rolled forms (KILN_ATTENTION_ROLLED_FORMS=1|2, with and
#    without the rotated schedule): the attention variants on the device against the
#    interpreter, the catalog entries at the large size (ragged, causal, GQA).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_variants_tests kiln_attention_bench kiln_gemm_bench
el "gemm: the w.t() row alone"
KILN_CACHE_DIR=$(mktemp -d) KILN_DUMP_DIR=$r/dump-flip timeout 60 build-gpu/bench/kiln_gemm_bench $r/gemm-flip.json "4096^3 A B, B a view" > $r/gemm-flip.log 2>&1
echo "rc $?"; cut -c1-200 $r/gemm-flip.log | tail -6
ls $r/dump-flip | head; grep -l "kiln_bench_gemm(" $r/dump-flip/* 2>/dev/null | sed 's/^/generic kernel in: /'
el "GEMM variants on the device"
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 150 build-gpu/tests/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.*' > $r/tv-gemm-$i.log 2>&1 &
done
wait
grep -hE "^\[  (PASSED|FAILED) |FAILED  \]" $r/tv-gemm-*.log
el "catalog GEMMs (large) and their cold compiles"
for e in gemm_bf16 gemm_epilogue linear; do timeout 60 $k run $e --target cuda --size large --seed 7 > $r/run-$e.log 2>&1; echo "$e rc $?"; done
cold_compiles gemm_bf16 gemm_epilogue linear
el "attention variants on the device: rolled forms"
for cfg in "0 1" "0 2" "1 1"; do
  set -- $cfg
  for i in 0 1 2 3; do
    KILN_ATTENTION_ROTATED=$1 KILN_ATTENTION_ROLLED_FORMS=$2 GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 150 build-gpu/tests/kiln_variants_tests \
      --gtest_filter='Attention/VariantDevice.TheHopperKernelIsWithin*' > $r/tv-att-rot$1-rolled$2-$i.log 2>&1 &
  done
  wait
  echo "rotated $1 rolled $2:"; grep -hE "^\[  (PASSED|FAILED) |FAILED  \]" $r/tv-att-rot$1-rolled$2-*.log
  [ $(left) -lt 200 ] && break
done
el "catalog attention entries with rolled forms"
for cfg in "0 2" "1 1"; do
  set -- $cfg
  for e in attention_bf16 attention_softcap; do
    size=large; [ $e = attention_softcap ] && size=medium
    KILN_ATTENTION_ROTATED=$1 KILN_ATTENTION_ROLLED_FORMS=$2 timeout 60 $k run $e --target cuda --size $size --seed 7 > $r/run-$e-rot$1-rolled$2.log 2>&1
    echo "$e rotated $1 rolled $2 rc $?"
  done
done
finish
