#!/usr/bin/env python3
"""Peers of kiln's attention benchmark: torch SDPA on its cuDNN and FlashAttention-2
backends, on the catalog's large attention_bf16 shapes (examples/attention_bf16.cpp),
in bf16 and f16. Each backend's output is checked against an f32 SDPA of the same
inputs first; then the median of 30 timed runs after 5 warm-ups (CUDA events),
fresh random inputs per shape. Prints and writes JSON: ms and TFLOP/s per row.

    python3 bench/attention_peers.py --out peers.json
"""
import argparse, json, statistics, sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

# (batch, heads, queries, keys, d, kv heads, causal): the large cases, in order.
SHAPES = [(4, 32, 4096, 4096, 128, 32, False), (4, 32, 4096, 4096, 128, 32, True), (4, 32, 4096, 4096, 64, 8, False),
          (2, 16, 3000, 3001, 128, 16, True), (4, 32, 4096, 4096, 256, 32, False),
          # the sequence sweep at d 128: 16k tokens a batch, full and causal
          (16, 32, 1024, 1024, 128, 32, False), (16, 32, 1024, 1024, 128, 32, True),
          (8, 32, 2048, 2048, 128, 32, False), (8, 32, 2048, 2048, 128, 32, True),
          (2, 32, 8192, 8192, 128, 32, False), (2, 32, 8192, 8192, 128, 32, True),
          (1, 32, 16384, 16384, 128, 32, False), (1, 32, 16384, 16384, 128, 32, True),
          # head dims of no whole 64-channel boxes
          (4, 32, 4096, 4096, 96, 32, False), (4, 32, 4096, 4096, 80, 32, True)]


def flops(b, h, sq, sk, d, causal):
    f = 4.0 * b * h * sq * sk * d
    return f / 2 if causal else f


def time_ms(fn, reps=30, warm=5):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtypes", default="bf16,f16")
    args = ap.parse_args()
    rows = []
    for dt_name in args.dtypes.split(","):
        dt = torch.bfloat16 if dt_name == "bf16" else torch.float16
        for (b, h, sq, sk, d, hkv, causal) in SHAPES:
            g = torch.Generator(device="cuda").manual_seed(sq * 7 + d)
            q = (torch.rand(b, h, sq, d, device="cuda", generator=g) * 4 - 2).to(dt)
            k = (torch.rand(b, hkv, sk, d, device="cuda", generator=g) * 4 - 2).to(dt)
            v = (torch.rand(b, hkv, sk, d, device="cuda", generator=g) * 2 - 1).to(dt)
            if hkv != h:
                k, v = k.repeat_interleave(h // hkv, dim=1), v.repeat_interleave(h // hkv, dim=1)
            # The reference over the first batch's first 4 heads (an f32 score matrix of
            # every head of a 16k sequence would take 34 GB).
            ref = F.scaled_dot_product_attention(q[:1, :4].float(), k[:1, :4].float(), v[:1, :4].float(), is_causal=causal)
            for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash2", SDPBackend.FLASH_ATTENTION)):
                row = {"dtype": dt_name, "shape": f"{b}x{h}x{sq}x{sk} d{d} kv{hkv}", "causal": causal, "peer": name}
                try:
                    with sdpa_kernel(backend):
                        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        err = ((out[:1, :4].float() - ref).norm() / ref.norm()).item()
                        ms = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                    row.update(ms=ms, tflops=flops(b, h, sq, sk, d, causal) / ms / 1e9, rel_l2=err)
                except Exception as ex:  # a backend that does not take this shape
                    row.update(error=str(ex).splitlines()[0][:200])
                print(json.dumps(row), flush=True)
                rows.append(row)
    with open(args.out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
