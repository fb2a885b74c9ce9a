#!/usr/bin/env bash
# The next session's first device call (written 2026-12-03, not yet run). From the
# repository root with OUT set (device tool; carry .deps):
#   bash bench/results/gpu-20261203-s17/next-call.sh
# 1. The final key-block rule on the device: finite-start programs re-blocked
#    (AttentionKeyBlockDevice.EveryKeyBlockMatchesF64 now writes -1e30; calls 3 and 6 ran
#    the same index arithmetic from -inf), left padding against the interpreter.
# 2. The prepared -inf re-blocking (1c78020, KILN_ATTENTION_REBLOCK_MINUS_INFINITY=1): the
#    same tests with it on (left padding: NaN exactly where the program's is), sanitizers.
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target kiln_tool kiln_catalog_tests kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"
t=build-gpu/tests/kiln_catalog_tests
for on in 0 1; do
  KILN_ATTENTION_REBLOCK_MINUS_INFINITY=$on timeout 150 $t --gtest_filter='AttentionKeyBlock*' > $r/tests-$on.log 2>&1; echo "reblock -inf $on: rc $?"
  grep -E "^\[  (PASSED|FAILED)|key block \]|^\[  FAILED" $r/tests-$on.log
done
KILN_ATTENTION_REBLOCK_MINUS_INFINITY=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 $t --gtest_filter='AttentionKeyBlockDevice.LeftPadding*' > $r/racecheck.log 2>&1; echo "racecheck rc $?"; tail -2 $r/racecheck.log
KILN_ATTENTION_REBLOCK_MINUS_INFINITY=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $t --gtest_filter='AttentionKeyBlockDevice.LeftPadding*' > $r/memcheck.log 2>&1; echo "memcheck rc $?"; tail -2 $r/memcheck.log
tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$r"
