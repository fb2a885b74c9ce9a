"""kiln kernels as torch.library custom ops.

A kiln kernel writes its outputs into tensors it is given, so its op mutates
those arguments and returns nothing: `softmax(Tensor x, Tensor(a!) y) -> ()`.
The fake (meta) implementation has nothing to compute, so torch.compile traces
around the op and calls it at run time on the real tensors.
"""

import torch

_libraries = {}
_SCALAR_TYPES = {"f16": "float", "bf16": "float", "f32": "float", "f64": "float", "i8": "int", "i32": "int", "i64": "int",
                 "bool": "bool"}


def schema(kernel, name):
    """The op's schema: views are Tensors, written ones aliased and mutated (a!, b!, ...)."""
    params, alias = [], 0
    for p in kernel.params:
        if p["is_view"]:
            if p["writable"]:
                params.append(f"Tensor({chr(ord('a') + alias)}!) {p['name']}")
                alias += 1
            else:
                params.append(f"Tensor {p['name']}")
        else:
            params.append(f"{_SCALAR_TYPES[p['kind']]} {p['name']}")
    return f"{name}({', '.join(params)}) -> ()"


def register(kernel, namespace="kiln", name=None, precision="standard"):
    """Defines namespace::name for the kernel on CPU and CUDA, with its fake; returns torch.ops.namespace.name."""
    name = name or kernel.name
    if namespace not in _libraries:
        _libraries[namespace] = torch.library.Library(namespace, "FRAGMENT")
    lib = _libraries[namespace]
    lib.define(schema(kernel, name))

    def run(*args):
        kernel(*args, precision=precision)

    lib.impl(name, run, "CPU")
    lib.impl(name, run, "CUDA")

    def fake(*args):
        return None

    torch.library.register_fake(f"{namespace}::{name}", fake, lib=lib)
    return getattr(getattr(torch.ops, namespace), name)
