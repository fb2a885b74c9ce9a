"""Bar chart of kiln's GEMM against cuBLAS from kiln_gemm_bench's JSON.

    python3 bench/plot_gemm.py bench-gemm.json gemm.png    (needs matplotlib)
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    rows = json.load(open(src))
    shapes = [r["shape"] for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(12, 5))
    w = 0.4
    ax.bar([i - w / 2 for i in x], [r["kiln_tflops"] for r in rows], w, label="kiln")
    ax.bar([i + w / 2 for i in x], [r["cublas_tflops"] for r in rows], w, label="cuBLAS")
    for i, r in zip(x, rows):
        ax.text(i, max(r["kiln_tflops"], r["cublas_tflops"]) + 10, f'{r["ratio"]:.2f}x', ha="center", fontsize=8)
    ax.set_xticks(list(x))
    ax.set_xticklabels(shapes, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s (bf16 in, f32 accumulate)")
    ax.set_title("kiln vs cuBLAS, same run (ratio kiln / cuBLAS above each pair)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
