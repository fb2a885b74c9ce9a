#!/usr/bin/env python3
"""The row benchmark (scripts/gpu-rows.sh runs it on the GPU machine).

kiln's row kernels (examples/row_kernels.h, through bench/rows_bench_lib.cpp) against
the device's copy bandwidth and their peers -- Triton's tutorial softmax (inline
below), torch eager and torch.compile -- in one process, bf16 and f32, at row widths
128, 1000, 4000, 5123, 8192 and 65536 (rows chosen so that each problem moves a few
hundred MB), plus a column sum of 8192 x 32768 and a transpose of 16384 x 16384.

Every implementation's output is checked against an f64 reference (torch, float64 on
the device, from the same inputs) before it is timed; a kiln output that fails the
check is reported and not timed. Times are the median of >= 20 CUDA-event timings
after warm-up, on random inputs; TB/s counts the bytes a kernel must read and write.
Writes JSON (--out) with TB/s, the ratio to copy bandwidth and to the best peer, the
same as CSV and a markdown table beside it (rows.csv, rows.md), and a PNG plot of
bandwidth against row width (bench/plot_rows.py) when matplotlib is installed.
"""
import argparse
import csv
import ctypes
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

try:
    import triton
    import triton.language as tl
except Exception:  # noqa: BLE001 -- Triton is a peer, not a requirement
    triton = None

DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32}
LN_EPS, RMS_EPS = 1e-5, 1e-6
# (cols, rows): about 256 MB of bf16 input each, and the 32768 x 8192.
# The 32768 x 8192 first: the headline numbers come before any time limit.
WIDTHS = [(8192, 32768), (128, 1 << 20), (1000, 131072), (4000, 32768), (5123, 26000), (65536, 2048)]
KERNELS = ["softmax", "layernorm", "rmsnorm", "log_softmax", "cross_entropy", "residual_layernorm", "swiglu"]
# The same computations written as loops over column chunks (rows_bench_lib.cpp):
# asked for by name (--kernels), not in the default run.
CHUNKED = {"softmax_online": "softmax", "layernorm_chunked": "layernorm"}


# ---- kiln, through ctypes

class Kiln:
    PRECISION = {"standard": 0, "exact": 1, "fast": 2}  # rows_bench_lib.cpp's codes

    def __init__(self, path, precision="standard"):
        self.precision = self.PRECISION[precision]
        self.lib = ctypes.CDLL(path)
        self.lib.kiln_rows_prepare.restype = ctypes.c_int
        self.lib.kiln_rows_prepare.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_longlong, ctypes.c_longlong,
                                               ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int]
        self.lib.kiln_rows_launch.restype = ctypes.c_int
        self.lib.kiln_rows_launch.argtypes = [ctypes.c_int, ctypes.c_void_p]
        self.lib.kiln_rows_launch_public.restype = ctypes.c_int
        self.lib.kiln_rows_launch_public.argtypes = [ctypes.c_int, ctypes.c_int]
        self.lib.kiln_rows_plan.restype = ctypes.c_char_p
        self.lib.kiln_rows_plan.argtypes = [ctypes.c_int]
        self.lib.kiln_rows_error.restype = ctypes.c_char_p

    def prepare(self, name, kind, rows, cols, buffers):
        ptrs = (ctypes.c_void_p * len(buffers))(*[b.data_ptr() for b in buffers])
        h = self.lib.kiln_rows_prepare(name.encode(), kind.encode(), rows, cols, ptrs, len(buffers), self.precision)
        if h < 0:
            raise RuntimeError(self.lib.kiln_rows_error().decode())
        return h

    def launcher(self, handle):
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

        def run():
            if self.lib.kiln_rows_launch(handle, stream) != 0:
                raise RuntimeError(self.lib.kiln_rows_error().decode())
        return run

    def public(self, handle):
        def run():
            if self.lib.kiln_rows_launch_public(handle, self.precision) != 0:
                raise RuntimeError(self.lib.kiln_rows_error().decode())
        return run

    def plan(self, handle):
        return self.lib.kiln_rows_plan(handle).decode()


# ---- Triton's tutorial softmax (triton-lang.org, "Fused Softmax"), bf16 or f32 in memory, f32 inside

if triton is not None:
    @triton.jit
    def _softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                        num_stages: tl.constexpr):
        row_start = tl.program_id(0)
        row_step = tl.num_programs(0)
        for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
            row_start_ptr = input_ptr + row_idx * input_row_stride
            col_offsets = tl.arange(0, BLOCK_SIZE)
            mask = col_offsets < n_cols
            row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf")).to(tl.float32)
            row_minus_max = row - tl.max(row, axis=0)
            numerator = tl.exp(row_minus_max)
            denominator = tl.sum(numerator, axis=0)
            softmax_output = numerator / denominator
            output_row_start_ptr = output_ptr + row_idx * output_row_stride
            tl.store(output_row_start_ptr + col_offsets, softmax_output.to(output_ptr.dtype.element_ty), mask=mask)


def triton_softmax(x, y):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    num_warps = 8 if block < 16384 else 16
    props = torch.cuda.get_device_properties(x.device)
    num_stages = 4 if getattr(props, "shared_memory_per_block_optin", 0) > 200000 else 2
    num_programs = n_rows
    try:  # the tutorial's occupancy-sized persistent grid
        kernel = _softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block, num_stages=num_stages,
                                        num_warps=num_warps, grid=(1,))
        kernel._init_handles()
        occupancy = 65536 // (max(kernel.n_regs, 1) * 32 * num_warps)
        smem = kernel.metadata.shared
        if smem:
            occupancy = min(occupancy, props.shared_memory_per_block_optin // smem)
        num_programs = max(1, min(props.multi_processor_count * max(occupancy, 1), n_rows))
    except Exception:  # noqa: BLE001 -- an API difference: one program per row
        pass

    def run():
        _softmax_kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block, num_stages=num_stages,
                                              num_warps=num_warps)
    return run


# ---- problems: inputs, the f64 reference, kiln's buffers, the peers

_compiled = {}


def compiled(key, fn):
    """torch.compile'd fn, one per key, specialised on shapes (dynamic=False: the peer at its best per shape)."""
    if key not in _compiled:
        _compiled[key] = torch.compile(fn, dynamic=False)
    return _compiled[key]


def make_problem(name, kind, rows, cols, seed):
    """Inputs, kiln's buffers (in row_kernels.h's order), the outputs to check, the f64 reference and the peers."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = DTYPES[kind]
    dev = "cuda"

    def rand(*shape, lo=-4.0, hi=4.0):
        return (torch.rand(*shape, generator=g, device=dev, dtype=torch.float32) * (hi - lo) + lo).to(dt)

    p = {"name": name, "kind": kind, "rows": rows, "cols": cols, "peers": {}}
    name = CHUNKED.get(name, name)  # the reference and the peers of the whole-row form
    size = torch.tensor([], dtype=dt).element_size()
    if name in ("softmax", "log_softmax"):
        x = rand(rows, cols)
        y = torch.empty_like(x)
        p["buffers"], p["outputs"] = [x, y], [y]
        x64 = x.double()
        p["reference"] = lambda: [torch.softmax(x64, -1) if name == "softmax" else torch.log_softmax(x64, -1)]
        p["bytes"] = 2 * rows * cols * size
        f = torch.softmax if name == "softmax" else torch.log_softmax
        p["peers"]["torch eager"] = lambda: [f(x, -1)]
        fc = compiled(name, lambda t: f(t.float(), -1).to(t.dtype))
        p["peers"]["torch.compile"] = lambda: [fc(x)]
        if name == "softmax" and triton is not None:
            yt = torch.empty_like(x)
            run = triton_softmax(x, yt)
            p["peers"]["triton tutorial"] = lambda: (run(), [yt])[1]
    elif name == "layernorm":
        x, w, b = rand(rows, cols), rand(cols, lo=0.5, hi=1.5), rand(cols, lo=-1, hi=1)
        y = torch.empty_like(x)
        p["buffers"], p["outputs"] = [x, w, b, y], [y]
        p["reference"] = lambda: [F.layer_norm(x.double(), (cols,), w.double(), b.double(), LN_EPS)]
        p["bytes"] = 2 * rows * cols * size
        p["peers"]["torch eager"] = lambda: [F.layer_norm(x, (cols,), w, b, LN_EPS)]
        fc = compiled(name, lambda t, w, b: F.layer_norm(t.float(), (t.shape[-1],), w.float(), b.float(), LN_EPS).to(t.dtype))
        p["peers"]["torch.compile"] = lambda: [fc(x, w, b)]
    elif name == "rmsnorm":
        x, w = rand(rows, cols, lo=-2, hi=2), rand(cols, lo=0.5, hi=1.5)
        y = torch.empty_like(x)
        p["buffers"], p["outputs"] = [x, w, y], [y]
        x64 = x.double()
        p["reference"] = lambda: [x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + RMS_EPS) * w.double()]
        p["bytes"] = 2 * rows * cols * size
        if hasattr(F, "rms_norm"):
            p["peers"]["torch eager"] = lambda: [F.rms_norm(x, (cols,), w, RMS_EPS)]

        def rms(t, w):
            t = t.float()
            return (t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + RMS_EPS) * w.float()).to(w.dtype)
        fc = compiled(name, rms)
        p["peers"]["torch.compile"] = lambda: [fc(x, w)]
    elif name == "cross_entropy":
        z = rand(rows, cols)
        labels = torch.randint(0, cols, (rows,), generator=g, device=dev, dtype=torch.int64)
        loss, grad = torch.empty(rows, device=dev, dtype=torch.float32), torch.empty_like(z)
        p["buffers"], p["outputs"] = [z, labels, loss, grad], [loss, grad]
        z64 = z.double()
        onehot = lambda: F.one_hot(labels, cols)  # noqa: E731
        p["reference"] = lambda: [F.cross_entropy(z64, labels, reduction="none"), torch.softmax(z64, -1) - onehot().double()]
        p["bytes"] = 2 * rows * cols * size + rows * 12

        def ce(t, lab):
            f = t.float()
            return F.cross_entropy(f, lab, reduction="none"), (torch.softmax(f, -1) - F.one_hot(lab, f.shape[-1]).float()).to(t.dtype)
        p["peers"]["torch eager"] = lambda: list(ce(z, labels))
        fc = compiled(name, ce)
        p["peers"]["torch.compile"] = lambda: list(fc(z, labels))
    elif name == "residual_layernorm":
        x, r = rand(rows, cols, lo=-2, hi=3), rand(rows, cols, lo=-1, hi=1)
        w, b = rand(cols, lo=0.5, hi=1.5), rand(cols, lo=-1, hi=1)
        h, y = torch.empty_like(x), torch.empty_like(x)
        p["buffers"], p["outputs"] = [x, r, w, b, h, y], [h, y]
        s64 = x.double() + r.double()
        p["reference"] = lambda: [s64, F.layer_norm(s64, (cols,), w.double(), b.double(), LN_EPS)]
        p["bytes"] = 4 * rows * cols * size

        def eager():
            hs = x + r
            return [hs, F.layer_norm(hs, (cols,), w, b, LN_EPS)]
        p["peers"]["torch eager"] = eager

        def fused(x, r, w, b):
            s = x.float() + r.float()
            return s.to(x.dtype), F.layer_norm(s, (s.shape[-1],), w.float(), b.float(), LN_EPS).to(x.dtype)
        fc = compiled(name, fused)
        p["peers"]["torch.compile"] = lambda: list(fc(x, r, w, b))
    elif name == "swiglu":
        x = rand(rows, 2 * cols, lo=-5, hi=5)
        y = torch.empty(rows, cols, device=dev, dtype=dt)
        p["buffers"], p["outputs"] = [x, y], [y]
        a64, g64 = x.double()[:, :cols], x.double()[:, cols:]
        p["reference"] = lambda: [F.silu(a64) * g64]
        p["bytes"] = 3 * rows * cols * size
        p["peers"]["torch eager"] = lambda: [F.silu(x[:, :cols]) * x[:, cols:]]
        fc = compiled(name, lambda t: (F.silu(t[:, :t.shape[1] // 2].float()) * t[:, t.shape[1] // 2:].float()).to(t.dtype))
        p["peers"]["torch.compile"] = lambda: [fc(x)]
    elif name == "column_sum":
        x = rand(rows, cols, lo=-1, hi=1)
        y = torch.empty(cols, device=dev, dtype=torch.float32)
        p["buffers"], p["outputs"] = [x, y], [y]
        p["reference"] = lambda: [x.double().sum(0)]
        p["bytes"] = rows * cols * size + cols * 4
        p["peers"]["torch eager"] = lambda: [x.sum(0, dtype=torch.float32)]
        fc = compiled(name, lambda t: t.sum(0, dtype=torch.float32))
        p["peers"]["torch.compile"] = lambda: [fc(x)]
    elif name == "transpose":
        x = rand(rows, cols)
        y = torch.empty(cols, rows, device=dev, dtype=dt)
        p["buffers"], p["outputs"] = [x, y], [y]
        p["reference"] = lambda: [x.double().t()]
        p["bytes"] = 2 * rows * cols * size
        p["peers"]["torch eager"] = lambda: [x.t().contiguous()]
        fc = compiled(name, lambda t: t.t().contiguous())
        p["peers"]["torch.compile"] = lambda: [fc(x)]
    else:
        raise ValueError(name)
    return p


def check(outputs, reference):
    """Worst ratio of |out - ref| to the allowance of the output's kind, over all outputs (<= 1 passes), and the rel. L2 error."""
    worst, rel = 0.0, 0.0
    for out, ref in zip(outputs, reference):
        o = out.double()
        ref = ref.to(o.device)
        if not torch.isfinite(o).all():
            return math.inf, math.inf
        scale = ref.abs() + ref.pow(2).mean().sqrt()
        # bf16: 4 units of its last place at the output's scale; f32: 2^-12 (sums of up to 65536 terms).
        allow = (4 * 2.0 ** -8 if out.dtype == torch.bfloat16 else 2.0 ** -12) * scale
        worst = max(worst, float(((o - ref).abs() / allow).max()))
        rel = max(rel, float((o - ref).norm() / max(float(ref.norm()), 1e-300)))
    return worst, rel


def median_ms(fn, warmup=10, reps=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def copy_bandwidth():
    n = 2 << 30
    src = torch.empty(n, dtype=torch.uint8, device="cuda").fill_(1)
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src), 3, 20)
    del src, dst
    return 2.0 * n / (ms * 1e-3) / 1e12


def plan_summary(plan):
    keep = [line.strip() for line in plan.splitlines() if line.strip().startswith(("grid:", "registers:", "shared memory:"))]
    return "; ".join(keep)


def run_problem(kiln, p, copy_tbs, deadline, log):
    row = {k: p[k] for k in ("name", "kind", "rows", "cols", "bytes")}
    ref = p["reference"]()
    handle = kiln.prepare(p["name"], p["kind"], p["rows"], p["cols"], p["buffers"])
    row["kiln_plan"] = plan_summary(kiln.plan(handle))
    launch = kiln.launcher(handle)
    launch()
    torch.cuda.synchronize()
    worst, rel = check(p["outputs"], ref)
    row["kiln_check"] = {"worst_over_allowance": worst, "rel_l2": rel, "ok": worst <= 1}
    if worst <= 1:
        ms = median_ms(launch)
        row["kiln_ms"] = ms
        row["kiln_tbs"] = p["bytes"] / (ms * 1e-3) / 1e12
        row["kiln_public_launch_ms"] = median_ms(kiln.public(handle), 2, 10)
    row["peers"] = {}
    for peer, fn in p["peers"].items():
        if time.time() > deadline and peer == "torch.compile":
            row["peers"][peer] = {"skipped": "time budget"}
            continue
        try:
            outs = fn()
            torch.cuda.synchronize()
            pw, prel = check(outs, ref)
            ms = median_ms(fn)
            row["peers"][peer] = {"ms": ms, "tbs": p["bytes"] / (ms * 1e-3) / 1e12, "worst_over_allowance": pw, "rel_l2": prel}
        except Exception as e:  # noqa: BLE001 -- a peer that fails is reported, not fatal
            row["peers"][peer] = {"error": str(e).splitlines()[0][:300] if str(e) else type(e).__name__}
    best = max((v["tbs"] for v in row["peers"].values() if "tbs" in v), default=None)
    row["copy_tbs"] = copy_tbs
    if "kiln_tbs" in row:
        row["kiln_over_copy"] = row["kiln_tbs"] / copy_tbs
        if best:
            row["best_peer_tbs"] = best
            row["kiln_over_best_peer"] = row["kiln_tbs"] / best
    peers = "  ".join(f"{k} {v['tbs']:.2f}" if "tbs" in v else f"{k} {list(v)[0]}" for k, v in row["peers"].items())
    kiln_text = f"{row['kiln_tbs']:.2f} TB/s ({row['kiln_over_copy']:.2f}x copy)" if "kiln_tbs" in row else "CHECK FAILED"
    log(f"{p['name']:<19} {p['kind']:<4} {p['rows']:>8} x {p['cols']:<6} kiln {kiln_text}  check {worst:.2f}  | {peers}")
    return row


# The CSV's columns: one line per problem, each peer's TB/s in its own column.
PEER_COLUMNS = {"triton tutorial": "triton_tbs", "torch.compile": "torch_compile_tbs", "torch eager": "torch_eager_tbs"}
CSV_COLUMNS = ["kernel", "kind", "rows", "cols", "bytes", "copy_tbs", "kiln_tbs", "kiln_over_copy", "best_peer_tbs", "kiln_over_best_peer",
               *PEER_COLUMNS.values(), "kiln_check_worst", "kiln_ms", "note"]


def flat(r):
    """A result as one CSV line (empty cells where nothing was measured)."""
    out = {"kernel": r["name"], "kind": r["kind"], "rows": r["rows"], "cols": r["cols"], "bytes": r.get("bytes", "")}
    for k in ("copy_tbs", "kiln_tbs", "kiln_over_copy", "best_peer_tbs", "kiln_over_best_peer", "kiln_ms"):
        out[k] = f"{r[k]:.4g}" if k in r else ""
    for peer, col in PEER_COLUMNS.items():
        v = r.get("peers", {}).get(peer, {})
        out[col] = f"{v['tbs']:.4g}" if "tbs" in v else ""
    out["kiln_check_worst"] = f"{r['kiln_check']['worst_over_allowance']:.3g}" if "kiln_check" in r else ""
    notes = [f"{p}: {next(iter(v.values()))}" for p, v in r.get("peers", {}).items() if "tbs" not in v]
    if "error" in r:
        notes.insert(0, "ERROR " + r["error"].splitlines()[0][:200])
    elif "kiln_check" in r and not r["kiln_check"]["ok"]:
        notes.insert(0, "kiln output failed its check")
    out["note"] = "; ".join(notes)
    return out


def write_tables(results, csv_path, md_path, title):
    """rows.csv and rows.md from the results; returns the markdown."""
    lines = [flat(r) for r in results]
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        w.writerows(lines)
    head = ["kernel", "kind", "rows x cols", "kiln TB/s", "/copy", "/best peer", "Triton", "torch.compile", "torch", "note"]
    md = [f"Row benchmark: {title}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for x in lines:
        md.append("| " + " | ".join([x["kernel"], x["kind"], f"{x['rows']} x {x['cols']}", x["kiln_tbs"], x["kiln_over_copy"],
                                     x["kiln_over_best_peer"], x["triton_tbs"], x["torch_compile_tbs"], x["torch_eager_tbs"],
                                     x["note"].replace("|", "/")]) + " |")
    text = "\n".join(md) + "\n"
    with open(md_path, "w") as f:
        f.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, help="libkiln_rows_bench.so")
    ap.add_argument("--out", default="rows.json")
    ap.add_argument("--budget", type=float, default=200, help="seconds after which torch.compile peers are skipped")
    ap.add_argument("--stop", type=float, default=0, help="seconds after which no new problem starts (0: none); the rest are listed as skipped")
    ap.add_argument("--quick", action="store_true", help="a few problems only (a smoke test)")
    ap.add_argument("--kernels", default="", help="comma-separated kernels (default: all, with column_sum and transpose)")
    ap.add_argument("--kinds", default="bf16,f32", help="comma-separated storage kinds")
    ap.add_argument("--widths", default="", help="comma-separated row widths among " + ",".join(str(c) for c, _ in WIDTHS) + " (default: all)")
    ap.add_argument("--precision", choices=["standard", "fast"], default="standard",
                    help="kiln's precision (fast: f32 exp and division on the hardware's approximations, as Triton's and torch.compile's)")
    ap.add_argument("--no-peers", action="store_true", help="kiln and copy bandwidth only (A/B runs of kiln's own knobs)")
    args = ap.parse_args()
    start = time.time()
    deadline = start + args.budget
    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    torch.manual_seed(0)
    # One compiled function per kernel, recompiled per shape and kind (12 of each): above dynamo's default limit of 8.
    for knob in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit", "accumulated_recompile_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, max(getattr(torch._dynamo.config, knob), 256))
    kiln = Kiln(args.lib, args.precision)
    props = torch.cuda.get_device_properties(0)
    copy_tbs = copy_bandwidth()
    log(f"{props.name}, torch {torch.__version__}, triton {triton.__version__ if triton else 'absent'}; device copy {copy_tbs:.2f} TB/s")
    problems = []
    widths = WIDTHS if not args.quick else [(8192, 4096), (5123, 1000), (128, 65536)]
    if args.widths:
        wanted = [int(w) for w in args.widths.split(",")]
        unknown = [w for w in wanted if w not in dict(WIDTHS)]
        if unknown:
            ap.error(f"--widths: {unknown} not among {[c for c, _ in WIDTHS]}")
        widths = [(c, r) for c, r in widths if c in wanted]
    kernels = args.kernels.split(",") if args.kernels else KERNELS + ["column_sum", "transpose"]
    known = KERNELS + list(CHUNKED) + ["column_sum", "transpose"]
    unknown = [k for k in kernels if k not in known]
    if unknown:
        ap.error(f"--kernels: {unknown} not among {known}")
    for kind in args.kinds.split(","):
        if kind not in DTYPES:
            ap.error(f"--kinds: {kind} is not bf16 or f32")
        for cols, rows in widths:
            for name in KERNELS + list(CHUNKED):
                if name in kernels:
                    problems.append((name, kind, rows, cols))
        if "column_sum" in kernels:
            problems.append(("column_sum", kind, 8192, 32768))
        if "transpose" in kernels:
            problems.append(("transpose", kind, 16384, 16384))
    # bf16 first: the headline numbers come before any time budget runs out.
    results = []
    for i, (name, kind, rows, cols) in enumerate(problems):
        if args.stop and time.time() - start > args.stop:
            log(f"{name} {kind} {rows}x{cols}: skipped (--stop {args.stop:.0f} s reached)")
            results.append({"name": name, "kind": kind, "rows": rows, "cols": cols, "error": f"skipped: --stop {args.stop:.0f} s reached"})
            continue
        try:
            p = make_problem(name, kind, rows, cols, seed=1000 + i)
            if args.no_peers:
                p["peers"] = {}
            results.append(run_problem(kiln, p, copy_tbs, deadline, log))
        except Exception as e:  # noqa: BLE001 -- one problem's failure is reported, the rest still run
            log(f"{name} {kind} {rows}x{cols}: ERROR {e}")
            results.append({"name": name, "kind": kind, "rows": rows, "cols": cols, "error": str(e)})
        finally:
            p = None
            torch.cuda.empty_cache()
    skipped = [r for r in results if r.get("error", "").startswith("skipped")]
    failed = [r for r in results if r not in skipped and ("error" in r or not r.get("kiln_check", {}).get("ok", False))]
    log(f"{len(results)} problems, {len(failed)} failed their check or errored, {len(skipped)} skipped; {time.time() - start:.0f} s")
    with open(args.out, "w") as f:
        json.dump({"device": props.name, "precision": args.precision, "torch": torch.__version__, "triton": triton.__version__ if triton else None,
                   "copy_tbs": copy_tbs, "seconds": time.time() - start, "results": results}, f, indent=1)
    base = os.path.splitext(args.out)[0]
    table = write_tables(results, base + ".csv", base + ".md",
                         f"{props.name}, copy {copy_tbs:.2f} TB/s" + (f", kiln in precision {args.precision}" if args.precision != "standard" else ""))
    print(table)
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import plot_rows
        plot_rows.plot(base + ".csv", base + ".png")
        log(f"plot: {base}.png")
    except ImportError as e:
        log(f"no plot ({e}): run `python3 bench/plot_rows.py {os.path.basename(base)}.csv rows.png` where matplotlib is")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
