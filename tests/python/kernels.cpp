// Kernels a user's shared library exports (kiln/export.h), for the Python tests:
// loaded with kiln.load_library and registered as torch custom ops.
#include <kiln/export.h>

#include "tests/gpu/interop_kernels.h"

using namespace kiln;

namespace {

// out = a * x + y, 1-D, in blocks of 64.
Kernel saxpy = kernel("saxpy", [](View<const f32, 1> x, View<const f32, 1> y, View<f32, 1> out, Scalar<f32> a) {
    auto blocks = axis("blocks", ceil_div(x.extent(0), 64));
    auto b = axis("b", 64);
    for (auto& nest : parallel(shape(blocks))) {
        auto at = coord(nest.index() * 64);
        out(at, shape(b)).store(a * x[at, shape(b)] + y[at, shape(b)]);
    }
});

// Row softmax and a bf16 GEMM: the GPU interop check's kernels (tests/gpu).
Kernel softmax = gpu_check::softmax_kernel();
Kernel gemm_bf16 = gpu_check::gemm_kernel();

// y = x + 1 over i64, any 2-D strides (exercises strided and integer tensors).
Kernel increment = kernel("increment", [](View<const i64, 2> x, View<i64, 2> y) {
    auto rows = axis("rows", x.extent(0));
    auto r = axis("r", 1), c = axis("c", x.extent(1));
    for (auto& nest : parallel(shape(rows))) {
        auto at = coord(nest.index(), 0);
        y(at, shape(r, c)).store(x[at, shape(r, c)] + 1);
    }
});

}  // namespace

KILN_EXPORT_KERNEL(saxpy, "x", "y", "out", "a");
KILN_EXPORT_KERNEL(softmax, "x", "y");
KILN_EXPORT_KERNEL(increment);
KILN_EXPORT_KERNEL(gemm_bf16, "a", "b", "c");
