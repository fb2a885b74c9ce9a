#!/usr/bin/env bash
# Session 12, call 4 (at 3b96a17; refused twice, never run): where the remaining gap on 4096^3 is.
# ncu (six sections) on kiln's GEMM kernel and on cuBLAS's in the same bench row; the
# kernel names say cuBLAS's tile and cluster.
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_gemm_bench >$r/build.log 2>&1; echo "build rc $?"
g=build-gpu/bench/kiln_gemm_bench
KILN_CACHE_DIR=/tmp/kg timeout 60 $g /tmp/w.json "4096^3" > /dev/null 2>&1
el "ncu"
for row in "4096^3"; do
  tag=$(echo "$row" | tr -d '^')
  KILN_CACHE_DIR=/tmp/kg timeout 100 ncu --kernel-name regex:bench_gemm_sm90 --launch-skip 2 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy -o $r/ncu-kiln-$tag $g /tmp/y.json "$row" > $r/ncu-kiln-$tag.log 2>&1; echo "ncu kiln $row rc $?"
  ncu --import $r/ncu-kiln-$tag.ncu-rep --page details > $r/ncu-kiln-$tag.txt 2>&1
  KILN_CACHE_DIR=/tmp/kg timeout 100 ncu --kernel-name regex:"xmma|cutlass|nvjet|gemm_kernel|Kernel2" --kernel-name-base function --launch-skip 2 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy -o $r/ncu-cublas-$tag $g /tmp/y.json "$row" > $r/ncu-cublas-$tag.log 2>&1; echo "ncu cublas $row rc $?"
  ncu --import $r/ncu-cublas-$tag.ncu-rep --page details > $r/ncu-cublas-$tag.txt 2>&1
done
grep -h -E "^  [a-zA-Z_].*\(|Duration|SM Busy|Compute \(SM\) Throughput|L2 Cache Throughput|DRAM Throughput|Registers Per|Cluster|Issue Slots Busy|Executed Ipc Active|Memory Throughput" $r/ncu-*.txt | head -80
rm -f $r/*.ncu-rep
finish
