#!/usr/bin/env bash
# The row kernels on a GPU machine: correctness first, then the benchmark.
#   OUT=dir scripts/gpu-rows.sh                  (alone: configures and builds what it needs)
#   STEPS=rows scripts/gpu-check.sh             (as gpu-check's `rows` step, after its build)
# 1. builds kiln_rows_bench (a shared library over libkiln.a, not part of `all`) and
#    the kiln tool, in $KILN_BUILD_DIR (build-gpu, gpu-check's);
# 2. checks the catalog's row entries on cuda: standard precision at the medium size
#    (ragged widths 1000, 4000, 5123) against their f64 references, exact precision
#    bit for bit against the interpreter (the CudaRows* layout tests need no device:
#    gpu-check's tests step and the default suite run them);
# 3. runs bench/rows_bench.py: softmax, layernorm (affine), rmsnorm (weighted),
#    log_softmax, cross_entropy, residual_layernorm, swiglu in bf16 and f32 at
#    32768 x 8192 and widths 128, 1000, 4000, 5123, 65536, a column sum of 8192 x
#    32768 and a transpose, against copy bandwidth, Triton and torch.compile in the
#    same process (each output checked against an f64 reference first; median of 50
#    timed runs after 10 warm-ups, fresh random inputs per problem).
# With ROWS_AB="A|B|..." (each a list of environment assignments, e.g.
# "KILN_CUDA_PREFETCH=0|KILN_CUDA_PREFETCH=1") step 3 is instead an A/B of kiln's own
# knobs: kiln alone (no peers), each configuration in its own process over the same
# problems (ROWS_ARGS: rows_bench.py's filters, e.g. "--kernels softmax --widths 8192"),
# written to $OUT/ab-N.{json,csv,md} and compared in $OUT/ab.md.
# Writes $OUT/rows.{json,csv,md,log}, $OUT/rows.png when matplotlib is there (else
# plot the CSV elsewhere: python3 bench/plot_rows.py rows.csv rows.png),
# $OUT/catalog-rows.log and lines in $OUT/summary.txt. Time: ROWS_STOP seconds
# (default 200) after which no new benchmark problem starts, ROWS_COMPILE_BUDGET
# (default 120) after which torch.compile peers are skipped (both listed in the
# tables), so that the step stays near 5 minutes after the build.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results/rows-$(date +%Y%m%d)}
mkdir -p "$out"
build=${KILN_BUILD_DIR:-build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
step() { echo "== $* ($(date -u +%H:%M:%S))" | tee -a "$out/summary.txt"; }
start=$(date +%s)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
    extra=()
    if [[ -d .deps ]]; then
        extra+=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest"
                -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
    fi
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" >"$out/configure-rows.log" 2>&1 ||
        { tail -30 "$out/configure-rows.log"; exit 1; }
fi
step "rows: build (kiln_rows_bench, kiln)"
cmake --build "$build" -j "$(nproc)" --target kiln_rows_bench kiln_tool >"$out/build-rows.log" 2>&1 ||
    { grep -E "error" "$out/build-rows.log" | head -30 | tee -a "$out/summary.txt"; exit 1; }
kiln="$build/tools/kiln"
step "rows: catalog row entries on cuda (standard at medium size vs f64; exact vs interp)"
entries="layernorm_affine rmsnorm_weighted log_softmax cross_entropy residual_layernorm_bf16 swiglu column_sum softmax_norm rmsnorm residual_layernorm transpose"
: >"$out/catalog-rows.log"
ok=0 bad=0
for e in $entries; do
    if "$kiln" run "$e" --target cuda --size medium --seed 7 >>"$out/catalog-rows.log" 2>&1 &&
       "$kiln" compare "$e" --targets interp,cuda --precision exact --seed 7 >>"$out/catalog-rows.log" 2>&1; then
        ok=$((ok + 1))
    else
        bad=$((bad + 1)); echo "FAILED: $e" | tee -a "$out/summary.txt"
    fi
done
echo "$ok entries passed, $bad failed" | tee -a "$out/summary.txt"
if [[ -n "${ROWS_AB:-}" ]]; then
    step "rows: A/B of kiln's knobs (${ROWS_AB}) over ${ROWS_ARGS:-every problem}"
    IFS='|' read -r -a configs <<<"$ROWS_AB"
    outs=()
    for i in "${!configs[@]}"; do
        # shellcheck disable=SC2086 -- each configuration is a list of assignments
        env ${configs[$i]} python3 bench/rows_bench.py --lib "$build/bench/libkiln_rows_bench.so" --no-peers ${ROWS_ARGS:-} \
            --out "$out/ab-$i.json" >"$out/ab-$i.log" 2>&1 || echo "configuration $i (${configs[$i]}): exit $?" | tee -a "$out/summary.txt"
        outs+=("${configs[$i]}=$out/ab-$i.json")
    done
    python3 bench/rows_ab.py "${outs[@]}" >"$out/ab.md" && tee -a "$out/summary.txt" <"$out/ab.md"
    echo "rows: total $(($(date +%s) - start)) s" | tee -a "$out/summary.txt"
    exit 0
fi
step "rows: benchmark (bench/rows_bench.py)"
python3 -X faulthandler bench/rows_bench.py --lib "$build/bench/libkiln_rows_bench.so" --out "$out/rows.json" --stop "${ROWS_STOP:-200}" \
    --budget "${ROWS_COMPILE_BUDGET:-120}" >"$out/rows.log" 2>&1
status=$?
grep -E "device copy|problems," "$out/rows.log" | tee -a "$out/summary.txt"
[[ -f "$out/rows.md" ]] && sed -n '1,20p' "$out/rows.md" | tee -a "$out/summary.txt"
[[ $status -eq 0 ]] || tail -5 "$out/rows.log" | tee -a "$out/summary.txt"
echo "rows: total $(($(date +%s) - start)) s" | tee -a "$out/summary.txt"
exit $status
