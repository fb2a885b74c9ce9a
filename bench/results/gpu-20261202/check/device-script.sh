#!/usr/bin/env bash
# Device call 3: softmax A/B (issue 9's regression), one build with the Python
# extension for the interop check and the GPU check (tests, catalog, bench), cuda fuzz.
set -u
r=$OUT/r; mkdir -p "$r"
trap 'tar czf $OUT/r.tgz -C $OUT r; exit 1' TERM
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
el "softmax A/B"
timeout 120 python3 scratch-device/softmax/ab.py 2>&1 | tee $r/softmax-ab.txt | tail -14
el "interop (builds bgi with the Python extension)"
KILN_COMMIT=$KC OUT=$r/gpu/interop KILN_BUILD_DIR=bgi timeout 200 scripts/gpu-interop-check.sh >$r/interop.log 2>&1; echo "interop exit $?"
grep -E "^ok|^FAIL" $r/gpu/interop/interop-gpu.log | cut -c1-100; tail -3 $r/gpu/interop/summary.txt
el "gpu-check tests,catalog,bench in bgi"
KILN_COMMIT=$KC STEPS=tests,catalog,bench OUT=$r/gpu KILN_BUILD_DIR=bgi timeout 250 scripts/gpu-check.sh 2>&1 | grep -E "passed|PASSED|FAILED|GEMM|softmax|RMSNorm|warm|NVRTC|launch" | cut -c1-150
el "fuzz interp,cuda exact"
timeout 80 bgi/tools/kiln fuzz --count 500 --seed 1000001 --targets interp,cuda --precision exact --jobs 16 --batch 16 >$r/fuzz-exact.log 2>&1; grep -E "^[0-9]+ programs|^program" $r/fuzz-exact.log | cut -c1-200 | head
el done
tar czf $OUT/r.tgz -C $OUT r
