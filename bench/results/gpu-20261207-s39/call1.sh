#!/usr/bin/env bash
# Session 39's first device call:
#   OUT=<dir> CALL_SECONDS=570 EXACT=<seed> STANDARD=<seed> [NCU=0] bash bench/results/gpu-20261207-s39/call1.sh
# 1. Nsight Compute (--set full, clocks left alone) on one launch each of bf16 row kernels
#    from bench/rows_bench.py (every output checked against its f64 reference first):
#    cross-entropy at 32768 x 8192 (rows on 16-byte boundaries; the slowest kernel at every
#    width) and softmax at 26000 x 5123 (misaligned rows, dealt an element a thread: the
#    defaults): where the time goes. Between them, the shared divisor (prelude.cpp:
#    fdiv_shared, KILN_CUDA_SHARED_DIVISOR=1: 6 instructions a quotient, none on the SFU,
#    against div.rn.f32's 8 and a MUFU), within noise on an H100 (gpu-20261205-s27), on
#    bf16 softmax and cross-entropy at 8192 and 4000 columns: offline SASS counts put
#    cross-entropy near the H200's issue limit (about 32 instructions an element against
#    about 32 a thread can issue per element moved at copy bandwidth), so fewer
#    instructions should show there if anywhere. (NCU=0: none of this);
# 2. the two interp-vs-cuda campaigns for the rest of the call (issue 15's counts).
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
if [ "${NCU:-1}" = 1 ]; then build kiln_tool kiln_rows_bench; else build kiln_tool; fi
lib=build-gpu/bench/libkiln_rows_bench.so
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); echo "ncu: $ncu"
prof() {  # NAME ALIGNED KERNEL WIDTH
  [ $(left) -lt 300 ] && { el "skipped ncu $1: $(left) s left"; return; }
  el "ncu $1"
  KILN_CUDA_ALIGNED_SLOTS=$2 KILN_DUMP_DIR=$r/dump-$1 timeout 100 $ncu --clock-control none --target-processes all -k regex:^kiln_ \
    --launch-skip 3 --launch-count 1 --set full -f -o $r/ncu-$1 \
    python3 bench/rows_bench.py --lib $lib --no-peers --kernels $3 --widths $4 --kinds bf16 --out $r/ncu-$1.json > $r/ncu-$1.log 2>&1
  echo "rc $?"; grep -E "failed|TB/s|Error|ERR" $r/ncu-$1.log | head -5
  $ncu --import $r/ncu-$1.ncu-rep --page details > $r/ncu-$1.txt 2>&1
  grep -E "^  kiln_|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc Active|No Eligible|Registers Per|Achieved Occupancy|Block Size" $r/ncu-$1.txt | head -16
}
if [ "${NCU:-1}" = 1 ]; then
  prof ce-8192 0 cross_entropy 8192
  ab divisor KILN_CUDA_SHARED_DIVISOR "0 1" softmax,cross_entropy 8192,4000 bf16
  prof softmax-5123-dealt 0 softmax 5123
fi
rm -f $r/ncu-*.ncu-rep.tmp
s=$(( $(left) - 20 ))
[ $s -gt 30 ] && { campaigns exact $EXACT 2 4 $s exact & campaigns standard $STANDARD 2 4 $s standard & wait; }
finish
