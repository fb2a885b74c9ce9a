#!/usr/bin/env python3
"""A table comparing kiln's row benchmark under several configurations.

Usage: rows_ab.py LABEL=rows.json [LABEL=rows.json ...] (scripts/gpu-rows.sh writes them
with ROWS_AB). One line per problem: kiln's TB/s under each configuration, its ratio to
the copy bandwidth measured in the same process, and the best configuration. A
configuration whose output failed its check shows FAILED instead of a figure.
"""
import json
import sys


def main(argv):
    runs = []
    for arg in argv:
        label, _, path = arg.rpartition("=")
        with open(path) as f:
            runs.append((label or path, json.load(f)))
    keys = []
    for _, data in runs:
        for r in data["results"]:
            k = (r["name"], r["kind"], r["rows"], r["cols"])
            if k not in keys:
                keys.append(k)
    head = ["kernel", "kind", "rows x cols"] + [f"{label} TB/s (/copy)" for label, _ in runs] + ["best"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for k in keys:
        cells, best = [], (None, -1.0)
        for label, data in runs:
            r = next((r for r in data["results"] if (r["name"], r["kind"], r["rows"], r["cols"]) == k), None)
            if r is None or "error" in r:
                cells.append("-" if r is None else "error")
            elif "kiln_tbs" not in r:
                cells.append("FAILED")
            else:
                cells.append(f"{r['kiln_tbs']:.2f} ({r['kiln_over_copy']:.2f})")
                if r["kiln_tbs"] > best[1]:
                    best = (label, r["kiln_tbs"])
        print("| " + " | ".join([k[0], k[1], f"{k[2]} x {k[3]}"] + cells + [best[0] or "-"]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
