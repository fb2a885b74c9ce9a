#!/usr/bin/env bash
# For the next session's first device call (not yet run):
#   OUT=<dir> CALL_SECONDS=300 bash bench/results/gpu-20261207-s39/bisect-6545841.sh
# Program 6545841 (README.md here) differs on the device with the default options and
# not with KILN_CUDA_SHIFTED_RUNS=0, whose source lacks only two paths of the i32 row
# load of argument 0 that the launch never takes. This replays the program with edited
# copies of its generated kernel (KILN_CUDA_SOURCE_DIR, src/targets/cuda/source_override.h):
# each extra path dropped alone and both, and writes the SASS of each variant
# (nvcc -cubin with NVRTC's options, cuobjdump -sass) for the diff that shows the miscompile.
source bench/results/gpu-20261205-s23/common.sh
build kiln_tool
seed=6545841
replay() {  # NAME [ENV...]: the program in exact precision, its verdict
  local name=$1; shift
  echo "$name: $(env "$@" timeout 60 $k fuzz --count 1 --seed $seed --targets interp,cuda --precision exact 2>&1 | grep -E '^1 programs' | cut -c1-44)"
}
KILN_DUMP_DIR=$r/dump timeout 60 $k fuzz --count 1 --seed $seed --targets interp,cuda --precision exact > $r/default.log 2>&1
src=$(ls $r/dump/fuzz_$seed-*.cu | head -1)
echo "dumps: $(ls $r/dump | wc -l) (session 39 saw one; with more, the spill ladder compiled the kernel again: edit the one whose key the plan's cache line names)"
python3 - "$src" "$r" <<'PY'
import re, sys, os
src, out = sys.argv[1], sys.argv[2]
text = open(src).read()
def drop(t, pattern):
    # the first `else if (<pattern>) {` block at its own indent, up to its closing brace
    m = re.search(r'\n( *)else if \(' + pattern + r'\) \{\n', t)
    if not m: sys.exit('no block for ' + pattern)
    ind = m.group(1)
    end = t.index('\n' + ind + '}', m.end()) + len(ind) + 2
    return t[:m.start()] + t[end:]
eight = r'whole\d+ && \(\(unsigned long long\)p\d+ & 7\) == 0'
four = r'whole\d+'
variants = {'no8': drop(text, eight), 'no4': drop(text, four), 'none': drop(drop(text, eight), four)}
for name, t in variants.items():
    os.makedirs(f'{out}/{name}', exist_ok=True)
    open(f'{out}/{name}/fuzz_6545841.cu', 'w').write(t)
os.makedirs(f'{out}/same', exist_ok=True)
open(f'{out}/same/fuzz_6545841.cu', 'w').write(text)
PY
replay default
replay shifted-off KILN_CUDA_SHIFTED_RUNS=0
for v in same no8 no4 none; do replay "edited:$v" KILN_CUDA_SOURCE_DIR=$r/$v; done
# Session 40, offline: NVRTC's PTX of `none` equals the default's but for the two blocks
# dropped (registers renamed, blocks reordered), so a difference here is ptxas's.
for o in -O0 -O1 -O2 -O3; do replay "ptxas $o" KILN_CUDA_PTXAS_OPTIONS=$o; done
for t in memcheck racecheck; do
  echo "$t: $(timeout 120 compute-sanitizer --tool $t $k fuzz --count 1 --seed $seed --targets interp,cuda --precision exact 2>&1 | grep -E 'ERROR SUMMARY|^1 programs' | tr '\n' ' ' | cut -c1-120)"
done
opts="-cubin -arch=sm_90a --std=c++17 -fmad=false -prec-div=true -prec-sqrt=true -ftz=false -w -lineinfo"
for v in same no8 no4 none; do
  nvcc $opts -o $r/$v.cubin $r/$v/fuzz_$seed.cu && cuobjdump -sass $r/$v.cubin > $r/$v.sass; echo "$v: $(grep -c '^\s*/\*[0-9a-f]*\*/' $r/$v.sass) SASS lines"
done
finish
