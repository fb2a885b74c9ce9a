#!/usr/bin/env bash
# Builds here what ../gpu-20261207-s46/call.sh runs on the device with CARRIED=1, and strips it into build-carry/
# (about 27 MB with .deps' 18 MB under run's 64 MiB carry limit), so that a device call
# spends none of its time building:
#   bash bench/results/gpu-20261207-s45/make-carry.sh   (then CARRIED=1 bench/results/gpu-20261207-s46/call.sh, with carry [".deps", "build-carry"])
# The device's glibc and libstdc++ are newer than this machine's, so its binaries run
# there; libcrypto.so.3 goes with them (.deps holds only the static library, which the
# device build links, and the device may lack the shared one).
set -euo pipefail
cd "$(dirname "$0")/../../.."
nice ninja -C build -j "$(nproc)" tools/kiln kiln_variants_tests kiln_gemm_bench kiln_attention_bench
rm -rf build-carry && mkdir -p build-carry
for f in tools/kiln tests/kiln_variants_tests bench/kiln_gemm_bench bench/kiln_attention_bench; do strip -o "build-carry/$(basename "$f")" "build/$f"; done
cp /lib/x86_64-linux-gnu/libcrypto.so.3 build-carry/
build-carry/kiln --version
du -sh build-carry
