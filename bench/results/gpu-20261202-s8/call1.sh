#!/usr/bin/env bash
# Session 8, call 1: builds (HEAD, c224355), CUDA tests, softmax/warm-hit A/B of
# c224355 / HEAD with the old NaN canonicalisation / HEAD (issue 9).
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
el "builds"
( cmake -S . -B bg -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build bg -j 12 --target kiln_unit_tests kiln_cuda_bench kiln_gemm_bench kiln_tool >$r/build.log 2>&1; echo "head build rc $?"; grep -E "error" $r/build.log | head ) &
( tar xzf scratch-device/old.tar.gz -C /tmp && cd /tmp/old && cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/old-cfg.log 2>&1 && cmake --build b -j 6 --target kiln_cuda_bench >$r/old-build.log 2>&1; echo "old build rc $?" ) &
wait
el "HEAD with the old NaN canonicalisation"
cp bg/bench/kiln_cuda_bench /tmp/bench-new
cp src/targets/cuda/prelude.cpp /tmp/prelude-new.cpp && cp scratch-device/prelude-oldnan.cpp src/targets/cuda/prelude.cpp
cmake --build bg -j 16 --target kiln_cuda_bench >$r/build-oldnan.log 2>&1; echo "rc $?"; cp bg/bench/kiln_cuda_bench /tmp/bench-oldnan
cp /tmp/prelude-new.cpp src/targets/cuda/prelude.cpp; cmake --build bg -j 16 --target kiln_cuda_bench kiln_unit_tests >$r/build-back.log 2>&1; echo "rc $?"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
el "cuda tests"
timeout 240 bg/tests/kiln_unit_tests --gtest_filter='Cuda*' >$r/cuda-tests.log 2>&1; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head -20
grep -E "NarrowStores" $r/cuda-tests.log | head -3
old=/tmp/old/b/bench/kiln_cuda_bench; oldnan=/tmp/bench-oldnan; new=/tmp/bench-new
el "A/B kiln_cuda_bench, alternated"
for round in 1 2; do for which in old oldnan new; do
  b=${!which}; KILN_CACHE_DIR=/tmp/kc-$which timeout 100 $b $r/bench-$which-$round.json > $r/bench-$which-$round.log 2>&1
  echo "$which $round: $(grep -E 'fresh process|GEMM|softmax|RMSNorm' $r/bench-$which-$round.log | awk '{print $1,$2,$3,$4,$(NF-0)}' | tr '\n' ';')"
  grep -E "softmax" $r/bench-$which-$round.log
done; done | tee $r/ab-bench.txt
el "warm hit: 31 fresh processes x 2 rounds"
for round in 1 2; do for which in old new; do
  b=${!which}; d=/tmp/kcw-$which; rm -rf $d; KILN_CACHE_DIR=$d $b x --probe-cache >/dev/null
  for i in $(seq 31); do KILN_CACHE_DIR=$d $b x --probe-cache; echo; done | sort -n | awk -v w=$which -v r=$round 'NF{a[n++]=$1} END{print w, "round", r, "median", a[int(n/2)], "min", a[0]}'
done; done | tee $r/ab-warm.txt
el done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $r
