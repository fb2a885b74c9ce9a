"""kiln's attention against cuDNN and FlashAttention-2 from one device run: a
markdown table (kiln / cuDNN per shape) and a bar chart.

    python3 bench/plot_attention.py kiln.json peers.json [table.md [attention.png]]

kiln.json is kiln_attention_bench's output, peers.json attention_peers.py's; rows
are matched by dtype, shape and mask. The PNG needs matplotlib.
"""
import json
import sys


def key(row):
    return (row["dtype"], row["shape"], bool(row["causal"]))


def table(kiln_path, peers_path):
    kiln = json.load(open(kiln_path))["rows"]
    peers = {}
    for p in json.load(open(peers_path))["rows"]:
        if "tflops" in p:
            peers[(key(p), p["peer"])] = p["tflops"]
    rows = []
    for k in kiln:
        cudnn = peers.get((key(k), "cudnn"))
        fa2 = peers.get((key(k), "flash2"))
        rows.append({"dtype": k["dtype"], "shape": k["shape"], "mask": ("causal" if k["causal"] else "full") + (" (blocks " + k["blocks"] + ")" if k.get("blocks") else ""), "kiln": k["tflops"],
                     "rel_l2": k["rel_l2"], "cudnn": cudnn, "fa2": fa2, "ratio": k["tflops"] / cudnn if cudnn else None})
    return rows


def markdown(rows):
    fmt = lambda v, spec: format(v, spec) if v is not None else "n/a"
    out = ["| kind | shape (B x H x Sq x Sk, d, KV heads) | mask | kiln TFLOP/s | cuDNN | FA2 | kiln / cuDNN | rel L2 (kiln vs f64) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        out.append(f'| {r["dtype"]} | {r["shape"]} | {r["mask"]} | {r["kiln"]:.1f} | {fmt(r["cudnn"], ".1f")} | {fmt(r["fa2"], ".1f")} | '
                   f'**{fmt(r["ratio"], ".2f")}** | {r["rel_l2"]:.1e} |')
    return "\n".join(out) + "\n"


def plot(rows, dst):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f'{r["dtype"]} {r["shape"]} {r["mask"]}' for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(14, 5))
    w = 0.4
    ax.bar([i - w / 2 for i in x], [r["kiln"] for r in rows], w, label="kiln (precision fast)")
    ax.bar([i + w / 2 for i in x], [r["cudnn"] or 0 for r in rows], w, label="cuDNN (torch SDPA)")
    for i, r in zip(x, rows):
        if r["ratio"]:
            ax.text(i, max(r["kiln"], r["cudnn"]) + 8, f'{r["ratio"]:.2f}x', ha="center", fontsize=7)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=7)
    ax.set_ylabel("TFLOP/s")
    ax.set_title("FlashAttention forward on an H200: kiln vs cuDNN, same run (kiln / cuDNN above each pair)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    rows = table(argv[1], argv[2])
    md = markdown(rows)
    print(md, end="")
    if len(argv) > 3:
        open(argv[3], "w").write(md)
    if len(argv) > 4:
        plot(rows, argv[4])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
