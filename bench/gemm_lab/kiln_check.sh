#!/bin/bash
# One device call checking kiln's integrated Hopper GEMM with binaries built on the
# development machine (stripped copies in .gemm-carry/, named in the run's carry):
# the GEMM device tests, the catalog's GEMMs on cuda at every size, the benchmark,
# then the other CUDA unit tests while time remains.
cd "$(dirname "$0")/../.."
c=.gemm-carry
export PATH=/usr/local/cuda/bin:$PATH
timeout 40 $c/kiln_unit_tests --gtest_filter='CudaGemmDevice*' 2>&1 | grep -vE "^\[ RUN|^\[       OK|^$" | tail -20
for size in small medium large; do
    for e in gemm_bf16 gemm_f16; do
        timeout 20 $c/kiln run $e --target cuda --size $size --seed 7 2>&1 | tail -5
    done
done
timeout 40 $c/kiln_cuda_bench /tmp/bench.json 2>&1 | tail -12
timeout 30 $c/kiln_unit_tests --gtest_filter='Cuda*-CudaGemmDevice*' 2>&1 | tail -8
