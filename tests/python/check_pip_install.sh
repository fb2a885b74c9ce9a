#!/usr/bin/env bash
# `pip install .` from the repository root, into a temporary directory, then the
# package is imported from there and runs a catalog kernel on NumPy. Slow (it
# builds kiln in Release): the suite runs it with -DKILN_TEST_PIP_INSTALL=ON.
#   check_pip_install.sh PYTHON SOURCE_DIR
set -euo pipefail
py=$1
src=$2
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
# No build isolation: nanobind and scikit-build-core are those of this Python (py-deps.sh).
"$py" -m pip install --quiet --no-build-isolation --target "$site" "$src"
cd "$site"
PYTHONPATH="$site" "$py" - <<'PY'
import numpy as np
import kiln
assert kiln.__file__.startswith(__import__("os").getcwd()), kiln.__file__
names = [n for n, _ in kiln.list()]
assert "gemm" in names, names
x = np.arange(12, dtype=np.float32).reshape(3, 4)
y = np.zeros_like(x)
kiln.catalog("copy")(x, y)
assert (x == y).all()
print("pip install ok:", len(names), "catalog entries")
PY
