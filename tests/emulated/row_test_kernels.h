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

}  // namespace kiln::emulated
