# Shared preamble of session 19's device calls.
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
finish() { el done; tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$r"; }
