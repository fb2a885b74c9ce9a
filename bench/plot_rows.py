#!/usr/bin/env python3
"""Plots the row benchmark's bandwidth against row width (bench/rows_bench.py writes the CSV).

    python3 bench/plot_rows.py rows.csv rows.png

One panel per kernel and kind (bf16, f32): kiln, Triton (where it has a peer),
torch.compile and torch eager in TB/s against the row width, the device's copy
bandwidth as a dashed line. Needs matplotlib (the GPU machine may lack it: then
rows_bench.py leaves the CSV, and this script runs where matplotlib is).
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [("kiln_tbs", "kiln", "C0"), ("triton_tbs", "Triton", "C1"), ("torch_compile_tbs", "torch.compile", "C2"),
          ("torch_eager_tbs", "torch eager", "C7")]


def number(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def plot(csv_path, png_path):
    rows = list(csv.DictReader(open(csv_path)))
    panels = defaultdict(list)  # (kernel, kind) -> rows, row kernels only (a width axis)
    copy = None
    for r in rows:
        copy = number(r.get("copy_tbs")) or copy
        if r["kernel"] not in ("column_sum", "transpose"):
            panels[(r["kernel"], r["kind"])].append(r)
    kernels = sorted({k for k, _ in panels}, key=lambda k: [r["kernel"] for r in rows].index(k))
    kinds = [k for k in ("bf16", "f32") if any(kind == k for _, kind in panels)]
    fig, axes = plt.subplots(len(kernels), len(kinds), figsize=(5.5 * len(kinds), 2.6 * len(kernels)), squeeze=False, sharex=True)
    for i, kernel in enumerate(kernels):
        for j, kind in enumerate(kinds):
            ax = axes[i][j]
            data = sorted(panels.get((kernel, kind), []), key=lambda r: int(r["cols"]))
            widths = [int(r["cols"]) for r in data]
            for key, label, color in SERIES:
                ys = [number(r.get(key)) for r in data]
                pts = [(w, y) for w, y in zip(widths, ys) if y is not None]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label, color=color)
            if copy:
                ax.axhline(copy, linestyle="--", color="k", linewidth=0.8, label="copy")
            ax.set_xscale("log", base=2)
            ax.set_title(f"{kernel} {kind}", fontsize=9)
            ax.set_ylabel("TB/s")
            ax.set_ylim(bottom=0)
            if i == len(kernels) - 1:
                ax.set_xlabel("row width (elements)")
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[2].strip())
    plot(sys.argv[1], sys.argv[2])
