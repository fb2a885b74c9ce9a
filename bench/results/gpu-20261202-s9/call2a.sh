#!/usr/bin/env bash
# Session 9, call 2a: build; the two CUDA tests that failed in call 1 (alone, with and
# without the grid loop's unroll pragma); the fast-precision and attention tests; the
# attention entries on cuda (standard, fast, exact vs interp); the attention bench
# kernels compiled into one cache (6 processes at once), so that 2b only times.
source bench/results/gpu-20261202-s9/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_unit_tests kiln_catalog_tests kiln_tool kiln_attention_bench kiln_cuda_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error" $r/build.log | head
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
el "tests || attention entries || bench precompile"
( u=build-gpu/tests/kiln_unit_tests
  for knob in 0 1; do
    for t in CudaCompile.CatalogI8GemmUsesInt8TensorCoresInBothModes CudaRows.ColumnSumsReduceInRegisters; do
      rm -rf /tmp/kc-one; if [[ $knob == 1 ]]; then export KILN_EXPERIMENT_NO_UNROLL1=1; else unset KILN_EXPERIMENT_NO_UNROLL1; fi
      KILN_CACHE_DIR=/tmp/kc-one timeout 60 $u --gtest_filter=$t > $r/one-$knob-$t.log 2>&1; echo "no-unroll1=$knob $t rc $?: $(grep -E 'registers: |in registers: ' $r/one-$knob-$t.log | head -2 | cut -c1-160 | tr '\n' '|')"
    done
  done; unset KILN_EXPERIMENT_NO_UNROLL1
  rm -rf /tmp/kc-t; KILN_CACHE_DIR=/tmp/kc-t timeout 200 build-gpu/tests/kiln_catalog_tests --gtest_filter='*Fast*:*ttention*' > $r/catalog-tests.log 2>&1; echo "catalog tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]|fast exp|fast attention' $r/catalog-tests.log | head
  KILN_CACHE_DIR=/tmp/kc-t timeout 120 $u --gtest_filter='*ttention*:CudaDevice.*' > $r/unit-att.log 2>&1; echo "unit attention/device rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/unit-att.log | head
) > $r/tests.txt 2>&1 &
( k=build-gpu/tools/kiln; export KILN_CACHE_DIR=/tmp/kc-cat
  for e in attention_bf16 attention_softcap; do for p in standard fast; do for size in small medium large; do
    [[ $e == attention_softcap && $size == large ]] && continue
    timeout 120 $k run $e --target cuda --size $size --precision $p --seed 7 >> $r/att-entries.log 2>&1 || echo "FAILED: $e $size $p"
  done; done
  timeout 120 $k compare $e --targets interp,cuda --precision exact --seed 7 >> $r/att-entries.log 2>&1 || echo "FAILED: compare $e"; done
  echo "attention entries: $(grep -cE ' ok$' $r/att-entries.log) ok, $(grep -cE 'FAIL' $r/att-entries.log) fail lines"
  $k plan attention_bf16 --target cuda --size large --precision fast > $r/att-plan-fast.log 2>&1; grep -E "registers \(attention|lowering" $r/att-plan-fast.log | cut -c1-300
) > $r/entries.txt 2>&1 &
( a=build-gpu/bench/kiln_attention_bench; export KILN_CACHE_DIR=/tmp/ka
  KILN_ATTENTION_PINGPONG=0 KILN_CACHE_DIR=/tmp/ka0 timeout 300 $a /tmp/pc1.json bf16 standard > /dev/null 2>&1 &
  KILN_ATTENTION_PINGPONG=0 KILN_CACHE_DIR=/tmp/ka0 timeout 300 $a /tmp/pc2.json bf16 fast > /dev/null 2>&1 &
  timeout 300 $a /tmp/pc3.json bf16 standard > /dev/null 2>&1 &
  timeout 300 $a /tmp/pc4.json bf16 fast > /dev/null 2>&1 &
  timeout 300 $a /tmp/pc5.json f16 standard > /dev/null 2>&1 &
  timeout 300 $a /tmp/pc6.json f16 fast > /dev/null 2>&1 &
  wait; echo "precompiled" ) > $r/precompile.txt 2>&1 &
wait
cat $r/tests.txt $r/entries.txt $r/precompile.txt
finish
