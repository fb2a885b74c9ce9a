// The kernels of the GPU interop check (scripts/gpu-interop-check.sh), shared by
// the exported library the Python side loads (tests/python/kernels.cpp) and the
// C++ program that launches them the C++ way (interop_reference.cpp), so that
// both run the same definitions.
#pragma once

#include <kiln/kiln.h>

namespace kiln::gpu_check {

// Row softmax of f32 rows (one instance per row; the row is one tile).
inline Kernel softmax_kernel() {
    return kernel("softmax", [](View<const f32, 2> x, View<f32, 2> y) {
        auto rows = axis("rows", x.extent(0));
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(rows))) {
            auto v = x[coord(nest.index(), 0), shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(coord(nest.index(), 0), shape(r, c)).store(e / reduce(e, c, add));
        }
    });
}

// C = A B, bf16 in, f32 accumulation, bf16 out: the canonical GEMM, which the
// cuda target runs on Hopper as its TMA + wgmma kernel (128 x 256 x 64 blocks).
inline Kernel gemm_kernel() {
    constexpr std::int64_t bm = 128, bn = 256, bk = 64;
    return kernel("gemm_bf16", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm)), gn = axis("block_n", ceil_div(B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 2})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

}  // namespace kiln::gpu_check
