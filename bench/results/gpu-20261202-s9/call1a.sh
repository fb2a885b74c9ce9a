#!/usr/bin/env bash
# Session 9, call 1a: build HEAD (+ c224355 for the warm-hit A/B), CUDA tests, catalog on cuda.
source bench/results/gpu-20261202-s9/common.sh
el "builds"
( cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 12 --target kiln_unit_tests kiln_cuda_bench kiln_tool kiln_attention_bench >$r/build.log 2>&1; echo "head build rc $?"; grep -E "error" $r/build.log | head ) &
( if [[ ! -x /tmp/old/b/bench/kiln_cuda_bench ]]; then mkdir -p /tmp/old && tar xzf scratch-device/old.tar.gz -C /tmp/old && cd /tmp/old && cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/old-cfg.log 2>&1 && cmake --build b -j 4 --target kiln_cuda_bench >$r/old-build.log 2>&1; fi; echo "old build rc $?" ) &
wait
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
el "cuda tests || catalog on cuda"
( rm -rf /tmp/kc-tests; KILN_CACHE_DIR=/tmp/kc-tests timeout 330 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' >$r/cuda-tests.log 2>&1; echo "tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head -20 ) &
( k=build-gpu/tools/kiln; export KILN_CACHE_DIR=/tmp/kc-cat
  timeout 150 $k compare --all --targets interp,cuda --precision exact --seed 7 >$r/compare-exact.log 2>&1; echo "compare exact rc $?: $(tail -1 $r/compare-exact.log)"
  timeout 90 $k run --all --target cuda --seed 7 >$r/run-standard.log 2>&1; echo "run standard rc $?: $(tail -1 $r/run-standard.log)"
  timeout 80 $k run --all --target cuda --precision exact --seed 7 >$r/run-exact.log 2>&1; echo "run exact rc $?: $(tail -1 $r/run-exact.log)" ) &
wait
finish
