#!/usr/bin/env bash
# Configures and builds kiln with Ninja into ./build (or $KILN_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${KILN_BUILD_DIR:-build}
python=()
# The Python package and its tests build with the environment py-deps.sh keeps
# (nanobind, numpy, torch from PyPI); KILN_PYTHON=0 builds without them.
if [[ ${KILN_PYTHON:-1} != 0 ]]; then
    python=(-DPython_EXECUTABLE="$(scripts/py-deps.sh)" -DKILN_BUILD_PYTHON=ON)
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${KILN_BUILD_TYPE:-RelWithDebInfo} "${python[@]}" "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
