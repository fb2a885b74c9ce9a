#!/usr/bin/env bash
# Session 10, call 1: build; the Cuda* unit tests (with the new CudaTune ones) while the
# tuned GEMM bench compiles its candidates into the cache; then the tuned GEMM table
# timed alone (retune: every candidate timed again, warm compile cache); then ncu on
# the attention d128 kernel (fast and standard) and on the 3000x5000x7000 GEMM.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_tool kiln_gemm_bench kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
el "Cuda* tests || gemm tune (compiles)"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 280 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head ) &
( KILN_CACHE_DIR=/tmp/kg timeout 280 build-gpu/bench/kiln_gemm_bench /tmp/warm.json "" tune > $r/gemm-warm.log 2>&1; echo "warm rc $?" ) &
wait
el "gemm tuned, timed alone"
KILN_CACHE_DIR=/tmp/kg timeout 200 build-gpu/bench/kiln_gemm_bench $r/gemm-tuned.json "" retune > $r/gemm-tuned.log 2>$r/gemm-tuned.err; echo "rc $?"; cat $r/gemm-tuned.log
el "kiln tune gemm_bf16 --size large (twice)"
KILN_CACHE_DIR=/tmp/kg timeout 100 build-gpu/tools/kiln tune gemm_bf16 --target cuda --size large --seed 3 > $r/tune-cli-1.log 2>&1; echo "rc $?"
KILN_CACHE_DIR=/tmp/kg timeout 60 build-gpu/tools/kiln tune gemm_bf16 --target cuda --size large --seed 4 > $r/tune-cli-2.log 2>&1; echo "rc $?"; grep -c "kept choice, nothing timed" $r/tune-cli-2.log
el "ncu attention"
a=build-gpu/bench/kiln_attention_bench
for p in fast standard; do
  KILN_CACHE_DIR=/tmp/ka timeout 150 ncu --kernel-name regex:_fa$ --launch-skip 3 --launch-count 1 --set full -o $r/ncu-att-$p $a /tmp/x.json "bf16 4x32x4096x4096 d128 kv32 full" $p > $r/ncu-att-$p.log 2>&1; echo "ncu $p rc $?"
  ncu --import $r/ncu-att-$p.ncu-rep --page details > $r/ncu-att-$p.txt 2>&1
done
el "ncu gemm"
KILN_CACHE_DIR=/tmp/kg timeout 120 ncu --kernel-name regex:bench_gemm --launch-skip 2 --launch-count 1 --set full -o $r/ncu-gemm-3000 build-gpu/bench/kiln_gemm_bench /tmp/y.json 3000x5000x7000 > $r/ncu-gemm.log 2>&1; echo "ncu gemm rc $?"
ncu --import $r/ncu-gemm-3000.ncu-rep --page details > $r/ncu-gemm-3000.txt 2>&1
rm -f $r/*.ncu-rep
finish
