// Shared by the interop tests: a softmax kernel, its f64 reference, and a way to
// catch a kiln::Error's message.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace kiln::interop_test {

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

// Deterministic inputs in [-4, 4).
inline Tensor<f32> inputs(std::int64_t rows, std::int64_t cols, unsigned seed = 1) {
    Tensor<f32> x({rows, cols});
    unsigned s = seed;
    for (auto& v : x.values()) {
        s = s * 1664525u + 1013904223u;
        v = static_cast<float>((s >> 8) % 8000) / 1000.0f - 4.0f;
    }
    return x;
}

inline std::vector<double> softmax_reference(const Tensor<f32>& x) {
    std::int64_t rows = x.extent(0), cols = x.extent(1);
    std::vector<double> y(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i) {
        double peak = -INFINITY, total = 0;
        for (std::int64_t j = 0; j < cols; ++j) peak = std::max(peak, static_cast<double>(x[i * cols + j]));
        for (std::int64_t j = 0; j < cols; ++j) total += std::exp(x[i * cols + j] - peak);
        for (std::int64_t j = 0; j < cols; ++j) y[static_cast<std::size_t>(i * cols + j)] = std::exp(x[i * cols + j] - peak) / total;
    }
    return y;
}

template <class F> std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace kiln::interop_test
