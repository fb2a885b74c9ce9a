// Small row kernels the emulated target's tests share (the catalog's row kernels are
// in examples/row_kernels.h).
#pragma once

#include <kiln/kiln.h>

namespace kiln::emulated {

// y = x + 1 per row through f32 (exact for these values in any precision): a kernel
// that only moves rows, for the tests of how misaligned rows move.
template <Element T> Kernel add_one_rows() {
    return kernel("add_one_rows", [](View<const T, 2> x, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            y(origin, shape(r, c)).store(cast<T>(cast<f32>(x[origin, shape(r, c)]) + 1.0f));
        }
    });
}

// softmax as Triton ports write it: a power-of-two block of columns at least as wide
// as the row, read with -inf past its end and stored masked.
template <Element T> Kernel softmax_block(std::int64_t block) {
    return kernel("softmax_block", [=](View<const T, 2> x, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", block);
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x(origin, shape(r, c)).load(T(-INFINITY)));
            auto e = exp(v - reduce(v, c, maximum));
            y(origin, shape(r, c)).store(cast<T>(e / reduce(e, c, add)));
        }
    });
}

}  // namespace kiln::emulated
