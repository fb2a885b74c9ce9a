#!/usr/bin/env bash
# For the next session's first device call (from the repository root, .deps carried):
#   OUT=<dir> CALL_SECONDS=560 bash bench/results/gpu-20261205-s31/next-call.sh
# 1. The NVVM workaround of 9337549 on a device: the cuda fuzz regressions (5521605 among
#    them) and the ptxas workaround tests, then the exact campaign restarted on this emitter.
# 2. If time is left: call1b.sh's A/B (two softmax forms with the rotated schedule, d 256
#    overlapped), which did not run in session 31.
source bench/results/gpu-20261205-s23/common.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
build kiln_tool kiln_fuzz_tests kiln_unit_tests
el "cuda fuzz regressions and the ptxas workaround tests"
timeout 200 build-gpu/tests/kiln_fuzz_tests --gtest_filter='CudaFuzzRegression.*:CudaPtxHazards.*' > $r/t-fuzz-regressions.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $r/t-fuzz-regressions.log
timeout 120 build-gpu/tests/kiln_unit_tests --gtest_filter='CudaNegatedInt32MinMax.*:CudaNegativeZero.*:CudaPtxasBoolBytes.*' > $r/t-workarounds.log 2>&1; echo "rc $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" $r/t-workarounds.log
s=$(( $(left) - 25 )); [ $s -gt 30 ] && campaigns exact 5560001 2 8 $s exact
finish
