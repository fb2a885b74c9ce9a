#!/usr/bin/env bash
# Installs the Python side of kiln's build and tests from PyPI into a virtual
# environment kept across runs ($KILN_VENV, default ~/.cache/kiln/python-venv):
# nanobind and scikit-build-core (the extension's build), numpy (DLPack tests) and,
# unless KILN_WITH_TORCH=0, torch for the CPU (the custom-op test). Prints the
# environment's python. Debian's python3-venv and python3-dev come from deps.sh.
set -euo pipefail
venv=${KILN_VENV:-$HOME/.cache/kiln/python-venv}
py=$venv/bin/python
if [[ ! -x $py ]]; then
    python3 -m venv "$venv" >&2
fi
have() { "$py" -c "import $1" 2>/dev/null; }
need=()
have nanobind || need+=(nanobind)
have scikit_build_core || need+=(scikit-build-core)
have numpy || need+=(numpy)
if ((${#need[@]})); then
    echo "kiln: installing ${need[*]} into $venv" >&2
    "$py" -m pip install --quiet --disable-pip-version-check "${need[@]}" >&2
fi
if [[ ${KILN_WITH_TORCH:-1} != 0 ]] && ! have torch; then
    # PyPI's build (with its CUDA libraries, ~5 GB installed, ~7 minutes) runs on a CPU too.
    echo "kiln: installing torch into $venv (large; KILN_WITH_TORCH=0 skips it and the tests that need it)" >&2
    "$py" -m pip install --quiet --disable-pip-version-check torch >&2
fi
echo "$py"
