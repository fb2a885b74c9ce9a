// Row kernels written as loops over column chunks, as Triton users write rows wider
// than a block: the same computations as row_kernels.h's whole-row softmax and
// LayerNorm. The row benchmark times them against the whole-row forms
// (bench/rows_bench_lib.cpp) and the emulated target checks the loop prefetch on them
// (tests/emulated/emulated_loop_prefetch_test.cpp). A ragged last chunk is masked.
#pragma once

#include <cmath>
#include <cstdint>

#include <kiln/kiln.h>

#include "examples/row_kernels.h"

namespace kiln::catalog::rows {

// softmax with an online running maximum and sum over chunks of `chunk` columns
// (a serial loop), then a write pass (a pipeline loop of window 2, as Triton ports
// write the second pass).
template <Element T> Kernel softmax_online(std::int64_t chunk) {
    return kernel("softmax_online", [=](View<const T, 2> x, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", chunk);
        auto chunks = axis("chunks", ceil_div(x.template extent<1>(), chunk));
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto row = nest.index();
            auto m = full<f32>(shape(r), -INFINITY);
            auto s = zeros<f32>(shape(r));
            for (auto& step : nest.serial(shape(chunks))) {
                auto v = cast<f32>(x(coord(row, step.index() * chunk), shape(r, c)).load(T(-INFINITY)));
                auto m_new = max(m, reduce(v, c, maximum));
                s = s * exp(m - m_new) + reduce(exp(v - m_new), c, add);
                m = m_new;
            }
            for (auto& step : nest.pipeline(shape(chunks), {.window = 2})) {
                auto at = coord(row, step.index() * chunk);
                y(at, shape(r, c)).store(cast<T>(exp(cast<f32>(x[at, shape(r, c)]) - m) / s));
            }
        }
    });
}

// LayerNorm with weight and bias: per-lane sums of x and x^2 carried over the chunks,
// then a write pass reading the row, the weight and the bias chunk by chunk.
template <Element T> Kernel layernorm_chunked(std::int64_t chunk) {
    return kernel("layernorm_chunked", [=](View<const T, 2> x, View<const T, 1> weight, View<const T, 1> bias, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", chunk);
        auto chunks = axis("chunks", ceil_div(x.template extent<1>(), chunk));
        const float inv_n = 1.0f / static_cast<float>(x.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto row = nest.index();
            auto s1 = zeros<f32>(shape(r, c));
            auto s2 = zeros<f32>(shape(r, c));
            for (auto& step : nest.serial(shape(chunks))) {
                auto v = cast<f32>(x[coord(row, step.index() * chunk), shape(r, c)]);
                s1 = s1 + v;
                s2 = s2 + v * v;
            }
            auto mean = reduce(s1, c, add) * inv_n;
            auto inv_std = rsqrt(reduce(s2, c, add) * inv_n - mean * mean + kLayerNormEpsilon);
            for (auto& step : nest.serial(shape(chunks))) {
                auto c0 = step.index() * chunk;
                auto w = cast<f32>(weight[coord(c0), shape(c)]);
                auto b = cast<f32>(bias[coord(c0), shape(c)]);
                y(coord(row, c0), shape(r, c)).store(cast<T>((cast<f32>(x[coord(row, c0), shape(r, c)]) - mean) * inv_std * w + b));
            }
        }
    });
}

}  // namespace kiln::catalog::rows
