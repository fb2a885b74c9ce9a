#!/usr/bin/env bash
# Copies the build-time dependencies kiln takes from Debian's packages (GoogleTest
# sources, CLI11 and OpenSSL headers, a static libcrypto) into ./.deps, so that a
# machine with no package registry (a GPU box) can build kiln: see gpu-check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
rm -rf .deps && mkdir -p .deps/include/openssl .deps/lib
cp -r /usr/src/googletest .deps/
cp -r /usr/include/CLI .deps/include/
cp -r /usr/include/openssl/. .deps/include/openssl/
cp /usr/include/"$(gcc -print-multiarch)"/openssl/* .deps/include/openssl/
cp /usr/lib/"$(gcc -print-multiarch)"/libcrypto.a .deps/lib/
du -sh .deps
