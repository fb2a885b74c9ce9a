#!/usr/bin/env bash
# Session 14, call 1: baseline attention (fast) and cuDNN in one run; ncu --set full on
# kiln's attention and cuDNN's (d128 full, d64), on kiln's GEMM and cuBLAS's (4096^3).
source scratch-device/common.sh
el "build"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release "${deps[@]}" >$r/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target kiln_gemm_bench kiln_attention_bench >$r/build.log 2>&1; echo "build rc $?"; grep -E "error:" $r/build.log | head
a=build-gpu/bench/kiln_attention_bench; g=build-gpu/bench/kiln_gemm_bench
el "attention bf16 fast (all shapes) || gemm precompile"
( KILN_CACHE_DIR=/tmp/kg timeout 90 $g /tmp/w.json "4096^3" > $r/gemm-4096.log 2>&1; echo "gemm rc $?" ) &
KILN_CACHE_DIR=/tmp/ka timeout 150 $a $r/att-fast.json "bf16" fast > $r/att-fast.log 2>&1; echo "att rc $?"; cat $r/att-fast.log
wait
el "peers bf16"
timeout 90 python3 bench/attention_peers.py --out $r/peers.json --dtypes bf16 > $r/peers.log 2>&1; echo "peers rc $?"; grep -i cudnn $r/peers.log | head
el "ncu attention"
for sh in "d128 kv32 full:128" "d64 kv8 full:64"; do
  f=${sh%%:*}; d=${sh##*:}
  KILN_CACHE_DIR=/tmp/ka timeout 70 ncu --kernel-name regex:_fa$ --launch-skip 3 --launch-count 1 --set full -o $r/ncu-att-d$d $a /tmp/x.json "bf16 4x32x4096x4096 $f" fast > $r/ncu-att-d$d.log 2>&1; echo "ncu kiln d$d rc $?"
  ncu --import $r/ncu-att-d$d.ncu-rep --page details > $r/ncu-att-d$d.txt 2>&1
  timeout 70 ncu --kernel-name regex:"sdpa|fmha|flash|fprop" --launch-skip 3 --launch-count 1 --set full -o $r/ncu-cudnn-d$d python3 scratch-device/ncu_sdpa.py $d > $r/ncu-cudnn-d$d.log 2>&1; echo "ncu cudnn d$d rc $?"
  ncu --import $r/ncu-cudnn-d$d.ncu-rep --page details > $r/ncu-cudnn-d$d.txt 2>&1
done
el "ncu gemm"
KILN_CACHE_DIR=/tmp/kg timeout 60 ncu --kernel-name regex:bench_gemm_sm90 --launch-skip 2 --launch-count 1 --set full -o $r/ncu-gemm-kiln $g /tmp/y.json "4096^3" > $r/ncu-gemm-kiln.log 2>&1; echo "ncu kiln gemm rc $?"
ncu --import $r/ncu-gemm-kiln.ncu-rep --page details > $r/ncu-gemm-kiln.txt 2>&1
KILN_CACHE_DIR=/tmp/kg timeout 60 ncu --kernel-name regex:"xmma|cutlass|nvjet|gemm_kernel|Kernel2" --launch-skip 2 --launch-count 1 --set full -o $r/ncu-gemm-cublas $g /tmp/y.json "4096^3" > $r/ncu-gemm-cublas.log 2>&1; echo "ncu cublas gemm rc $?"
ncu --import $r/ncu-gemm-cublas.ncu-rep --page details > $r/ncu-gemm-cublas.txt 2>&1
grep -h -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|Issue Slots Busy|Registers Per|No Eligible|Grid Size|Block Size|Cluster Size" $r/ncu-*.txt | head -80
rm -f $r/*.ncu-rep
finish
