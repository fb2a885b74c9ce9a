#!/usr/bin/env bash
# Session 17, call 1: the lazily compiled generic kernel (a08455f) and NVRTC --minimal on a
# real driver (CUDA unit tests, attention device tests), the FlashAttention kernel's cold
# compile (NVRTC alone, option by option; the bench's first launch), sanitizers on the
# deferred output.
source scratch-device/common.sh
el build
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_attention_bench kiln_unit_tests kiln_catalog_tests >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
kiln=build-gpu/tools/kiln; a=build-gpu/bench/kiln_attention_bench
el "nvrtc timing"
g++ -O1 -I/usr/local/cuda/include scratch-device/nvrtc_time.cpp -o /tmp/nvt -L/usr/local/cuda/lib64 -lnvrtc -Wl,-rpath,/usr/local/cuda/lib64 && nproc &&
for e in attention_bf16 attention_softcap; do
  $kiln source $e --target cuda --size large --precision fast | sed -n '2,$p' > /tmp/$e.cu
  for o in "" "--minimal" "--split-compile=0" "--minimal --split-compile=0" "--minimal --split-compile=4"; do
    echo "$e [$o]: $(/tmp/nvt /tmp/$e.cu $o 2>&1 | grep -E '^rc' | tr '\n' ' ')"
  done
done | tee $r/nvrtc-time.log
el "bench first launches (empty cache)"
KILN_CACHE_DIR=/tmp/kc-cold timeout 60 $a $r/cold.json "bf16 4x32x4096x4096 d128 kv32 full" fast 2>&1 | tee $r/cold.log
KILN_CACHE_DIR=/tmp/kc-cold2 timeout 60 $a $r/cold2.json "bf16 4x32x4096x4096 d64" fast 2>&1 | tee -a $r/cold.log
el "unit Cuda*"
timeout 150 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/unit-cuda.log 2>&1; echo "unit rc $?"; grep -E "^\[  (PASSED|FAILED)|^\[  FAILED" $r/unit-cuda.log | head
el "catalog device tests"
timeout 120 build-gpu/tests/kiln_catalog_tests --gtest_filter='CudaFastPrecisionDevice.*:CudaAttention*' > $r/catalog-tests.log 2>&1; echo "catalog tests rc $?"; grep -E "^\[  (PASSED|FAILED)|^\[  FAILED" $r/catalog-tests.log
el "sanitizers, deferred output"
for e in attention_bf16 attention_softcap; do
  KILN_ATTENTION_DEFER_OUTPUT=1 KILN_CACHE_DIR=/tmp/kc-d1 timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $kiln run $e --target cuda --size medium --seed 7 --precision fast > $r/racecheck-$e.log 2>&1; echo "racecheck $e rc $?"; tail -2 $r/racecheck-$e.log
  KILN_ATTENTION_DEFER_OUTPUT=1 KILN_CACHE_DIR=/tmp/kc-d1 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $kiln run $e --target cuda --size medium --seed 7 > $r/memcheck-$e.log 2>&1; echo "memcheck $e rc $?"; tail -2 $r/memcheck-$e.log
done
finish
