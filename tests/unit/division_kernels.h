// Kernels and helpers the division tests share (tests/unit/cuda_inline_division_test.cpp,
// tests/emulated/emulated_inline_division_test.cpp, emulated_shared_divisor_test.cpp).
#pragma once

#include <cstdlib>
#include <string>

#include <kiln/kiln.h>

namespace kiln::division_tests {

// y = a / b elementwise, a row per program instance.
inline Kernel divide_rows() {
    return kernel("divide_rows", [](View<const f32, 2> a, View<const f32, 2> b, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", a.extent(1));
        for (auto& nest : parallel(shape(axis("rows", a.extent(0))))) {
            auto origin = coord(nest.index(), 0);
            y(origin, shape(r, c)).store(a[origin, shape(r, c)] / b[origin, shape(r, c)]);
        }
    });
}

// Whether the environment variable `name` is "1" (a knob a ctest entry turns on).
inline bool knob_on(const char* name) {
    const char* v = std::getenv(name);
    return v && std::string(v) == "1";
}

}  // namespace kiln::division_tests
