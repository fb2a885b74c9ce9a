#!/usr/bin/env bash
# Session 41, call 1:
#   OUT=<dir> CALL_SECONDS=575 EXACT=6240001 STANDARD=6660001 bash bench/results/gpu-20261207-s41/call1.sh
# 1. which NVRTC the device has: whether kernels compiled offline on the development
#    machine (libnvrtc.so.13 of build ID 65be0db342ad51a06876e71e210bccc5aa8322cf,
#    builtins 08d17e32084d3171cc6e296843a5e09fbd20a331) can serve it (`a94d8f1`);
# 2. the cuda fuzz regressions and PTX hazard scans on the widened f64 workaround
#    (`12bd611`, `6b057fa`; the device has run only the bool form), and 6545841 replayed;
# 3. the row kernels, bf16 at 8192, 4000 and 5123 columns: precision standard (kiln and
#    copy) and fast (with the peers): never measured in fast precision; and fast with
#    KILN_CUDA_NAN_MINIMUM_AHEAD=1 (the 16-bit NaN minimum beside loads ahead), and with
#    KILN_CUDA_SPILL_TOLERANCE=16 (offline the fast softmax at 8192 gives up its loads ahead
#    for an 8-byte spill);
# 4. the interp-vs-cuda campaigns (issue 15) for the rest of the call.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
for f in /usr/local/cuda/lib64/libnvrtc.so.13 /usr/local/cuda/lib64/libnvrtc-builtins.so.13.0; do
  g=$(readlink -f $f); echo "$f -> $g size $(stat -c %s $g) $(readelf -n $g 2>/dev/null | grep -i 'build id')"
done | tee $r/nvrtc-identity.txt
build kiln_tool kiln_fuzz_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
regressions
echo "6545841: $(timeout 60 $k fuzz --count 1 --seed 6545841 --targets interp,cuda --precision exact 2>&1 | grep -E '^1 programs|^program 6545841' | tr '\n' ' ' | cut -c1-160)"
K=softmax,cross_entropy,log_softmax,layernorm,rmsnorm,residual_layernorm,swiglu
el "rows in precision standard (no peers)"
timeout 70 python3 bench/rows_bench.py --lib $lib --precision standard --no-peers --kernels $K --widths 8192,4000,5123 --kinds bf16 \
  --out $r/rows-standard.json > $r/rows-standard.log 2>&1; echo "rc $?"; (cat $r/rows-standard.md 2>/dev/null || tail -25 $r/rows-standard.log) | cut -c1-150
el "rows in precision fast (peers)"
timeout 130 python3 bench/rows_bench.py --lib $lib --precision fast --kernels $K --widths 8192,4000,5123 --kinds bf16 --budget 75 \
  --out $r/rows-fast.json > $r/rows-fast.log 2>&1; echo "rc $?"; (cat $r/rows-fast.md 2>/dev/null || tail -25 $r/rows-fast.log) | cut -c1-150
el "rows in precision fast, KILN_CUDA_NAN_MINIMUM_AHEAD=1 (no peers)"
KILN_CUDA_NAN_MINIMUM_AHEAD=1 timeout 60 python3 bench/rows_bench.py --lib $lib --precision fast --no-peers --kernels $K --widths 8192,4000,5123 --kinds bf16 \
  --out $r/rows-fast-nanmin.json > $r/rows-fast-nanmin.log 2>&1; echo "rc $?"; (cat $r/rows-fast-nanmin.md 2>/dev/null || tail -25 $r/rows-fast-nanmin.log) | cut -c1-150
el "rows in precision fast, KILN_CUDA_SPILL_TOLERANCE=16 (no peers)"
KILN_CUDA_SPILL_TOLERANCE=16 timeout 60 python3 bench/rows_bench.py --lib $lib --precision fast --no-peers --kernels $K --widths 8192,4000,5123 --kinds bf16 \
  --out $r/rows-fast-spill16.json > $r/rows-fast-spill16.log 2>&1; echo "rc $?"; (cat $r/rows-fast-spill16.md 2>/dev/null || tail -25 $r/rows-fast-spill16.log) | cut -c1-150
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
