#!/usr/bin/env bash
# The attention kernels on a GPU machine: correctness first, then the benchmark.
#   OUT=dir KILN_BUILD_DIR=dir scripts/gpu-attention.sh   (after gpu-check's build, or alone: builds kiln)
# 1. attention_bf16 and attention_softcap (and the f32 attention entries) on cuda at
#    the small and medium sizes (attention_bf16 also large) against their f64 references (ragged lengths, causal,
#    grouped-query, head dims 64 and 128); exact precision bit for bit against the
#    interpreter (the ordinary lowering);
# 2. `kiln plan` of the large case (the lowering, registers, spills);
# 3. kiln's time on B=4 H=32 S=4096 shapes in bf16 and f16 (bench/attention_bench.cpp:
#    sampled rows checked against f64 first, median of 20 by CUDA events) and, in the
#    same run, torch SDPA on its cuDNN and FlashAttention-2 backends on the same
#    shapes (bench/attention_peers.py, outputs checked first).
# ATTENTION_AB=1 also times the kernels written without the softmax/product overlap
# (KILN_ATTENTION_OVERLAP=0). Writes $OUT/attention-*.log|json and lines in $OUT/summary.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/attention-$(date +%Y%m%d)}
mkdir -p "$out"
build=${KILN_BUILD_DIR:-build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$out/summary.txt"; }
if [[ ! -x "$build/tools/kiln" ]]; then
    extra=()
    if [[ -d .deps ]]; then
        extra+=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest"
                -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
    fi
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >"$out/configure-attention.log" 2>&1 || exit 1
    cmake --build "$build" -j "$(nproc)" --target kiln_tool >"$out/build-attention.log" 2>&1 || { grep error "$out/build-attention.log" | head; exit 1; }
fi
kiln="$build/tools/kiln"
step "attention: catalog entries on cuda (standard vs f64 at small and medium; exact vs interp)"
: >"$out/attention-check.log"
for e in attention_bf16 attention_softcap attention causal_attention flash_attention; do
    sizes="small medium"; [[ $e == attention_bf16 ]] && sizes="small medium large"
    for size in $sizes; do
        "$kiln" run "$e" --target cuda --size "$size" --seed 7 >>"$out/attention-check.log" 2>&1 || echo "FAILED: $e $size" | tee -a "$out/summary.txt"
    done
    "$kiln" compare "$e" --targets interp,cuda --precision exact --seed 7 >>"$out/attention-check.log" 2>&1 || echo "FAILED: compare $e" | tee -a "$out/summary.txt"
done
grep -cE " ok$" "$out/attention-check.log" | sed 's/$/ cases ok/' | tee -a "$out/summary.txt"
step "attention: plan (large)"
"$kiln" plan attention_bf16 --target cuda --size large >"$out/attention-plan.log" 2>&1; grep -E "lowering|registers|contractions|mma at" "$out/attention-plan.log" | head -8 | tee -a "$out/summary.txt"
step "attention: kiln_attention_bench (B=4 H=32 S=4096, bf16 and f16; sampled rows vs f64, then median of 20)"
cmake --build "$build" -j "$(nproc)" --target kiln_attention_bench >"$out/build-attention-bench.log" 2>&1 ||
    { grep error "$out/build-attention-bench.log" | head | tee -a "$out/summary.txt"; }
timeout "${ATTENTION_BENCH_TIMEOUT:-300}" "$build/bench/kiln_attention_bench" "$out/attention-kiln.json" >"$out/attention-kiln.log" 2>&1
echo "exit $?" >>"$out/attention-kiln.log"; tee -a "$out/summary.txt" <"$out/attention-kiln.log"
if [[ -n ${ATTENTION_AB:-} ]]; then
    # The same kernels written serially (no softmax/product overlap), compiled into a cache of their own.
    step "attention: kiln_attention_bench, KILN_ATTENTION_OVERLAP=0 (A/B)"
    KILN_ATTENTION_OVERLAP=0 KILN_CACHE_DIR="$out/cache-serial" timeout "${ATTENTION_BENCH_TIMEOUT:-300}" "$build/bench/kiln_attention_bench" \
        "$out/attention-kiln-serial.json" >"$out/attention-kiln-serial.log" 2>&1
    echo "exit $?" >>"$out/attention-kiln-serial.log"; tee -a "$out/summary.txt" <"$out/attention-kiln-serial.log"
    rm -rf "$out/cache-serial"
fi
step "attention: peers (torch SDPA cuDNN, FlashAttention-2)"
python3 bench/attention_peers.py --out "$out/attention-peers.json" >"$out/attention-peers.log" 2>&1; tail -20 "$out/attention-peers.log" | tee -a "$out/summary.txt"
