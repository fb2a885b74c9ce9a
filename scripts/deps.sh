#!/usr/bin/env bash
# Installs what kiln needs to build and test, from Debian's packages, when missing.
set -euo pipefail
need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in g++ cmake ninja-build libgtest-dev libgmock-dev libcli11-dev libssl-dev libopenblas-dev pkg-config nlohmann-json3-dev python3-dev python3-venv; do
    have "$pkg" || need+=("$pkg")
done
if ((${#need[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "kiln: missing packages: ${need[*]} (run as root, or install them: apt-get install ${need[*]})" >&2
        exit 1
    fi
    echo "kiln: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
fi
