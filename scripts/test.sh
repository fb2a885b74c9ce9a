#!/usr/bin/env bash
# Builds kiln and runs its test suite (what CI runs). Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build=${KILN_BUILD_DIR:-build}
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure --timeout 600 "$@"
