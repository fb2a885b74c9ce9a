#!/usr/bin/env bash
# Session 45's last try for a device, with about 120 s of call (carried binaries, as
# call-carried.sh): the w.t() GEMM row dumped, the GEMM variants on the device, the
# cold compiles of the catalog GEMMs and attention_bf16 with rolled forms 0 and 2.
#   OUT=<dir> CALL_SECONDS=120 bash bench/results/gpu-20261207-s45/call-short.sh
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
k=build-carry/kiln; export LD_LIBRARY_PATH=$PWD/build-carry:${LD_LIBRARY_PATH:-}
$k --version || { finish; exit 1; }
KILN_CACHE_DIR=$(mktemp -d) KILN_DUMP_DIR=$r/dump-flip timeout 30 build-carry/kiln_gemm_bench $r/gemm-flip.json "4096^3 A B, B a view" > $r/gemm-flip.log 2>&1
echo "rc $?"; cut -c1-200 $r/gemm-flip.log | tail -4
ls $r/dump-flip | head; grep -l "kiln_bench_gemm(" $r/dump-flip/* 2>/dev/null | sed 's/^/generic kernel in: /'
el "GEMM variants"
for i in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 50 build-carry/kiln_variants_tests --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*' > $r/tv-gemm-$i.log 2>&1 &
done
wait
grep -hE "^\[  (PASSED|FAILED) |FAILED  \]" $r/tv-gemm-*.log
el "cold compiles"
for e in gemm_bf16 gemm_epilogue linear; do KILN_CACHE_DIR=$(mktemp -d) timeout 20 $k bench $e --target cuda --reps 3 > $r/bench-cold-$e.log 2>&1; echo "$e rc $?"; done
for f in 0 2; do KILN_ATTENTION_ROLLED_FORMS=$f KILN_CACHE_DIR=$(mktemp -d) timeout 25 $k bench attention_bf16 --target cuda --reps 3 > $r/bench-cold-attention_bf16-rolled$f.log 2>&1; echo "attention rolled $f rc $?"; done
for f in $r/bench-cold-*.log; do grep -v "^kiln bench" $f | head -6; done
finish
