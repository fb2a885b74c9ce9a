"""kiln: tile kernels written in C++, launched from Python on any DLPack tensor.

    import kiln, torch
    softmax = kiln.load_library("build/libmy_kernels.so").softmax   # or kiln.catalog("softmax_norm")
    x = torch.randn(4096, 128); y = torch.empty_like(x); softmax(x, y)

Tensors (PyTorch, NumPy, CuPy, kiln.Tensor) are used where they are, without
copying: host memory runs on kiln's cpu target, CUDA memory on its cuda target,
enqueued on the tensor library's current stream.
"""

import builtins as _builtins
import sys as _sys

from . import _kiln
from ._kiln import Error, Tensor, empty

__all__ = ["Error", "Kernel", "Library", "Tensor", "catalog", "empty", "from_dlpack", "ir", "list", "load_library", "plan", "source",
           "torch_op"]


def list():
    """The catalog's entries, as (name, description) pairs."""
    return _kiln.catalog()


def plan(name, target="cpu", size="small", precision="standard"):
    """The schedule a target makes for a catalog entry's kernel (`kiln plan`)."""
    return _kiln.describe_entry("plan", name, target, size, precision)


def source(name, target="cpu", size="small", precision="standard"):
    """The code a target generates for a catalog entry's kernel (`kiln source`)."""
    return _kiln.describe_entry("source", name, target, size, precision)


def ir(name, size="small"):
    """The Tile IR of a catalog entry's kernel (`kiln ir`)."""
    return _kiln.describe_entry("ir", name, "interp", size, "standard")


def from_dlpack(obj):
    """A kiln.Tensor viewing obj's memory (anything with __dlpack__), without copying."""
    return _kiln.tensor_from_capsule(_capsule(obj, None))


def _current_stream(obj, device_id):
    """The CUDA stream obj's library is currently using (its handle; 0 is the legacy default stream)."""
    torch = _sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return torch.cuda.current_stream(device_id).cuda_stream
    cupy = _sys.modules.get("cupy")
    if cupy is not None and isinstance(obj, cupy.ndarray):
        with cupy.cuda.Device(device_id):
            return cupy.cuda.get_current_stream().ptr
    return 0


def _capsule(obj, stream):
    """obj.__dlpack__(), asking for the versioned form; for CUDA memory, ordered on `stream`."""
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"kiln: a {type(obj).__name__} is not a tensor (it has no __dlpack__)")
    kwargs = {}
    if stream is not None:
        kwargs["stream"] = 1 if stream == 0 else stream  # DLPack spells the legacy default stream 1
    try:
        return obj.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:
        return obj.__dlpack__(**kwargs)


_CUDA_DEVICES = (2, 13)  # kDLCUDA, kDLCUDAManaged


class Kernel:
    """A kernel compiled from C++: call it with tensors and numbers in its parameters' order."""

    def __init__(self, handle):
        self._handle = handle

    @property
    def name(self):
        return self._handle.name

    @property
    def params(self):
        """Each parameter: name, spelling (View<const f32, 2>), is_view, writable, kind, rank."""
        return self._handle.params

    def _arguments(self, args):
        """Capsules and numbers, and the CUDA stream the tensors' libraries are using (or None)."""
        if len(args) != len(self.params):
            raise TypeError(f"kiln: kernel '{self.name}' takes {len(self.params)} arguments, got {len(args)}")
        stream = None
        for a in args:
            if hasattr(a, "__dlpack_device__"):
                kind, device_id = a.__dlpack_device__()
                if kind in _CUDA_DEVICES and stream is None:
                    stream = _current_stream(a, device_id)
        out = []
        for a in args:
            if isinstance(a, (_builtins.bool, int, float)):
                out.append(a)
            else:
                out.append(_capsule(a, stream))
        return out, stream

    def __call__(self, *args, target="", precision="standard"):
        """Launches on the tensors' memory: CUDA launches are enqueued on the current stream."""
        capsules, stream = self._arguments(args)
        self._handle.launch(capsules, target, precision, stream)

    def ir(self, *args):
        return self._handle.describe("ir", self._arguments(args)[0], "interp", "standard")

    def plan(self, *args, target="", precision="standard"):
        return self._handle.describe("plan", self._arguments(args)[0], target, precision)

    def source(self, *args, target="", precision="standard"):
        return self._handle.describe("source", self._arguments(args)[0], target, precision)

    def __repr__(self):
        params = ", ".join(f"{p['spelling']} {p['name']}" for p in self.params)
        return f"<kiln kernel {self.name}({params})>"


class Library:
    """The kernels a shared library exports (KILN_EXPORT_KERNEL), as attributes."""

    def __init__(self, kernels, path):
        self._kernels = {k.name: k for k in kernels}
        self.path = path

    def __getattr__(self, name):
        try:
            return self._kernels[name]
        except KeyError:
            raise AttributeError(f"kiln: {self.path} exports no kernel '{name}' (it exports: {', '.join(self._kernels)})") from None

    def __dir__(self):
        return _builtins.list(self._kernels)

    def __iter__(self):
        return iter(self._kernels.values())


def load_library(path):
    """Loads a shared library of exported kernels (kiln/export.h)."""
    return Library([Kernel(h) for h in _kiln.load_library(str(path))], str(path))


_catalog = None


def catalog(name):
    """A catalog entry's kernel (`kiln.list()` names them)."""
    global _catalog
    if _catalog is None:
        _catalog = {h.name: Kernel(h) for h in _kiln.catalog_kernels()}
    try:
        return _catalog[name]
    except KeyError:
        raise ValueError(f"kiln: no catalog kernel named '{name}'") from None


def torch_op(kernel, namespace="kiln", name=None, precision="standard"):
    """Registers a kernel as a torch.library custom op (see kiln.torch_ops)."""
    from .torch_ops import register
    return register(kernel, namespace=namespace, name=name, precision=precision)
