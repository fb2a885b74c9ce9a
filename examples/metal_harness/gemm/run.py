#!/usr/bin/env python3
"""kiln's Metal harness: runs kernel.metal on this Mac's GPU with the inputs in
data/ and exits 0 only if its outputs match what kiln's interpreter computed.

Written by `kiln metal-harness`; manifest.json describes the launch (the kernel
function, threadgroups, the buffers by index) and how outputs are compared:
  - "bitwise": every element equal to the interpreter's (any NaN matches any NaN
    for f32 and f64, as in kiln's comparisons) -- the per-thread lowering;
  - "bound": every float element within its bound of the f64 reference (the
    catalog's error analysis), integers equal -- the simdgroup lowering, whose
    8x8 blocks the matrix units compute in their own order.
Needs Python 3 and PyObjC's Metal bindings (pip install pyobjc-framework-Metal).
Exit status: 0 match, 1 mismatch, 2 could not run.

`python3 run.py --shim shim/kernel.so` runs the same kernel.metal through kiln's
C++ shim instead (build it with build_shim.sh, on any machine with a C++20
compiler): there every output must match the interpreter bit for bit, in either
lowering, since the shim computes each 8x8 block in the interpreter's order.
"""
import json
import math
import os
import struct
import sys

# Element formats of kiln's kinds (little-endian); bf16 is read as its bits.
FORMATS = {"bool": "B", "i8": "b", "i32": "i", "i64": "q", "f16": "e", "bf16": "H", "f32": "f", "f64": "d"}
SIZES = {"bool": 1, "i8": 1, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}


def elements(kind, data):
    count = len(data) // SIZES[kind]
    values = struct.unpack("<%d%s" % (count, FORMATS[kind]), data[: count * SIZES[kind]])
    if kind == "bf16":
        return [struct.unpack("<f", struct.pack("<I", bits << 16))[0] for bits in values]
    return list(values)


def read(here, name):
    with open(os.path.join(here, name), "rb") as f:
        return f.read()


def describe(kind, value):
    return repr(value) if kind in ("f16", "bf16", "f32", "f64") else str(value)


def compare(output, got, here):
    """The first mismatching element of one output, described, or None."""
    kind = output["kind"]
    expected = read(here, output["expected"])
    width = SIZES[kind]
    if output["check"] == "bitwise" or kind not in ("f16", "bf16", "f32", "f64"):
        for i in range(len(expected) // width):
            a, b = got[i * width:(i + 1) * width], expected[i * width:(i + 1) * width]
            if a == b:
                continue
            x, y = elements(kind, a)[0], elements(kind, b)[0]
            if kind in ("f32", "f64") and x != x and y != y:
                continue  # NaN payloads are not part of kiln's contract
            return "element %d: device %s, interpreter %s" % (i, describe(kind, x), describe(kind, y))
        return None
    values = elements(kind, got[: len(expected)])
    reference = elements("f64", read(here, output["reference"]))
    bound = elements("f64", read(here, output["bound"]))
    for i, (x, r, e) in enumerate(zip(values, reference, bound)):
        if x == r or (math.isnan(x) and math.isnan(r)):
            continue
        if not abs(x - r) <= e:
            return "element %d: device %r, f64 reference %r, bound %r" % (i, x, r, e)
    return None


def run(here, manifest, Metal):
    device = Metal.MTLCreateSystemDefaultDevice()
    if device is None:
        print("no Metal device")
        return 2
    options = Metal.MTLCompileOptions.new()
    # Correctly rounded float arithmetic and no fused multiply-add: what kiln's
    # bit-exact lowering assumes (math mode safe from macOS 15, else no fast math).
    if hasattr(options, "setMathMode_") and hasattr(Metal, "MTLMathModeSafe"):
        options.setMathMode_(Metal.MTLMathModeSafe)
    else:
        options.setFastMathEnabled_(False)
    source = read(here, "kernel.metal").decode("utf-8")
    library, error = device.newLibraryWithSource_options_error_(source, options, None)
    if library is None:
        print("the Metal compiler rejected kernel.metal: %s" % error)
        return 2
    function = library.newFunctionWithName_(manifest["entry"])
    pipeline, error = device.newComputePipelineStateWithFunction_error_(function, None)
    if pipeline is None:
        print("no pipeline for %s: %s" % (manifest["entry"], error))
        return 2
    if manifest["lowering"] == "simdgroup" and pipeline.threadExecutionWidth() != 32:
        print("the simdgroup lowering needs 32-wide simdgroups; this GPU's are %d" % pipeline.threadExecutionWidth())
        return 2
    if pipeline.maxTotalThreadsPerThreadgroup() < manifest["threads_per_group"]:
        print("the kernel needs %d threads per threadgroup; this pipeline allows %d"
              % (manifest["threads_per_group"], pipeline.maxTotalThreadsPerThreadgroup()))
        return 2
    queue = device.newCommandQueue()
    commands = queue.commandBuffer()
    encoder = commands.computeCommandEncoder()
    encoder.setComputePipelineState_(pipeline)
    buffers = {}
    for b in manifest["buffers"]:
        data = read(here, b["file"])
        length = max(len(data), 16)  # a Metal buffer cannot be empty
        data += bytes(length - len(data))
        buf = device.newBufferWithBytes_length_options_(data, length, Metal.MTLResourceStorageModeShared)
        encoder.setBuffer_offset_atIndex_(buf, 0, b["index"])
        buffers[b["index"]] = buf
    encoder.dispatchThreadgroups_threadsPerThreadgroup_(Metal.MTLSizeMake(manifest["groups"], 1, 1),
                                                       Metal.MTLSizeMake(manifest["threads_per_group"], 1, 1))
    encoder.endEncoding()
    commands.commit()
    commands.waitUntilCompleted()
    if commands.error() is not None:
        print("the kernel failed on the device: %s" % commands.error())
        return 2
    outputs = {o["index"]: bytes(buffers[o["index"]].contents().as_buffer(o["bytes"])) for o in manifest["outputs"]}
    return report(manifest, outputs, here)


def report(manifest, outputs, here, check=None):
    """Compares each output (bytes by argument index); prints one line per output."""
    failed = 0
    for output in manifest["outputs"]:
        if check is not None:
            output = dict(output, check=check)
        problem = compare(output, outputs[output["index"]], here)
        status = "ok" if problem is None else "MISMATCH: " + problem
        print("%s argument %d (%s, %s): %s" % (manifest["name"], output["index"], output["kind"], output["check"], status))
        failed += problem is not None
    return 1 if failed else 0


def run_shim(here, manifest, library):
    """The launch on kiln's C++ shim (shim/kernel.so): every threadgroup on this thread."""
    import ctypes
    shim = ctypes.CDLL(os.path.abspath(library))
    run = shim.kiln_metal_run
    run.restype = ctypes.c_int
    run.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p, ctypes.c_long, ctypes.c_long, ctypes.c_long,
                    ctypes.c_long, ctypes.c_char_p, ctypes.c_int]
    launch_index = manifest["launch_index"]
    pointers = (ctypes.c_void_p * max(launch_index, 1))()
    keep = {}
    for b in manifest["buffers"]:
        data = read(here, b["file"])
        buf = ctypes.create_string_buffer(data, max(len(data), 16))
        keep[b["index"]] = buf
        if b["index"] != launch_index:
            pointers[b["index"]] = ctypes.cast(buf, ctypes.c_void_p)
    error = ctypes.create_string_buffer(512)
    groups = manifest["groups"]
    if run(pointers, ctypes.cast(keep[launch_index], ctypes.c_void_p), 0, groups, groups, manifest["shim_stack_bytes"], error, 512) != 0:
        print("the kernel failed in the shim: %s" % error.value.decode())
        return 2
    outputs = {o["index"]: keep[o["index"]].raw[: o["bytes"]] for o in manifest["outputs"]}
    return report(manifest, outputs, here, check="bitwise")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "manifest.json")) as f:
        manifest = json.load(f)
    if len(sys.argv) == 3 and sys.argv[1] == "--shim":
        return run_shim(here, manifest, sys.argv[2])
    if len(sys.argv) != 1:
        print("usage: python3 run.py [--shim shim/kernel.so]")
        return 2
    try:
        import Metal
    except ImportError:
        print("this harness needs macOS with PyObjC's Metal bindings: pip install pyobjc-framework-Metal")
        return 2
    return run(here, manifest, Metal)


if __name__ == "__main__":
    sys.exit(main())
