"""The GPU interop check's Python side (scripts/gpu-interop-check.sh runs it).

kiln kernels called from PyTorch on CUDA tensors on a non-default stream, compared
bit for bit with the same kernels launched from C++ (kiln_interop_reference), then
captured in a CUDA graph and replayed 100 times on changing inputs; launches that
return without waiting and overlap across streams; DLPack both ways on the device;
torch.compile around the custom op. Writes JSON to
argv[1]. Needs torch with CUDA, the kiln package on PYTHONPATH, KILN_TEST_KERNELS
(the exported library) and KILN_INTEROP_REFERENCE (the C++ program).
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import torch

import kiln

results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "checks": []}


def check(name, ok, **detail):
    results["checks"].append({"name": name, "ok": bool(ok), **detail})
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail if detail else ''}", flush=True)


def cxx_launch(kind, dims, inputs, out_shape, out_dtype):
    """The same kernel launched by the C++ program on the same inputs."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, t in enumerate(inputs):
            p = os.path.join(d, f"in{i}.bin")
            t.detach().cpu().contiguous().view(torch.uint8).numpy().tofile(p)
            paths.append(p)
        out = os.path.join(d, "out.bin")
        subprocess.run([os.environ["KILN_INTEROP_REFERENCE"], kind, *map(str, dims), *paths, out], check=True)
        raw = torch.from_file(out, size=torch.Size(out_shape).numel() * out_dtype.itemsize, dtype=torch.uint8)
        return raw.view(out_dtype).reshape(out_shape)


lib = kiln.load_library(os.environ["KILN_TEST_KERNELS"])
softmax_op = kiln.torch_op(lib.softmax, namespace="kiln_gpu")
gemm_op = kiln.torch_op(lib.gemm_bf16, namespace="kiln_gpu")
torch.manual_seed(0)
side = torch.cuda.Stream()

# 1. Softmax and GEMM from PyTorch on a side stream, equal to the C++ launches.
rows, cols = 4096, 1000
m, n, k = 1024, 1024, 512
x = torch.randn(rows, cols, device="cuda")
a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
b = torch.randn(k, n, device="cuda").to(torch.bfloat16)
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    y = torch.empty_like(x)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    lib.softmax(x, y)          # enqueued on `side`: no synchronisation here
    gemm_op(a, b, c)           # the torch custom op, same stream
torch.cuda.current_stream().wait_stream(side)
torch.cuda.synchronize()
y_cxx = cxx_launch("softmax", [rows, cols], [x], [rows, cols], torch.float32)
c_cxx = cxx_launch("gemm", [m, n, k], [a, b], [m, n], torch.bfloat16)
check("softmax on a side stream equals the C++ launch", torch.equal(y.cpu(), y_cxx))
check("softmax close to torch.softmax", torch.allclose(y, torch.softmax(x, dim=1), rtol=1e-5, atol=1e-6),
      max_abs=float((y - torch.softmax(x, dim=1)).abs().max()))
check("gemm op on a side stream equals the C++ launch", torch.equal(c.cpu(), c_cxx))
ref = (a.float() @ b.float())
check("gemm close to an f32 matmul", torch.allclose(c.float(), ref, rtol=2e-2, atol=2e-2),
      rel_l2=float((c.float() - ref).norm() / ref.norm()))
check("gemm plan uses the Hopper kernel", "lowering" in lib.gemm_bf16.plan(a, b, c), plan=lib.gemm_bf16.plan(a, b, c).splitlines()[:4])

# 2. Captured in a CUDA graph on the side stream, replayed 100 times on new inputs.
gx = torch.randn(rows, cols, device="cuda")
gy = torch.empty_like(gx)
ga, gb = a.clone(), b.clone()
gc = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
with torch.cuda.stream(side):  # warm: compiled and loaded before capture
    softmax_op(gx, gy)
    gemm_op(ga, gb, gc)
torch.cuda.synchronize()
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph, stream=side):
    softmax_op(gx, gy)
    gemm_op(ga, gb, gc)
replays_ok, start = True, time.perf_counter()
for r in range(100):
    gx.copy_(torch.randn(rows, cols, device="cuda"))
    if r % 25 == 0:
        ga.copy_(torch.randn(m, k, device="cuda").to(torch.bfloat16))
    graph.replay()
    if r % 10 == 9:
        torch.cuda.synchronize()
        want = torch.empty_like(gx)
        lib.softmax(gx, want)
        want_c = torch.empty_like(gc)
        lib.gemm_bf16(ga, gb, want_c)
        torch.cuda.synchronize()
        replays_ok &= torch.equal(gy, want) and torch.equal(gc, want_c)
torch.cuda.synchronize()
check("CUDA graph of both kernels replayed 100 times equals direct launches", replays_ok,
      seconds=time.perf_counter() - start)

# 3. Asynchronous: behind a long sleep on a stream, a kiln launch on it returns at
#    once, leaving the stream busy (no synchronisation of the stream or the context);
#    a kiln launch on a second stream finishes while the first is still asleep (the
#    streams overlap). torch.cuda._sleep spins for a number of clock cycles.
sleep_cycles = 2_000_000_000  # ~1 s at the H200's ~2 GHz: far longer than any launch's host cost
busy, other = torch.cuda.Stream(), torch.cuda.Stream()
y_busy, y_other = torch.empty_like(x), torch.empty_like(x)
torch.cuda.synchronize()
with torch.cuda.stream(busy):
    torch.cuda._sleep(sleep_cycles)
    start = time.perf_counter()
    lib.softmax(x, y_busy)
    enqueue_s = time.perf_counter() - start
    still_busy = not busy.query()
with torch.cuda.stream(other):
    lib.softmax(x, y_other)
other.synchronize()
overlapped = not busy.query()
torch.cuda.synchronize()
check("a launch behind a sleeping stream returns without waiting", still_busy and enqueue_s < 0.1, enqueue_ms=enqueue_s * 1e3)
check("a launch on a second stream completes while the first still sleeps", overlapped)
check("both asynchronous launches equal the first", torch.equal(y_busy, y) and torch.equal(y_other, y))

# 4. DLPack both ways on the device: a torch CUDA tensor as a kiln.Tensor and back is
#    the same memory, and a kiln launch on the kiln.Tensor writes the torch tensor.
xt = torch.randn(rows, cols, device="cuda")
yt = torch.zeros_like(xt)
kx, ky = kiln.from_dlpack(xt), kiln.from_dlpack(yt)
back = torch.from_dlpack(ky)
check("torch -> kiln -> torch on CUDA is the same memory", back.data_ptr() == yt.data_ptr() and back.device == yt.device,
      kiln_device=list(ky.__dlpack_device__()))
lib.softmax(kx, ky)
torch.cuda.synchronize()
want = torch.empty_like(xt)
lib.softmax(xt, want)
torch.cuda.synchronize()
check("a launch on kiln.Tensors imported from torch writes the torch tensor", torch.equal(yt, want) and torch.equal(back, want))

# 5. torch.compile traces around the custom op.
def doubled_softmax(t):
    out = torch.empty_like(t)
    softmax_op(t, out)
    return out * 2


got = torch.compile(doubled_softmax, fullgraph=True)(x)
want = torch.empty_like(x)
lib.softmax(x, want)
check("torch.compile around the custom op", torch.equal(got, want * 2))

results["ok"] = all(c["ok"] for c in results["checks"])
with open(sys.argv[1], "w") as f:
    json.dump(results, f, indent=2)
print(f"{sum(c['ok'] for c in results['checks'])} passed, {sum(not c['ok'] for c in results['checks'])} failed")
sys.exit(0 if results["ok"] else 1)
