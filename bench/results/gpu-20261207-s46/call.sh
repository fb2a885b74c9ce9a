#!/usr/bin/env bash
# The next device call (sessions 45 and 46 had none: no machine was lent). From the
# repository root, .deps carried:
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261207-s46/call.sh
# With CARRIED=1 it runs the binaries make-carry.sh built on the development machine
# and stripped into build-carry/ (carry [".deps", "build-carry"]) instead of building
# them here (3-4 minutes of device time); it builds them only if those do not run.
# In order of what the session needs most (each step skipped when too little is left):
# 1. the GEMM row that fell 52x in session 44 (`4096^3 A B, B a view of w.t()`,
#    14.5 TFLOP/s, correct), alone, dumped (KILN_DUMP_DIR: a module holding the generic
#    kernel kiln_bench_gemm means the Hopper kernel refused the launch);
# 2. the GEMM's checked epilogue as a rolled loop (53215a7): the GEMM variants on the
#    device against the interpreter, the cold compiles of the catalog GEMMs;
# 3. the attention softmax's rolled forms (KILN_ATTENTION_ROLLED_FORMS, 2ededfa): the
#    attention bench (bf16 4x32x4096 d64/d128/d256, full and causal; sampled rows
#    against f64 first, the first launch with an empty cache, then the median of 20)
#    with the default, rolled 2, and rotated + rolled 1, in alternation;
# 4. the attention variants on the device with rolled 2 and with rotated + rolled 1;
# 5. the GEMM rows whose tiles take the checked epilogue (8191^3, 3000x5000x7000) and
#    the grouped order's rows (Triton's tutorial on a 1-D grid, 9ce50a7), cuDNN through
#    torch SDPA for the attention rows.
# The GEMM variants of step 2 include session 46's kloop_dot_f32 (seed 000's
# acc = acc + dot(a, b), 21f7fa6) and grid_grouped, first on a device.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
# The binaries: G the GEMM bench, A the attention bench, T the variants' tests, k kiln.
if [ -n "${CARRIED:-}" ] && LD_LIBRARY_PATH=$PWD/build-carry build-carry/kiln --version; then
  export LD_LIBRARY_PATH=$PWD/build-carry:${LD_LIBRARY_PATH:-}
  k=build-carry/kiln G=build-carry/kiln_gemm_bench A=build-carry/kiln_attention_bench T=build-carry/kiln_variants_tests
else
  build kiln_tool kiln_variants_tests kiln_attention_bench kiln_gemm_bench
  G=build-gpu/bench/kiln_gemm_bench A=build-gpu/bench/kiln_attention_bench T=build-gpu/tests/kiln_variants_tests
fi
el "gemm: the w.t() row: a fresh cache, the same cache again, after the plain 4096^3 row (the same program), dumped"
# (Session 44 ran it after the plain rows with a cache earlier processes had filled; a
# dumped run skips the program index, so it alone could hide an index-path cause.)
c=$(mktemp -d); d=$(mktemp -d)
for run in fresh again; do
  KILN_CACHE_DIR=$c timeout 40 $G $r/gemm-flip-$run.json "4096^3 A B, B a view" > $r/gemm-flip-$run.log 2>&1; echo "$run rc $?"; grep -E "w.t\(\)|kiln: warning" $r/gemm-flip-$run.log | cut -c1-220
done
KILN_CACHE_DIR=$d timeout 40 $G $r/gemm-flip-after.json "=4096^3|4096^3 A B, B a view" > $r/gemm-flip-after.log 2>&1; echo "after rc $?"; grep -E "^ *4096\^3 |w.t\(\)|kiln: warning" $r/gemm-flip-after.log | cut -c1-220
KILN_CACHE_DIR=$d KILN_DUMP_DIR=$r/dump-flip timeout 40 $G $r/gemm-flip-dumped.json "=4096^3|4096^3 A B, B a view" > $r/gemm-flip-dumped.log 2>&1; echo "dumped rc $?"; grep "w.t()" $r/gemm-flip-dumped.log | cut -c1-160
ls $r/dump-flip | head; grep -l "kiln_bench_gemm(" $r/dump-flip/* 2>/dev/null | sed 's/^/generic kernel in: /'
el "GEMM variants on the device"
for i in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 120 $T --gtest_filter='Gemm/VariantDevice.TheHopperKernelIsWithin*' > $r/tv-gemm-$i.log 2>&1 &
done
wait
grep -hE "^\[  (PASSED|FAILED) |FAILED  \]" $r/tv-gemm-*.log; grep -h "kiln: warning" $r/tv-gemm-*.log | sort | uniq -c | head
cold_compiles gemm_bf16 gemm_epilogue linear
el "A/B attention: default, rolled 2, rotated + rolled 1 (fast, alternating)"
for rep in 1 2; do
  for cfg in "0 2" "0 0" "1 1"; do
    set -- $cfg
    [ $(left) -lt 150 ] && break 2
    KILN_ATTENTION_ROTATED=$1 KILN_ATTENTION_ROLLED_FORMS=$2 KILN_CACHE_DIR=$(mktemp -d) timeout 90 $A \
      $r/att-rot$1-rolled$2-$rep.json "bf16 4x32x4096x4096 d" fast > $r/att-rot$1-rolled$2-$rep.log 2>&1
    echo "rotated $1 rolled $2 rep $rep rc $?"; grep -E "ms" $r/att-rot$1-rolled$2-$rep.log | cut -c1-170 | head -8
  done
done
el "attention variants on the device: rolled forms"
for cfg in "0 2" "1 1"; do
  set -- $cfg
  [ $(left) -lt 100 ] && break
  for i in 0 1 2 3; do
    KILN_ATTENTION_ROTATED=$1 KILN_ATTENTION_ROLLED_FORMS=$2 GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$i timeout 90 $T \
      --gtest_filter='Attention/VariantDevice.TheHopperKernelIsWithin*' > $r/tv-att-rot$1-rolled$2-$i.log 2>&1 &
  done
  wait
  echo "rotated $1 rolled $2:"; grep -hE "^\[  (PASSED|FAILED) |FAILED  \]" $r/tv-att-rot$1-rolled$2-*.log
done
el "gemm rows"
[ $(left) -gt 80 ] && { timeout $(( $(left) - 50 )) $G $r/gemm-rows.json "4096^3 relu|8191|3000x5000x7000 A^T|3000x5000x7000 (|grouped order" > $r/gemm-rows.log 2>&1; echo "rc $?"; cut -c1-160 $r/gemm-rows.log | tail -10; grep "kiln: warning" $r/gemm-rows.log | head -3; }
el "peers"
[ $(left) -gt 45 ] && { timeout $(( $(left) - 12 )) python3 bench/attention_peers.py --dtypes bf16 --out $r/attention-peers.json > $r/attention-peers.log 2>&1; echo "peers rc $?"; tail -8 $r/attention-peers.log; }
finish
