// The row kernels of the catalog and of the row benchmark (bench/rows_bench.cpp),
// written once as a user writes them: one row per program instance, the storage
// kind T (bf16 or f32) in memory, f32 math inside, parameter vectors loaded as [C]
// tiles and broadcast over the row. The catalog checks the bf16 forms; the
// benchmark times both.
#pragma once

#include <kiln/kiln.h>

namespace kiln::catalog::rows {

inline constexpr float kLayerNormEpsilon = 1e-5f;
inline constexpr float kRmsNormEpsilon = 1e-6f;

// y = softmax(x) per row.
template <Element T> Kernel softmax() {
    return kernel("softmax_rows", [](View<const T, 2> x, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto e = exp(v - reduce(v, c, maximum));
            y(origin, shape(r, c)).store(cast<T>(e / reduce(e, c, add)));
        }
    });
}

// y = LayerNorm(x) * weight + bias per row (two-pass variance, 1/sqrt as rsqrt).
template <Element T> Kernel layernorm_affine() {
    return kernel("layernorm_affine", [](View<const T, 2> x, View<const T, 1> weight, View<const T, 1> bias, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.template extent<1>());
        const float inv_n = 1.0f / static_cast<float>(x.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto centred = v - reduce(v, c, add) * inv_n;
            auto inv_std = rsqrt(reduce(centred * centred, c, add) * inv_n + kLayerNormEpsilon);
            auto w = cast<f32>(weight[coord(0), shape(c)]);
            auto b = cast<f32>(bias[coord(0), shape(c)]);
            y(origin, shape(r, c)).store(cast<T>(centred * inv_std * w + b));
        }
    });
}

// y = x * rsqrt(mean(x^2) + eps) * weight per row.
template <Element T> Kernel rmsnorm_weighted() {
    return kernel("rmsnorm_weighted", [](View<const T, 2> x, View<const T, 1> weight, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.template extent<1>());
        const float inv_n = 1.0f / static_cast<float>(x.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto inv_rms = rsqrt(reduce(v * v, c, add) * inv_n + kRmsNormEpsilon);
            y(origin, shape(r, c)).store(cast<T>(v * inv_rms * cast<f32>(weight[coord(0), shape(c)])));
        }
    });
}

// y = x - max - log(sum(exp(x - max))) per row.
template <Element T> Kernel log_softmax() {
    return kernel("log_softmax", [](View<const T, 2> x, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto shifted = v - reduce(v, c, maximum);
            y(origin, shape(r, c)).store(cast<T>(shifted - log(reduce(exp(shifted), c, add))));
        }
    });
}

// Per row: loss = log(sum(exp(z))) - z[label] (in the max-shifted form), and its
// gradient softmax(z) - one_hot(label). The labelled logit is a masked sum (one
// nonzero term, so exact in any order): no gather.
template <Element T> Kernel cross_entropy() {
    return kernel("cross_entropy", [](View<const T, 2> logits, View<const i64, 1> labels, View<f32, 1> loss, View<T, 2> gradient) {
        auto r = axis("r", 1), c = axis("c", logits.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", logits.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto z = cast<f32>(logits[origin, shape(r, c)]);
            auto label = labels[coord(nest.index()), shape(r)];
            auto peak = reduce(z, c, maximum);
            auto e = exp(z - peak);
            auto total = reduce(e, c, add);
            // The mask's axes are (r, c), those of the row; iota(c) == label, a (c, r) tile,
            // is as fast (unit axes hold no order: src/passes/cuda_layout.cpp).
            auto hit = label == iota(c);
            auto picked = reduce(ite(hit, z, 0.0f), c, add);
            loss(coord(nest.index()), shape(r)).store(log(total) + peak - picked);
            gradient(origin, shape(r, c)).store(cast<T>(e / total - ite(hit, 1.0f, 0.0f)));
        }
    });
}

// h = x + residual (stored), y = LayerNorm(h) * weight + bias per row, h in f32.
template <Element T> Kernel residual_layernorm() {
    return kernel("residual_layernorm_affine", [](View<const T, 2> x, View<const T, 2> residual, View<const T, 1> weight, View<const T, 1> bias,
                                                  View<T, 2> h, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.template extent<1>());
        const float inv_n = 1.0f / static_cast<float>(x.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto sum = cast<f32>(x[origin, shape(r, c)]) + cast<f32>(residual[origin, shape(r, c)]);
            h(origin, shape(r, c)).store(cast<T>(sum));
            auto centred = sum - reduce(sum, c, add) * inv_n;
            auto inv_std = rsqrt(reduce(centred * centred, c, add) * inv_n + kLayerNormEpsilon);
            y(origin, shape(r, c)).store(cast<T>(centred * inv_std * cast<f32>(weight[coord(0), shape(c)]) + cast<f32>(bias[coord(0), shape(c)])));
        }
    });
}

// y = silu(a) * g with a and g the two halves of each row of x ([R, 2C] -> [R, C]).
template <Element T> Kernel swiglu() {
    return kernel("swiglu", [](View<const T, 2> x, View<T, 2> y) {
        auto r = axis("r", 1), c = axis("c", y.template extent<1>());
        auto half = y.template extent<1>();
        for (auto& nest : parallel(shape(axis("rows", x.template extent<0>())))) {
            auto row = nest.index();
            auto a = cast<f32>(x[coord(row, 0), shape(r, c)]);
            auto g = cast<f32>(x[coord(row, half), shape(r, c)]);
            y(coord(row, 0), shape(r, c)).store(cast<T>(a / (1.0f + exp(-a)) * g));
        }
    });
}

// y[c] = sum over rows of x[r, c], f32 accumulation: each program owns kColumns
// columns and walks the rows kRows at a time, adding whole tiles (each element of
// the accumulator sums its rows in order), then reduces the accumulator's rows.
inline constexpr std::uint32_t kColumnSumRows = 128, kColumnSumColumns = 64;
template <Element T> Kernel column_sum() {
    return kernel("column_sum", [](View<const T, 2> x, View<f32, 1> y) {
        auto r = axis("r", kColumnSumRows), c = axis("c", kColumnSumColumns);
        auto blocks = axis("column_blocks", ceil_div(x.template extent<1>(), kColumnSumColumns));
        auto steps = axis("row_blocks", ceil_div(x.template extent<0>(), kColumnSumRows));
        for (auto& nest : parallel(shape(blocks))) {
            auto c0 = nest.index() * kColumnSumColumns;
            auto acc = zeros<f32>(shape(r, c));
            for (auto& step : nest.serial(shape(steps))) acc = acc + cast<f32>(x[coord(step.index() * kColumnSumRows, c0), shape(r, c)]);
            y(coord(c0), shape(c)).store(reduce(acc, r, add));
        }
    });
}

}  // namespace kiln::catalog::rows
