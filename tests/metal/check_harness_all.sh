#!/bin/sh
# `kiln metal-harness --all` writes a folder per catalog entry and run_all.sh; the
# folder's MSL passes through kiln's C++ shim for every entry (run_all.sh --shim),
# and a corrupted expected output is reported as a mismatch (the check can fail).
# Usage: check_harness_all.sh KILN
set -u
kiln=$1
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
"$kiln" metal-harness --all -o "$work/h" || exit 1
sh "$work/h/run_all.sh" --shim || exit 1
python3 - "$work/h/gemm/data/out2.expected.bin" <<'PY'
import sys
p = sys.argv[1]; d = bytearray(open(p, "rb").read()); d[0] ^= 1; open(p, "wb").write(d)
PY
if python3 "$work/h/gemm/run.py" --shim "$work/h/gemm/shim/kernel.so" > "$work/out.txt"; then
    echo "FAIL: a corrupted expected output passed"; exit 1
fi
grep -q "MISMATCH: element 0" "$work/out.txt" || { echo "FAIL: no mismatch reported:"; cat "$work/out.txt"; exit 1; }
echo "corrupted expected output: reported"
