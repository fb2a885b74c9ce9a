# Shared preamble of session 23's device calls: build-gpu from the working tree
# (.deps carried), a deadline for the call, the results packed at the end.
set -u
r=$OUT/r; mkdir -p "$r"
export PATH=/usr/local/cuda/bin:$PATH
deps=(-DOPENSSL_ROOT_DIR="$PWD/.deps" -DOPENSSL_USE_STATIC_LIBS=TRUE -DKILN_GTEST_SOURCE="$PWD/.deps/googletest" -DCMAKE_CXX_FLAGS="-isystem $PWD/.deps/include")
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { echo $(( ${CALL_SECONDS:-570} - ($(date +%s) - t0) )); }  # seconds left before the call's end
finish() { el done; tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$r"; }
build() {
  el "build $*"
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 &&
    cmake --build build-gpu -j 16 --target "$@" >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
}
k=build-gpu/tools/kiln
# A campaign of interp vs cuda from seed $2 in precision $1 for at most $3 seconds
# (--seconds: the programs checked are the first ones and the summary names them);
# the first difference dumped (its source) for the offline tools.
campaign() {
  el "fuzz $1 from $2 for $3 s"
  KILN_FUZZ_REPORT_SECONDS=60 KILN_CACHE_DIR=/tmp/kf-$2 $k fuzz --count 1000000 --seed $2 --targets interp,cuda --precision $1 --jobs 16 --batch 16 \
    --seconds $3 > $r/fuzz-cuda-$1-$2.log 2>&1; echo "rc $?"
  grep -E "time budget|^[0-9]+ programs:|^precision standard" $r/fuzz-cuda-$1-$2.log; grep -E "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | head -5
  for s in $(grep -oE "^program [0-9]+" $r/fuzz-cuda-$1-$2.log | awk '{print $2}' | head -2); do
    KILN_DUMP_DIR=$r/dump-$s timeout 60 $k fuzz --count 1 --seed $s --targets interp,cuda --precision $1 > $r/p$s.log 2>&1
  done
}
# `procs` processes of `jobs` jobs each for `secs` seconds, in precision $1, process i
# from seed $2 + i * 20000 (call 1 found 2 x 8 the fastest layout); prints the
# summaries. (Added after calls 1-3, which define their own as they ran; the next
# session's scripts use this one.)
campaigns() {
  local prec=$1 seed=$2 procs=$3 jobs=$4 secs=$5 name=$6
  el "fuzz $prec: $procs processes x $jobs jobs from $seed for $secs s ($name)"
  for ((i = 0; i < procs; i++)); do
    local s=$((seed + i * 20000))
    KILN_FUZZ_REPORT_SECONDS=60 $k fuzz --count 1000000 --seed $s --targets interp,cuda --precision $prec --jobs $jobs --batch 16 \
      --seconds $secs > $r/fuzz-$name-$s.log 2>&1 &
  done
  wait
  cat $r/fuzz-$name-*.log | grep -E "time budget|^[0-9]+ programs:|^precision standard|^time, summed|^program [0-9]+"
}
# An A/B of a row knob: NAME VARIABLE "V1 V2 ..." KERNELS WIDTHS KINDS runs the rows
# benchmark (kiln alone, $lib) with each value in turn, twice over, and prints
# bench/rows_ab.py's table. (Session 28 wrote it in its next-call.sh; later calls use this one.)
ab() {
  local name=$1 var=$2 values=($3) kernels=$4 widths=$5 kinds=$6 outs=() i=0
  [ $(left) -lt 150 ] && { el "skipped A/B $name: $(left) s left"; return; }
  el "A/B $name: $var in ${values[*]}"
  for v in "${values[@]}" "${values[@]}"; do
    env $var=$v timeout 80 python3 bench/rows_bench.py --lib $lib --no-peers --kernels $kernels --widths $widths --kinds $kinds \
      --out $r/ab-$name-$i.json > $r/ab-$name-$i.log 2>&1 || echo "$var=$v: rc $?"
    outs+=("$var=$v=$r/ab-$name-$i.json"); i=$((i + 1))
  done
  python3 bench/rows_ab.py "${outs[@]}" > $r/ab-$name.md 2>&1; cat $r/ab-$name.md
}
# The cuda fuzz regressions and PTX hazard scans (kiln_fuzz_tests built), into
# $r/t-regressions.log; prints the summary. (Added in session 36; calls before it spell it out.)
regressions() {
  el "fuzz regressions and PTX hazards"
  timeout 120 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-regressions.log 2>&1; echo "rc $?"
  grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-regressions.log | head -12
}
# The rows benchmark (kiln_rows_bench built, $lib set) on the seven bf16 row kernels at
# 8192, 4000 and 5123 columns: NAME PRECISION SECONDS [ARGS...] (e.g. --no-peers, or
# --budget 75 with the peers) into $r/rows-NAME.*; prints its table. (Added in session
# 42; calls before it spell it out.)
rows() {
  local name=$1 precision=$2 secs=$3; shift 3
  el "rows $name: precision $precision $*"
  timeout $secs python3 bench/rows_bench.py --lib $lib --precision $precision --kernels softmax,cross_entropy,log_softmax,layernorm,rmsnorm,residual_layernorm,swiglu \
    --widths 8192,4000,5123 --kinds bf16 "$@" --out $r/rows-$name.json > $r/rows-$name.log 2>&1; echo "rc $?"
  (cat $r/rows-$name.md 2>/dev/null || tail -25 $r/rows-$name.log) | cut -c1-150
}
# Cold compiles: `kiln bench ENTRY --target cuda` with an empty cache each, for each
# ENTRY given, into $r/bench-cold-ENTRY.log; prints their tables. (Added in session 43.)
cold_compiles() {
  el "cold compiles (an empty cache each): $*"
  for e in "$@"; do
    KILN_CACHE_DIR=$(mktemp -d) timeout 60 $k bench $e --target cuda --reps 3 > $r/bench-cold-$e.log 2>&1; echo "$e rc $?"
  done
  for e in "$@"; do grep -v "^kiln bench" $r/bench-cold-$e.log; done | head -30
}
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck, each over 1,000
# fuzzed programs (exact, from SEED on, 1,000 more for each tool; one process of 16
# jobs) and over the catalog on cuda (small size), while at least 150 s of the call
# are left; into $r/sanitizer-*.log. (Added in session 43, from session 42's
# sanitizer-call.sh.)
sanitizers() {
  local seed=$1
  for tool in memcheck racecheck synccheck initcheck; do
    [ $(left) -lt 150 ] && { el "skipped $tool: $(left) s left"; continue; }
    el "compute-sanitizer $tool: 1000 fuzzed programs from $seed, then the catalog"
    KILN_CACHE_DIR=/tmp/ks-$tool timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $k fuzz --count 1000 --seed $seed --targets interp,cuda \
      --precision exact --jobs 16 --batch 16 > $r/sanitizer-fuzz-$tool.log 2>&1; echo "rc $?"
    grep -E "^[0-9]+ programs:|ERROR SUMMARY|^program [0-9]+" $r/sanitizer-fuzz-$tool.log | head -4
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $k run --all --target cuda --size small --seed 7 > $r/sanitizer-catalog-$tool.log 2>&1
    echo "catalog rc $?; $(grep -E 'ERROR SUMMARY|passed,' $r/sanitizer-catalog-$tool.log | tail -2 | tr '\n' ' ')"
    seed=$((seed + 1000))
  done
}
