#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU, a C++ compiler, CMake, Ninja and
# the CUDA toolkit, and no package registry: builds kiln (with ./.deps from
# scripts/vendor-deps.sh when the system lacks GoogleTest/CLI11/OpenSSL headers),
# runs the CUDA tests, the catalog on cuda in both precision modes, the bit-exact
# comparison with the interpreter, compute-sanitizer over the catalog, and the
# benchmarks. Results go to $OUT (default bench/results/gpu-<date>). STEPS picks the
# steps after the build (default: all): tests, catalog, sanitizers, bench, gemm, rows,
# attention, fuzz, interop. fuzz runs only when named: FUZZ_COUNT programs, default 10000, in
# each of three campaigns, interp vs cpu, interp vs cuda exact and standard; failures
# minimized. rows is scripts/gpu-rows.sh: the row kernels checked, then benchmarked
# against Triton and torch.compile. interop runs only when named:
# scripts/gpu-interop-check.sh in its own build with the Python extension, needing
# python3 with torch (CUDA) and Python's headers, and nanobind from ./.deps; results
# in $OUT/interop.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/gpu-$(date +%Y%m%d)}
mkdir -p "$out"
build=${KILN_BUILD_DIR:-build-gpu}
extra=()
if [[ -d .deps ]]; then
    extra+=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest"
            -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
fi
export PATH=/usr/local/cuda/bin:$PATH
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$out/summary.txt"; }
steps=${STEPS:-tests,catalog,sanitizers,bench,gemm,rows}
want() { [[ ",$steps," == *",$1,"* ]]; }
# The interop step builds its own tree: with only it, the full build is skipped.
if [[ -n $(tr -d ',' <<<"${steps//interop/}") ]]; then
step "build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
fi
kiln="$build/tools/kiln"
{ echo "commit ${KILN_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee -a "$out/summary.txt"
if want tests; then
step "cuda tests"
"$build/tests/kiln_unit_tests" --gtest_filter='Cuda*' >"$out/cuda-tests.log" 2>&1; grep -E '^\[  (PASSED|FAILED)' "$out/cuda-tests.log" | tee -a "$out/summary.txt"
fi
if want catalog; then
for p in standard exact; do
    step "kiln run --all --target cuda --precision $p"
    "$kiln" run --all --target cuda --precision "$p" --seed 7 >"$out/run-$p.log" 2>&1; tail -1 "$out/run-$p.log" | tee -a "$out/summary.txt"
done
step "kiln run --all --target cuda --size medium"
"$kiln" run --all --target cuda --size medium --seed 7 >"$out/run-medium.log" 2>&1; tail -1 "$out/run-medium.log" | tee -a "$out/summary.txt"
step "kiln compare --all --targets interp,cuda --precision exact"
"$kiln" compare --all --targets interp,cuda --precision exact --seed 7 >"$out/compare-exact.log" 2>&1; tail -1 "$out/compare-exact.log" | tee -a "$out/summary.txt"
fi
if want sanitizers && command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck; do
        step "compute-sanitizer --tool $tool (catalog, small)"
        compute-sanitizer --tool "$tool" --error-exitcode 9 "$kiln" run --all --target cuda --size small --seed 7 >"$out/sanitizer-$tool.log" 2>&1
        echo "exit $? ; $(grep -E 'ERROR SUMMARY|passed,' "$out/sanitizer-$tool.log" | tail -2 | tr '\n' ' ')" | tee -a "$out/summary.txt"
    done
fi
if want bench; then
step "benchmark"
[[ -x "$build/bench/kiln_cuda_bench" ]] && "$build/bench/kiln_cuda_bench" "$out/bench-cuda.json" 2>&1 | tee "$out/bench.log" | tail -12 | tee -a "$out/summary.txt"
fi
if want gemm; then
step "GEMM benchmark (vs cuBLAS)"
[[ -x "$build/bench/kiln_gemm_bench" ]] && "$build/bench/kiln_gemm_bench" "$out/bench-gemm.json" 2>&1 | tee "$out/bench-gemm.log" | tail -14 | tee -a "$out/summary.txt"
fi
if want rows; then
    OUT="$out" KILN_BUILD_DIR="$build" scripts/gpu-rows.sh
fi
if want attention; then
    OUT="$out" KILN_BUILD_DIR="$build" scripts/gpu-attention.sh
fi
if want fuzz; then
    # The differential fuzzer: interp vs cpu, interp vs cuda bit for bit (exact), and
    # interp vs cuda within each program's derived bound (standard); seeds apart so
    # the three campaigns check different programs. Each failing program (the first
    # five of a campaign) is minimized into $out/fuzz-minimized-<seed>.log.
    n=${FUZZ_COUNT:-10000}
    for campaign in "interp,cpu exact 1" "interp,cuda exact 1000001" "interp,cuda standard 2000001"; do
        read -r targets precision seed <<<"$campaign"
        log="$out/fuzz-${targets/,/-}-$precision.log"
        step "kiln fuzz --count $n --seed $seed --targets $targets --precision $precision"
        "$kiln" fuzz --count "$n" --seed "$seed" --targets "$targets" --precision "$precision" --jobs "$(nproc)" --batch 16 >"$log" 2>&1
        echo "exit $?" >>"$log"
        grep -E '^[0-9]+ programs:|^precision standard:|^exit ' "$log" | tee -a "$out/summary.txt"
        for failed in $(grep -oE '^program [0-9]+:' "$log" | grep -oE '[0-9]+' | head -5); do
            "$kiln" fuzz --minimize "$failed" --targets "$targets" --precision "$precision" >"$out/fuzz-minimized-$failed.log" 2>&1
            echo "program $failed ($targets, $precision) minimized: $(tail -1 "$out/fuzz-minimized-$failed.log"); see fuzz-minimized-$failed.log" | tee -a "$out/summary.txt"
        done
    done
fi
if want interop; then
    step "interop: PyTorch CUDA tensors through DLPack, side streams, overlap, CUDA graph x100, launch overhead"
    OUT="$out/interop" KILN_BUILD_DIR="$build-interop" scripts/gpu-interop-check.sh >"$out/interop.log" 2>&1
    echo "exit $?" | tee -a "$out/summary.txt"
    [[ -f "$out/interop/summary.txt" ]] && tee -a "$out/summary.txt" <"$out/interop/summary.txt"
fi
step "done"
