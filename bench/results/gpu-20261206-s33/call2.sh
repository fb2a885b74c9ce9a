#!/usr/bin/env bash
# Session 33's second call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=330 bash bench/results/gpu-20261206-s33/call2.sh
# 1. The row compile tests on the device's NVRTC (the layout spill tolerance's among them).
# 2. The A/B of EmitOptions::layout_spill_tolerance (KILN_CUDA_LAYOUT_SPILL_TOLERANCE,
#    0: the ladder as before; 16: the default) on the problems whose plans it changes
#    offline (bf16 SwiGLU at 128 and 1000 columns, cross-entropy at 1000, softmax at
#    4000; f32 softmax at 8192 and 65536), each value twice in alternation.
# 3. Nsight Compute on the bf16 cross-entropy and softmax at 8192 columns (why the first
#    runs at 0.57 of copy where the second reaches 0.93: stalls, occupancy, barriers).
# 4. The exact campaign from seed 5600001 with what time is left.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_unit_tests kiln_rows_bench
lib=build-gpu/bench/libkiln_rows_bench.so
el "row compile tests"
timeout 120 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaRows*' > $r/t-rows.log 2>&1; echo "rc $?"
grep -E "^\[ *(PASSED|FAILED) |FAILED  \]" $r/t-rows.log | head -12
ab layout KILN_CUDA_LAYOUT_SPILL_TOLERANCE "0 16" softmax,cross_entropy,swiglu 128,1000,4000 bf16
ab layout-f32 KILN_CUDA_LAYOUT_SPILL_TOLERANCE "0 16" softmax 8192,65536 f32
el "ncu: cross-entropy and softmax, bf16, 8192 columns"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null); echo "ncu: ${ncu:-none}"
for kn in cross_entropy softmax; do
  [ -n "$ncu" ] && timeout 90 $ncu --kernel-name regex:kiln_ --launch-skip 3 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section Occupancy --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    python3 bench/rows_bench.py --lib $lib --no-peers --kernels $kn --widths 8192 --kinds bf16 --out $r/ncu-$kn.json > $r/ncu-$kn.log 2>&1
  echo "$kn rc $?"; grep -E "Duration|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Theoretical Occ|Waves|stalled" $r/ncu-$kn.log | head -30
done
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5600001 2 8 $s exact
finish
