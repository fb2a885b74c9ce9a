#!/usr/bin/env bash
# Copies the build-time dependencies kiln takes from Debian's packages (GoogleTest
# sources, CLI11, nlohmann-json and OpenSSL headers, a static libcrypto) and from
# PyPI (nanobind, for the Python extension) into ./.deps, so that a machine with no
# package registry (a GPU box) can build kiln: see gpu-check.sh and
# gpu-interop-check.sh. (The DLPack header is in third_party/.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
rm -rf .deps && mkdir -p .deps/include/openssl .deps/lib
cp -r /usr/src/googletest .deps/
cp -r /usr/include/CLI .deps/include/
cp -r /usr/include/nlohmann .deps/include/
cp -r /usr/include/openssl/. .deps/include/openssl/
cp /usr/include/"$(gcc -print-multiarch)"/openssl/* .deps/include/openssl/
cp /usr/lib/"$(gcc -print-multiarch)"/libcrypto.a .deps/lib/
# nanobind is sources and a CMake package: the copy scripts/py-deps.sh installed.
py=$(KILN_WITH_TORCH=0 scripts/py-deps.sh)
mkdir -p .deps/python
cp -r "$("$py" -c 'import nanobind, os; print(os.path.dirname(nanobind.__file__))')" .deps/python/
du -sh .deps
