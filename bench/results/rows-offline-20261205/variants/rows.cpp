// Row kernels written the way other ML engineers write them (variants of
// examples/row_kernels.h), to look for forms that fall onto the cuda target's slow paths.
#include <kiln/export.h>
#include <kiln/kiln.h>

#include <cmath>

#include "examples/row_kernels.h"

using namespace kiln;
using T = bf16;

namespace {

constexpr std::int64_t K = 1024;  // column chunk of the chunked forms
constexpr float kEps = 1e-5f;

// 01: softmax, stats single-pass online (running max and sum over column chunks), then a write pass.
Kernel softmax_online = kernel("v01_softmax_online", [](View<const T, 2> x, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", K);
    auto chunks = axis("chunks", ceil_div(x.extent<1>(), K));
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto m = full<f32>(shape(r), -INFINITY);
        auto s = zeros<f32>(shape(r));
        for (auto& step : nest.serial(shape(chunks))) {
            auto v = cast<f32>(x(coord(row, step.index() * K), shape(r, c)).load(bf16(-INFINITY)));
            auto m_new = max(m, reduce(v, c, maximum));
            s = s * exp(m - m_new) + reduce(exp(v - m_new), c, add);
            m = m_new;
        }
        for (auto& step : nest.serial(shape(chunks))) {
            auto at = coord(row, step.index() * K);
            auto v = cast<f32>(x[at, shape(r, c)]);
            y(at, shape(r, c)).store(cast<T>(exp(v - m) / s));
        }
    }
});

// 02: softmax in column chunks, three serial loops (max, sum of exp, write), carried scalar partials.
Kernel softmax_chunked = kernel("v02_softmax_chunked", [](View<const T, 2> x, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", K);
    auto chunks = axis("chunks", ceil_div(x.extent<1>(), K));
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto m = full<f32>(shape(r), -INFINITY);
        for (auto& step : nest.serial(shape(chunks)))
            m = max(m, reduce(cast<f32>(x(coord(row, step.index() * K), shape(r, c)).load(bf16(-INFINITY))), c, maximum));
        auto s = zeros<f32>(shape(r));
        for (auto& step : nest.serial(shape(chunks)))
            s = s + reduce(exp(cast<f32>(x(coord(row, step.index() * K), shape(r, c)).load(bf16(-INFINITY))) - m), c, add);
        for (auto& step : nest.serial(shape(chunks))) {
            auto at = coord(row, step.index() * K);
            y(at, shape(r, c)).store(cast<T>(exp(cast<f32>(x[at, shape(r, c)]) - m) / s));
        }
    }
});

// 03: LayerNorm in column chunks: pass 1 carries sum and sum of squares (per-lane tiles), pass 2 writes.
Kernel layernorm_chunked = kernel("v03_layernorm_chunked",
                                  [](View<const T, 2> x, View<const T, 1> weight, View<const T, 1> bias, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", K);
    auto chunks = axis("chunks", ceil_div(x.extent<1>(), K));
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto s1 = zeros<f32>(shape(r, c));
        auto s2 = zeros<f32>(shape(r, c));
        for (auto& step : nest.serial(shape(chunks))) {
            auto v = cast<f32>(x[coord(row, step.index() * K), shape(r, c)]);
            s1 = s1 + v;
            s2 = s2 + v * v;
        }
        auto mean = reduce(s1, c, add) * inv_n;
        auto inv_std = rsqrt(reduce(s2, c, add) * inv_n - mean * mean + kEps);
        for (auto& step : nest.serial(shape(chunks))) {
            auto c0 = step.index() * K;
            auto v = cast<f32>(x[coord(row, c0), shape(r, c)]);
            auto w = cast<f32>(weight[coord(c0), shape(c)]);
            auto b = cast<f32>(bias[coord(c0), shape(c)]);
            y(coord(row, c0), shape(r, c)).store(cast<T>((v - mean) * inv_std * w + b));
        }
    }
});

// 04: softmax, two rows per instance ([2, C]).
Kernel softmax_2rows = kernel("v04_softmax_2rows", [](View<const T, 2> x, View<T, 2> y) {
    auto r = axis("r", 2), c = axis("c", x.extent<1>());
    for (auto& nest : parallel(shape(axis("pairs", ceil_div(x.extent<0>(), 2))))) {
        auto at = coord(nest.index() * 2, 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto e = exp(v - reduce(v, c, maximum));
        y(at, shape(r, c)).store(cast<T>(e / reduce(e, c, add)));
    }
});

// 05: RMSNorm, four rows per instance ([4, C]).
Kernel rmsnorm_4rows = kernel("v05_rmsnorm_4rows", [](View<const T, 2> x, View<const T, 1> weight, View<T, 2> y) {
    auto r = axis("r", 4), c = axis("c", x.extent<1>());
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("quads", ceil_div(x.extent<0>(), 4))))) {
        auto at = coord(nest.index() * 4, 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto inv_rms = rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f);
        y(at, shape(r, c)).store(cast<T>(v * inv_rms * cast<f32>(weight[coord(0), shape(c)])));
    }
});

// 06: RMSNorm with the weight a [1, C] view loaded as a [1, C] tile on the row's own axes.
Kernel rmsnorm_w1c = kernel("v06_rmsnorm_w1c", [](View<const T, 2> x, View<const T, 2> weight, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto w = cast<f32>(weight[coord(0, 0), shape(r, c)]);
        auto inv_rms = rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f);
        y(at, shape(r, c)).store(cast<T>(v * inv_rms * w));
    }
});

// 07: RMSNorm with the [1, C] weight on an axis of its own ("one"), as from a keepdim view.
Kernel rmsnorm_w1c_own = kernel("v07_rmsnorm_w1c_ownaxis", [](View<const T, 2> x, View<const T, 2> weight, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>()), one = axis("one", 1);
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto w = reduce(cast<f32>(weight[coord(0, 0), shape(one, c)]), one, add);
        auto inv_rms = rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f);
        y(at, shape(r, c)).store(cast<T>(v * inv_rms * w));
    }
});

// 08: LayerNorm, mean and mean of squares in one pass (var = E[x^2] - mean^2).
Kernel layernorm_onepass = kernel("v08_layernorm_onepass",
                                  [](View<const T, 2> x, View<const T, 1> weight, View<const T, 1> bias, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto mean = reduce(v, c, add) * inv_n;
        auto var = reduce(v * v, c, add) * inv_n - mean * mean;
        auto inv_std = rsqrt(var + kEps);
        auto w = cast<f32>(weight[coord(0), shape(c)]);
        auto b = cast<f32>(bias[coord(0), shape(c)]);
        y(at, shape(r, c)).store(cast<T>((v - mean) * inv_std * w + b));
    }
});

// 09: LayerNorm with f32 weight and bias beside bf16 rows.
Kernel layernorm_f32params = kernel("v09_layernorm_f32params",
                                    [](View<const T, 2> x, View<const f32, 1> weight, View<const f32, 1> bias, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto centred = v - reduce(v, c, add) * inv_n;
        auto inv_std = rsqrt(reduce(centred * centred, c, add) * inv_n + kEps);
        y(at, shape(r, c)).store(cast<T>(centred * inv_std * weight[coord(0), shape(c)] + bias[coord(0), shape(c)]));
    }
});

// 10: fused residual add + RMSNorm, writing both h = x + res and y.
Kernel residual_rmsnorm = kernel("v10_residual_rmsnorm",
                                 [](View<const T, 2> x, View<const T, 2> res, View<const T, 1> weight, View<T, 2> h, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto sum = cast<T>(cast<f32>(x[at, shape(r, c)]) + cast<f32>(res[at, shape(r, c)]));  // rounded like torch
        h(at, shape(r, c)).store(sum);
        auto v = cast<f32>(sum);
        auto inv_rms = rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f);
        y(at, shape(r, c)).store(cast<T>(v * inv_rms * cast<f32>(weight[coord(0), shape(c)])));
    }
});

// 11: SwiGLU with gate and up as two separate views.
Kernel swiglu_two = kernel("v11_swiglu_two_views", [](View<const T, 2> gate, View<const T, 2> up, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", gate.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", gate.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto g = cast<f32>(gate[at, shape(r, c)]);
        auto u = cast<f32>(up[at, shape(r, c)]);
        y(at, shape(r, c)).store(cast<T>(g / (1.0f + exp(-g)) * u));
    }
});

// 12: GeGLU (gelu tanh) on the halves of a [R, 2C] row.
Kernel geglu = kernel("v12_geglu_tanh", [](View<const T, 2> x, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", y.extent<1>());
    auto half = y.extent<1>();
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto a = cast<f32>(x[coord(row, 0), shape(r, c)]);
        auto g = cast<f32>(x[coord(row, half), shape(r, c)]);
        auto gelu = 0.5f * a * (1.0f + tanh(0.7978845608f * (a + 0.044715f * a * a * a)));
        y(coord(row, 0), shape(r, c)).store(cast<T>(gelu * g));
    }
});

// 13: log-softmax literally x - max - log(sum(exp(x - max))).
Kernel log_softmax = kernel("v13_log_softmax_literal", [](View<const T, 2> x, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto m = reduce(v, c, maximum);
        y(at, shape(r, c)).store(cast<T>(v - m - log(reduce(exp(v - m), c, add))));
    }
});

// 14: cross-entropy loss only, i32 label, mask written iota(c) == label (the (c, r) order).
Kernel ce_loss_a = kernel("v14_ce_loss_iota_first", [](View<const T, 2> logits, View<const i32, 1> labels, View<f32, 1> loss) {
    auto r = axis("r", 1), c = axis("c", logits.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", logits.extent<0>())))) {
        auto row = nest.index();
        auto z = cast<f32>(logits[coord(row, 0), shape(r, c)]);
        auto label = cast<i64>(labels[coord(row), shape(r)]);
        auto peak = reduce(z, c, maximum);
        auto lse = log(reduce(exp(z - peak), c, add)) + peak;
        auto picked = reduce(ite(iota(c) == label, z, 0.0f), c, add);
        loss(coord(row), shape(r)).store(lse - picked);
    }
});

// 15: the same loss with the mask label == iota(c) (the row's (r, c) order).
Kernel ce_loss_b = kernel("v15_ce_loss_label_first", [](View<const T, 2> logits, View<const i32, 1> labels, View<f32, 1> loss) {
    auto r = axis("r", 1), c = axis("c", logits.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", logits.extent<0>())))) {
        auto row = nest.index();
        auto z = cast<f32>(logits[coord(row, 0), shape(r, c)]);
        auto label = cast<i64>(labels[coord(row), shape(r)]);
        auto peak = reduce(z, c, maximum);
        auto lse = log(reduce(exp(z - peak), c, add)) + peak;
        auto picked = reduce(ite(label == iota(c), z, 0.0f), c, add);
        loss(coord(row), shape(r)).store(lse - picked);
    }
});

// 16: row max and argmax (i32 index).
Kernel row_argmax = kernel("v16_row_max_argmax", [](View<const T, 2> x, View<T, 1> maxv, View<i32, 1> idx) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto v = x[coord(row, 0), shape(r, c)];
        maxv(coord(row), shape(r)).store(reduce(v, c, maximum));
        idx(coord(row), shape(r)).store(cast<i32>(argmax(v, c)));
    }
});

// 17: column sum over rows: 256-column blocks, serial loop over 32-row blocks, each block reduced into a [C] accumulator.
Kernel column_sum = kernel("v17_column_sum_rowblocks", [](View<const T, 2> x, View<f32, 1> y) {
    constexpr std::int64_t RB = 32, CB = 256;
    auto r = axis("r", RB), c = axis("c", CB);
    auto steps = axis("row_blocks", ceil_div(x.extent<0>(), RB));
    for (auto& nest : parallel(shape(axis("col_blocks", ceil_div(x.extent<1>(), CB))))) {
        auto c0 = nest.index() * CB;
        auto acc = zeros<f32>(shape(c));
        for (auto& step : nest.serial(shape(steps))) acc = acc + reduce(cast<f32>(x[coord(step.index() * RB, c0), shape(r, c)]), r, add);
        y(coord(c0), shape(c)).store(acc);
    }
});

// 18: bias + GELU (erf) over a row.
Kernel bias_gelu = kernel("v18_bias_gelu", [](View<const T, 2> x, View<const T, 1> bias, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto v = cast<f32>(x[at, shape(r, c)]) + cast<f32>(bias[coord(0), shape(c)]);
        y(at, shape(r, c)).store(cast<T>(0.5f * v * (1.0f + erf(v * 0.70710678f))));
    }
});

// 19: RMSNorm at f32 storage.
Kernel rmsnorm_f32 = kernel("v19_rmsnorm_f32", [](View<const f32, 2> x, View<const f32, 1> weight, View<f32, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto at = coord(nest.index(), 0);
        auto v = x[at, shape(r, c)];
        auto inv_rms = rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f);
        y(at, shape(r, c)).store(v * inv_rms * weight[coord(0), shape(c)]);
    }
});

// 20: row scale by a per-row f32 scalar vector [R], loaded per instance.
Kernel row_scale = kernel("v20_row_scale", [](View<const T, 2> x, View<const f32, 1> s, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto at = coord(row, 0);
        y(at, shape(r, c)).store(cast<T>(cast<f32>(x[at, shape(r, c)]) * s[coord(row), shape(r)]));
    }
});

// 21: int8 dequantise: i8 row * per-row f32 scale -> bf16.
Kernel dequant = kernel("v21_dequant_i8", [](View<const i8, 2> q, View<const f32, 1> scale, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", q.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", q.extent<0>())))) {
        auto row = nest.index();
        auto at = coord(row, 0);
        y(at, shape(r, c)).store(cast<T>(cast<f32>(q[at, shape(r, c)]) * scale[coord(row), shape(r)]));
    }
});

// 22: LayerNorm in column chunks with three loops (sum, centred squares, write), scalar partials.
Kernel layernorm_chunked3 = kernel("v22_layernorm_chunked_3loops",
                                   [](View<const T, 2> x, View<const T, 1> weight, View<const T, 1> bias, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", K);
    auto chunks = axis("chunks", ceil_div(x.extent<1>(), K));
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto s = zeros<f32>(shape(r));
        for (auto& step : nest.serial(shape(chunks))) s = s + reduce(cast<f32>(x[coord(row, step.index() * K), shape(r, c)]), c, add);
        auto mean = s * inv_n;
        auto q = zeros<f32>(shape(r));
        for (auto& step : nest.serial(shape(chunks))) {
            auto c0 = step.index() * K;
            auto valid = iota(c) + c0 < x.extent<1>();
            auto d = ite(valid, cast<f32>(x[coord(row, c0), shape(r, c)]) - mean, 0.0f);
            q = q + reduce(d * d, c, add);
        }
        auto inv_std = rsqrt(q * inv_n + kEps);
        for (auto& step : nest.serial(shape(chunks))) {
            auto c0 = step.index() * K;
            auto v = cast<f32>(x[coord(row, c0), shape(r, c)]);
            y(coord(row, c0), shape(r, c)).store(
                cast<T>((v - mean) * inv_std * cast<f32>(weight[coord(c0), shape(c)]) + cast<f32>(bias[coord(c0), shape(c)])));
        }
    }
});


// 23: argmax written as the first index where x equals the row max (mask in the row's (r, c) order).
Kernel row_argmax_mask = kernel("v23_row_argmax_masked_min", [](View<const T, 2> x, View<T, 1> maxv, View<i32, 1> idx) {
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto v = cast<f32>(x[coord(row, 0), shape(r, c)]);
        auto m = reduce(v, c, maximum);
        maxv(coord(row), shape(r)).store(cast<T>(m));
        auto pos = cast<i32>(iota(c));
        auto hit = v == m;
        idx(coord(row), shape(r)).store(reduce(ite(hit, full<i32>(shape(r, c), 0) + pos, full<i32>(shape(r, c), 2147483647)), c, minimum));
    }
});

// 24: online softmax with per-lane carried tiles (max and sum per lane, combined after the loop).
Kernel softmax_online_lanes = kernel("v24_softmax_online_lanes", [](View<const T, 2> x, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", K);
    auto chunks = axis("chunks", ceil_div(x.extent<1>(), K));
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto m = full<f32>(shape(r, c), -INFINITY);
        auto s = zeros<f32>(shape(r, c));
        for (auto& step : nest.serial(shape(chunks))) {
            auto v = cast<f32>(x(coord(row, step.index() * K), shape(r, c)).load(bf16(-INFINITY)));
            auto m_new = max(m, v);
            s = s * exp(m - m_new) + exp(v - m_new);
            m = m_new;
        }
        auto mr = reduce(m, c, maximum);
        auto sr = reduce(ite(m == -INFINITY, 0.0f, s * exp(m - mr)), c, add);
        for (auto& step : nest.serial(shape(chunks))) {
            auto at = coord(row, step.index() * K);
            y(at, shape(r, c)).store(cast<T>(exp(cast<f32>(x[at, shape(r, c)]) - mr) / sr));
        }
    }
});

// 25: RMSNorm, two rows per instance ([2, C]).
Kernel rmsnorm_2rows = kernel("v25_rmsnorm_2rows", [](View<const T, 2> x, View<const T, 1> weight, View<T, 2> y) {
    auto r = axis("r", 2), c = axis("c", x.extent<1>());
    const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
    for (auto& nest : parallel(shape(axis("pairs", ceil_div(x.extent<0>(), 2))))) {
        auto at = coord(nest.index() * 2, 0);
        auto v = cast<f32>(x[at, shape(r, c)]);
        auto inv_rms = rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f);
        y(at, shape(r, c)).store(cast<T>(v * inv_rms * cast<f32>(weight[coord(0), shape(c)])));
    }
});

// 26: softmax chunked (three loops) with 4096-column chunks.
Kernel softmax_chunked4k = kernel("v26_softmax_chunked_4k", [](View<const T, 2> x, View<T, 2> y) {
    constexpr std::int64_t K4 = 4096;
    auto r = axis("r", 1), c = axis("c", K4);
    auto chunks = axis("chunks", ceil_div(x.extent<1>(), K4));
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto m = full<f32>(shape(r), -INFINITY);
        for (auto& step : nest.serial(shape(chunks)))
            m = max(m, reduce(cast<f32>(x(coord(row, step.index() * K4), shape(r, c)).load(bf16(-INFINITY))), c, maximum));
        auto s = zeros<f32>(shape(r));
        for (auto& step : nest.serial(shape(chunks)))
            s = s + reduce(exp(cast<f32>(x(coord(row, step.index() * K4), shape(r, c)).load(bf16(-INFINITY))) - m), c, add);
        for (auto& step : nest.serial(shape(chunks))) {
            auto at = coord(row, step.index() * K4);
            y(at, shape(r, c)).store(cast<T>(exp(cast<f32>(x[at, shape(r, c)]) - m) / s));
        }
    }
});

// 27: v01 with both chunk loops written as nest.pipeline (window 2) instead of nest.serial.
Kernel softmax_online_pipe = kernel("v27_softmax_online_pipeline", [](View<const T, 2> x, View<T, 2> y) {
    auto r = axis("r", 1), c = axis("c", K);
    auto chunks = axis("chunks", ceil_div(x.extent<1>(), K));
    for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
        auto row = nest.index();
        auto m = full<f32>(shape(r), -INFINITY);
        auto s = zeros<f32>(shape(r));
        for (auto& step : nest.pipeline(shape(chunks), {.window = 2})) {
            auto v = cast<f32>(x(coord(row, step.index() * K), shape(r, c)).load(bf16(-INFINITY)));
            auto m_new = max(m, reduce(v, c, maximum));
            s = s * exp(m - m_new) + reduce(exp(v - m_new), c, add);
            m = m_new;
        }
        for (auto& step : nest.pipeline(shape(chunks), {.window = 2})) {
            auto at = coord(row, step.index() * K);
            auto v = cast<f32>(x[at, shape(r, c)]);
            y(at, shape(r, c)).store(cast<T>(exp(v - m) / s));
        }
    }
});

// Baselines: the project's own forms (examples/row_kernels.h).
Kernel base_softmax = catalog::rows::softmax<bf16>();
Kernel base_rmsnorm = catalog::rows::rmsnorm_weighted<bf16>();
Kernel base_layernorm = catalog::rows::layernorm_affine<bf16>();
Kernel base_column_sum = catalog::rows::column_sum<bf16>();

}  // namespace

KILN_EXPORT_KERNEL(softmax_online, "x", "y");
KILN_EXPORT_KERNEL(softmax_chunked, "x", "y");
KILN_EXPORT_KERNEL(layernorm_chunked, "x", "weight", "bias", "y");
KILN_EXPORT_KERNEL(softmax_2rows, "x", "y");
KILN_EXPORT_KERNEL(rmsnorm_4rows, "x", "weight", "y");
KILN_EXPORT_KERNEL(rmsnorm_w1c, "x", "weight", "y");
KILN_EXPORT_KERNEL(rmsnorm_w1c_own, "x", "weight", "y");
KILN_EXPORT_KERNEL(layernorm_onepass, "x", "weight", "bias", "y");
KILN_EXPORT_KERNEL(layernorm_f32params, "x", "weight", "bias", "y");
KILN_EXPORT_KERNEL(residual_rmsnorm, "x", "res", "weight", "h", "y");
KILN_EXPORT_KERNEL(swiglu_two, "gate", "up", "y");
KILN_EXPORT_KERNEL(geglu, "x", "y");
KILN_EXPORT_KERNEL(log_softmax, "x", "y");
KILN_EXPORT_KERNEL(ce_loss_a, "logits", "labels", "loss");
KILN_EXPORT_KERNEL(ce_loss_b, "logits", "labels", "loss");
KILN_EXPORT_KERNEL(row_argmax, "x", "maxv", "idx");
KILN_EXPORT_KERNEL(column_sum, "x", "y");
KILN_EXPORT_KERNEL(bias_gelu, "x", "bias", "y");
KILN_EXPORT_KERNEL(rmsnorm_f32, "x", "weight", "y");
KILN_EXPORT_KERNEL(row_scale, "x", "s", "y");
KILN_EXPORT_KERNEL(dequant, "q", "scale", "y");
KILN_EXPORT_KERNEL(layernorm_chunked3, "x", "weight", "bias", "y");
KILN_EXPORT_KERNEL(row_argmax_mask, "x", "maxv", "idx");
KILN_EXPORT_KERNEL(softmax_online_lanes, "x", "y");
KILN_EXPORT_KERNEL(rmsnorm_2rows, "x", "weight", "y");
KILN_EXPORT_KERNEL(softmax_chunked4k, "x", "y");
KILN_EXPORT_KERNEL(base_softmax, "x", "y");
KILN_EXPORT_KERNEL(base_rmsnorm, "x", "weight", "y");
KILN_EXPORT_KERNEL(base_layernorm, "x", "weight", "bias", "y");
KILN_EXPORT_KERNEL(base_column_sum, "x", "y");
KILN_EXPORT_KERNEL(softmax_online_pipe, "x", "y");
