#!/usr/bin/env bash
# Configures and builds kiln with Ninja into ./build (or $KILN_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${KILN_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${KILN_BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
