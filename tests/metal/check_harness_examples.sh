#!/bin/sh
# The Mac harnesses committed in examples/metal_harness/ are what `kiln metal-harness`
# writes today (regenerated and compared file by file), and each one's kernel.metal,
# built against the shim it carries (build_shim.sh), matches its expected outputs bit
# for bit through the same run.py a Mac runs (run.py --shim), built by the host's c++
# and, for gemm, by clang++ when installed.
# Usage: check_harness_examples.sh KILN SOURCE_DIR
set -u
kiln=$1; examples=$2/examples/metal_harness
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
status=0
for entry in gemm softmax_norm flash_attention; do
    "$kiln" metal-harness "$entry" -o "$work/$entry" > /dev/null || { echo "FAIL $entry: kiln metal-harness failed"; status=1; continue; }
    if ! diff -r "$examples/$entry" "$work/$entry" > "$work/$entry.diff"; then
        echo "FAIL $entry: examples/metal_harness/$entry differs from what kiln writes now (regenerate it with"
        echo "     kiln metal-harness $entry -o examples/metal_harness/$entry):"
        head -n 20 "$work/$entry.diff"
        status=1
    fi
    if ! sh "$work/$entry/build_shim.sh" > "$work/$entry.build" 2>&1; then
        echo "FAIL $entry: build_shim.sh:"; head -n 20 "$work/$entry.build"; status=1; continue
    fi
    python3 "$work/$entry/run.py" --shim "$work/$entry/shim/kernel.so" || { echo "FAIL $entry: run.py --shim"; status=1; }
done
# The shim is plain C++20: clang++ builds the same MSL too, when it is installed.
if command -v clang++ > /dev/null; then
    CXX=clang++ sh "$work/gemm/build_shim.sh" > "$work/clang.build" 2>&1 &&
        python3 "$work/gemm/run.py" --shim "$work/gemm/shim/kernel.so" || { echo "FAIL gemm with clang++:"; head -n 20 "$work/clang.build"; status=1; }
fi
[ $status -eq 0 ] && echo "harness examples: unchanged, and bit-exact through the shim"
exit $status
