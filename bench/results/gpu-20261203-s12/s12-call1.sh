#!/usr/bin/env bash
# Session 12, call 1. Tree A: this tree (73f9661: the GEMM epilogue without checks inside
# the bounds, kmax as selects, no spill recompiles of GEMM modules); tree B: A with
# epilogue.patch reversed (35f21c7's kernels). Build both || then tests (Cuda*, catalog on
# cuda exact + compare) || precompile the benches; then timed, alternated A B A B: the
# GEMM rows; the split-K flag from the disk cache (decode, two processes, one cache);
# cold compile of gemm_bf16 / gemm_epilogue.
source scratch-device/common.sh
mkdir -p /tmp/b && tar cf - --exclude=./build-gpu --exclude=./.deps . | tar xf - -C /tmp/b && ln -sfn "$PWD/.deps" /tmp/b/.deps
( cd /tmp/b && patch -s -R -p1 < scratch-device/epilogue.patch && echo "B: reversed" )
el "build A || B"
( cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfgA.log 2>&1 && cmake --build build-gpu -j 12 --target kiln_unit_tests kiln_catalog_tests kiln_tool kiln_gemm_bench >$r/buildA.log 2>&1; echo "A rc $?"; grep -E "error:" $r/buildA.log | head ) &
( cd /tmp/b && cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfgB.log 2>&1 && cmake --build build-gpu -j 4 --target kiln_gemm_bench >$r/buildB.log 2>&1; echo "B rc $?" ) &
wait
k=build-gpu/tools/kiln; gA=build-gpu/bench/kiln_gemm_bench; gB=/tmp/b/build-gpu/bench/kiln_gemm_bench
rows="2048^3|4096^3|8192^3|4096x14336x4096|128x14336|relu|X W^T|3000x5000x7000"
el "tests || catalog || precompile"
( KILN_CACHE_DIR=/tmp/kc-tests timeout 250 build-gpu/tests/kiln_unit_tests --gtest_filter='Cuda*' > $r/cuda-tests.log 2>&1; echo "unit tests rc $?"; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head; grep -c '^\[       OK' $r/cuda-tests.log ) &
( for p in exact standard; do KILN_CACHE_DIR=/tmp/kcat timeout 150 $k run --all --target cuda --precision $p --seed 7 > $r/run-$p.log 2>&1; echo "run --all cuda $p: rc $? $(tail -1 $r/run-$p.log)"; done
  KILN_CACHE_DIR=/tmp/kcat timeout 150 $k compare --all --targets interp,cuda --precision exact --seed 7 > $r/compare-exact.log 2>&1; echo "compare exact: rc $? $(tail -1 $r/compare-exact.log)" ) &
( KILN_CACHE_DIR=/tmp/kA timeout 200 $gA /tmp/a.json "$rows" > /dev/null 2>&1 &
  KILN_CACHE_DIR=/tmp/kB timeout 200 $gB /tmp/b.json "$rows" > /dev/null 2>&1 &
  wait; echo precompiled ) &
wait
el "gemm timed A B A B"
for t in A B A B; do
  if [ $t = A ]; then g=$gA; else g=$gB; fi
  echo "== tree $t"; KILN_CACHE_DIR=/tmp/k$t timeout 80 $g $r/gemm$t.json "$rows" 2>&1 | tee -a $r/gemm$t.log
done
el "split-K from the disk cache (tree A)"
for i in 1 2; do echo "process $i"; KILN_CACHE_DIR=/tmp/ks timeout 60 $gA $r/decode$i.json "decode|16x1024x8192" 2>&1; KILN_GEMM_RETILE=0 KILN_CACHE_DIR=/tmp/ks timeout 60 $gA $r/decode-r0-$i.json "decode|16x1024x8192" 2>&1; done
el "cold compile"
for e in gemm_bf16 gemm_epilogue linear; do for i in 1 2 3; do rm -rf /tmp/kcold; TIMEFORMAT="$e cold source --ptx: %R s"; { time KILN_CACHE_DIR=/tmp/kcold $k source $e --target cuda --ptx > /dev/null 2>&1; } 2>&1; done; done
finish
