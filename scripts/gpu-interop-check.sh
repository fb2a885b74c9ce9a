#!/usr/bin/env bash
# The GPU interop check, for a GPU machine with torch (CUDA), a C++ compiler, CMake,
# Ninja and the CUDA toolkit, and no package registry: nanobind, nlohmann-json and
# the other build dependencies come from ./.deps (scripts/vendor-deps.sh). Builds
# the Python extension with plain CMake, then
#   - the C++ stream and device tests (asynchronous launches, stream-ordered copies,
#     a fault reported at the next synchronisation naming its launch),
#   - asynchronous launch overhead against a bare cuLaunchKernel (bar: 1.1x),
#   - a kiln softmax and a kiln GEMM called from PyTorch on CUDA tensors on a
#     non-default stream, equal to the same kernels launched from C++, captured in
#     a CUDA graph replayed 100 times, and under torch.compile,
#   - the Python package's own tests.
# Results go to $OUT (default bench/results/gpu-interop-<date>) as JSON and logs.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/gpu-interop-$(date +%Y%m%d)}
mkdir -p "$out"
build=${KILN_BUILD_DIR:-build-gpu-interop}
py=$(command -v "${PYTHON:-python3}")
extra=()
if [[ -d .deps ]]; then
    extra+=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest"
            -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
fi
nanobind=$("$py" -m nanobind --cmake_dir 2>/dev/null || echo "$PWD/.deps/python/nanobind/cmake")
export PATH=/usr/local/cuda/bin:$PATH
status=0
step() { echo "== $*" | tee -a "$out/summary.txt"; }
step "build (python extension with nanobind from $nanobind)"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_PYTHON=ON -DPython_EXECUTABLE="$py" \
    -DKILN_NANOBIND_DIR="$nanobind" "${extra[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target _kiln kiln_test_kernels kiln_interop_reference kiln_launch_overhead kiln_interop_tests \
    >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
{ echo "commit ${KILN_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$py" -c "import torch; print('torch', torch.__version__, torch.version.cuda)"; } | tee -a "$out/summary.txt"

step "C++ interop tests on the device (streams, devices, DLPack, compiled handles)"
"$build/tests/kiln_interop_tests" --gtest_output="json:$out/interop-tests.json" >"$out/interop-tests.log" 2>&1 || status=1
tail -3 "$out/interop-tests.log" | tee -a "$out/summary.txt"

step "asynchronous launch overhead vs bare cuLaunchKernel"
"$build/bench/kiln_launch_overhead" "$out/launch-overhead.json" 2>&1 | tee "$out/launch-overhead.log" | tee -a "$out/summary.txt"
[[ ${PIPESTATUS[0]} == 0 ]] || status=1

export PYTHONPATH="$PWD/$build/python" KILN_TEST_KERNELS="$PWD/$build/tests/libkiln_test_kernels.so" \
    KILN_INTEROP_REFERENCE="$PWD/$build/tests/kiln_interop_reference"
step "PyTorch on CUDA: side stream, equality with C++ launches, CUDA graph x100, torch.compile"
"$py" tests/gpu/interop_gpu.py "$out/interop-gpu.json" >"$out/interop-gpu.log" 2>&1 || status=1
tail -12 "$out/interop-gpu.log" | tee -a "$out/summary.txt"

step "the Python package's tests"
(cd tests/python && "$py" -m unittest test_package test_dlpack test_torch_op) >"$out/python-tests.log" 2>&1 || status=1
tail -3 "$out/python-tests.log" | tee -a "$out/summary.txt"
echo "exit $status" | tee -a "$out/summary.txt"
exit $status
