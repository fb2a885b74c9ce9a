#!/usr/bin/env bash
# Session 8, call 2: HEAD (the NaN minimum where registers allow, warm hit reading
# cubin+log only) against c224355: CUDA tests, kiln_cuda_bench and warm hit A/B; GEMM half-width.
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
el "builds"
( cmake -S . -B bg -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build bg -j 12 --target kiln_unit_tests kiln_cuda_bench kiln_gemm_bench kiln_tool >$r/build.log 2>&1; echo "head build rc $?"; grep -E "error" $r/build.log | head ) &
( if [[ ! -x /tmp/old/b/bench/kiln_cuda_bench ]]; then tar xzf scratch-device/old.tar.gz -C /tmp && cd /tmp/old && cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/old-cfg.log 2>&1 && cmake --build b -j 6 --target kiln_cuda_bench >$r/old-build.log 2>&1; fi; echo "old build rc $?" ) &
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
el "cuda tests"
rm -rf /tmp/kc-tests; KILN_CACHE_DIR=/tmp/kc-tests timeout 240 bg/tests/kiln_unit_tests --gtest_filter='Cuda*' >$r/cuda-tests.log 2>&1; grep -E '^\[  (PASSED|FAILED)|FAILED  \]' $r/cuda-tests.log | head -20
old=/tmp/old/b/bench/kiln_cuda_bench; new=bg/bench/kiln_cuda_bench
el "A/B kiln_cuda_bench, alternated"
for round in 1 2; do for which in old new; do
  b=${!which}; rm -rf /tmp/kc-$which; KILN_CACHE_DIR=/tmp/kc-$which timeout 100 $b $r/bench-$which-$round.json > $r/bench-$which-$round.log 2>&1
  echo "$which $round: $(grep -E 'fresh process|GEMM|softmax|RMSNorm' $r/bench-$which-$round.log | awk '{print $1,$2,$3,$4,$(NF-9),$(NF-8)}' | tr '\n' ';')"
done; done | tee $r/ab-bench.txt
el "warm hit: 31 fresh processes x 3 rounds"
for round in 1 2 3; do for which in old new; do
  b=${!which}; d=/tmp/kcw-$which; rm -rf $d; KILN_CACHE_DIR=$d $b x --probe-cache >/dev/null
  for i in $(seq 31); do KILN_CACHE_DIR=$d $b x --probe-cache; echo; done | sort -n | awk -v w=$which -v r=$round 'NF{a[n++]=$1} END{print w, "round", r, "median", a[int(n/2)], "min", a[0]}'
done; done | tee $r/ab-warm.txt
el "GEMM half width A/B"
for hw in 0 1 0 1; do for row in 128x14336 16x4096x4096 64x8192; do
  KILN_GEMM_HALF_WIDTH=$hw timeout 60 bg/bench/kiln_gemm_bench $r/g.json $row 2>&1 | grep -E "^[0-9]" | sed "s/^/hw=$hw /"
done; done | tee $r/half-width.txt
el done
tar czf $OUT/r.tgz -C $OUT r && rm -rf $r
