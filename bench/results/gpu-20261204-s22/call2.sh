#!/usr/bin/env bash
# Written at the end of session 21 (not yet run): the attention kernel with its producer's
# loops kept rolled (no stack frame or spills at d128 since this session, 24 bytes of stack
# and 52 of spills before; checked offline only). On the device: the key-block and catalog
# attention tests (every output against f64 or the interpreter), racecheck on one of them,
# the headline shapes (B=4 H=32 S=4096 d128, full and causal, bf16, standard and fast)
# beside cuDNN in the same call, as session 17/18 measured them (0.91-0.98x cuDNN in fast).
source bench/results/gpu-20261204-s22/common.sh
build kiln_tool kiln_attention_bench kiln_catalog_tests
a=build-gpu/bench/kiln_attention_bench
el tests
timeout 200 build-gpu/tests/kiln_catalog_tests --gtest_filter='AttentionKeyBlock*:CudaFastPrecisionDevice.*:*OnDevice/*attention*' > $r/tests.log 2>&1; echo "tests rc $?"
grep -E "^\[  (PASSED|FAILED)|key block \]" $r/tests.log
el "racecheck"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 build-gpu/tests/kiln_catalog_tests --gtest_filter='Catalog/CudaCatalogEntry.MatchesInterpreterOnDevice/attention_bf16' > $r/racecheck.log 2>&1; echo "racecheck rc $?"; tail -1 $r/racecheck.log
for p in fast standard; do
  for shape in "bf16 4x32x4096x4096 d128 kv32 full" "bf16 4x32x4096x4096 d128 kv32 causal"; do
    el "bench $p $shape"
    timeout 90 $a $r/att-$p-${shape##* }.json "$shape" $p > $r/att-$p-${shape##* }.log 2>&1; echo "rc $?"; tail -3 $r/att-$p-${shape##* }.log
  done
done
el "peers bf16"
timeout 150 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"; grep -E "4096x4096.*d128|4096, 128" $r/peers.log | head
# The rest of the call: a standard-precision campaign, two processes of 8 jobs (call 1's
# fastest layout), seeds carrying on from session 21's 4700001..4719088.
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
campaigns standard 4720001 2 8 $(( $(left) - 20 )) standard
finish
