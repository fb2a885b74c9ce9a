#!/usr/bin/env bash
# Builds kiln and runs its main job: the whole operator catalog, verified against
# the f64 references, on the best available target (cuda, else cpu, else interp).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build=${KILN_BUILD_DIR:-build}
exec "$build/tools/kiln" run --all --target "${KILN_TARGET:-auto}" "$@"
