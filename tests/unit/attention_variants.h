// FlashAttention kernels written the ways users write them besides the catalog's
// (examples/attention_bf16.cpp): the rescale factor written out twice, the scale
// inside the exponent (the maximum taken over unscaled scores), 2-D views, and a
// form that must not match (different scales in the two exponents). The matcher
// tests (tests/catalog/attention_match_test.cpp) and the stand-in-driver launch
// test (tests/fake_cuda/fake_cuda_test.cpp) share them.
#pragma once

#include <limits>

#include <kiln/kiln.h>

namespace kiln::attention_variants {

// product_added: acc = acc * alpha + mma(p, v, 0), as FlashAttention-2 and Triton write
// it; dead_values: a value of the carried state and a load computed and never used.
// power_of_two: pow(2, c log2(e) (x - m)) for both exponents (Triton's exp2);
// reciprocal_alpha: alpha = 1 / exp(c (m' - m)); power_below_one: pow(0.5, ..) and
// reciprocal_wrong_way: 1 / exp(c (m - m')), neither an online softmax's rescale.
enum class Form {
    alpha_twice,
    scale_in_exponent,
    two_d_views,
    mismatched_scales,
    product_added,
    dead_values,
    power_of_two,
    reciprocal_alpha,
    power_below_one,
    reciprocal_wrong_way
};

// q [n, d] or [1, 1, n, d] (two_d_views: [n, d]); key and value blocks of 64, query blocks of 64.
inline Kernel kernel_4d(Form form) {
    return kernel("attention_variant", [form](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> out) {
        const std::int64_t bq = 64, bk = 64;
        const float scale = 0.125f, minus_infinity = -std::numeric_limits<float>::infinity();
        auto batch = axis("batch", q.extent<0>()), head = axis("head", q.extent<1>());
        auto blocks = axis("query_blocks", ceil_div(q.extent<2>(), bq));
        auto b1 = axis("b1", 1), h1 = axis("h1", 1), m = axis("m", bq), s = axis("s", bk), d = axis("d", q.extent<3>()), dv = axis("dv", v.extent<3>());
        auto key_blocks = axis("key_blocks", ceil_div(k.extent<2>(), bk));
        for (auto& nest : parallel(shape(batch, head, blocks))) {
            auto b0 = nest.index(batch), h0 = nest.index(head), q0 = nest.index(blocks) * bq;
            auto query = q[coord(b0, h0, q0, 0), shape(b1, h1, m, d)];
            auto row_max = full<f32>(shape(b1, h1, m), minus_infinity);
            auto row_sum = zeros<f32>(shape(b1, h1, m));
            auto acc = zeros<f32>(shape(b1, h1, m, dv));
            for (auto& step : nest.pipeline(shape(key_blocks), {.window = 2})) {
                auto k0 = step.index() * bk;
                auto raw = mma(query, k[coord(b0, h0, k0, 0), shape(b1, h1, s, d)], zeros<f32>(shape(b1, h1, m, s)));
                auto score = form == Form::alpha_twice ? raw * scale : raw;
                auto masked = ite(iota(s) + k0 < k.extent<2>(), score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto value = v[coord(b0, h0, k0, 0), shape(b1, h1, s, dv)];
                if (form == Form::alpha_twice) {
                    auto p = exp(masked - next_max);
                    row_sum = row_sum * exp(row_max - next_max) + reduce(p, s, add);
                    acc = mma(cast<bf16>(p), value, acc * exp(row_max - next_max));
                } else {
                    const float p_scale = form == Form::mismatched_scales ? 2 * scale : scale;
                    const float log2e = 1.4426950408889634f;
                    auto p = form == Form::power_of_two      ? pow(2.0f, (masked - next_max) * (scale * log2e))
                             : form == Form::power_below_one ? pow(0.5f, (masked - next_max) * (scale * log2e))
                                                             : exp((masked - next_max) * p_scale);
                    auto alpha = form == Form::power_of_two         ? pow(2.0f, (row_max - next_max) * (scale * log2e))
                                 : form == Form::power_below_one    ? pow(0.5f, (row_max - next_max) * (scale * log2e))
                                 : form == Form::reciprocal_alpha     ? 1.0f / exp((next_max - row_max) * scale)
                                 : form == Form::reciprocal_wrong_way ? 1.0f / exp((row_max - next_max) * scale)
                                                                      : exp((row_max - next_max) * scale);
                    row_sum = row_sum * alpha + reduce(p, s, add);
                    if (form == Form::product_added) {
                        acc = acc * alpha + mma(cast<bf16>(p), value, zeros<f32>(shape(b1, h1, m, dv)));
                    } else {
                        acc = mma(cast<bf16>(p), value, acc * alpha);
                    }
                    if (form == Form::dead_values) {
                        [[maybe_unused]] auto unused = alpha * 2.0f + row_sum;
                        [[maybe_unused]] auto unread = v[coord(b0, h0, 0, 0), shape(b1, h1, s, dv)];
                    }
                }
                row_max = next_max;
            }
            out(coord(b0, h0, q0, 0), shape(b1, h1, m, dv)).store(cast<bf16>(acc / row_sum));
        }
    });
}

// 3-D views [batch * heads, n, d] whose [1, m, d] tiles are reshaped to [m, d] for the
// products, and the output reshaped back to [1, m, dv] to be stored (unit dims only).
inline Kernel reshaped_3d() {
    return kernel("attention_reshaped_3d", [](View<const bf16, 3> q, View<const bf16, 3> k, View<const bf16, 3> v, View<bf16, 3> out) {
        const std::int64_t block = 64;
        const float minus_infinity = -std::numeric_limits<float>::infinity();
        auto heads = axis("heads", q.extent<0>()), blocks = axis("query_blocks", ceil_div(q.extent<1>(), block));
        auto one = axis("one", 1), m = axis("m", block), s = axis("s", block), d = axis("d", q.extent<2>()), dv = axis("dv", v.extent<2>());
        auto key_blocks = axis("key_blocks", ceil_div(k.extent<1>(), block));
        for (auto& nest : parallel(shape(heads, blocks))) {
            auto h = nest.index(heads), q0 = nest.index(blocks) * block;
            auto query = reshape(q[coord(h, q0, 0), shape(one, m, d)], shape(m, d));
            auto row_max = full<f32>(shape(m), minus_infinity);
            auto row_sum = zeros<f32>(shape(m));
            auto acc = zeros<f32>(shape(m, dv));
            for (auto& step : nest.pipeline(shape(key_blocks), {.window = 2})) {
                auto k0 = step.index() * block;
                auto keys = reshape(k[coord(h, k0, 0), shape(one, s, d)], shape(s, d));
                auto values = reshape(v[coord(h, k0, 0), shape(one, s, dv)], shape(s, dv));
                auto score = mma(query, keys, zeros<f32>(shape(m, s))) * 0.125f;
                auto masked = ite(iota(s) + k0 < k.extent<1>(), score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto p = exp(masked - next_max);
                row_sum = row_sum * alpha + reduce(p, s, add);
                acc = mma(cast<bf16>(p), values, acc * alpha);
                row_max = next_max;
            }
            out(coord(h, q0, 0), shape(one, m, dv)).store(reshape(cast<bf16>(acc / row_sum), shape(one, m, dv)));
        }
    });
}

// 2-D views [n, d] (one head), causal by trip count as the catalog's f32 attention writes it.
inline Kernel kernel_2d() {
    return kernel("attention_variant_2d", [](View<const bf16, 2> q, View<const bf16, 2> k, View<const bf16, 2> v, View<bf16, 2> out) {
        const std::int64_t block = 64;
        const float minus_infinity = -std::numeric_limits<float>::infinity();
        auto blocks = axis("query_blocks", ceil_div(q.extent<0>(), block));
        auto m = axis("m", block), s = axis("s", block), d = axis("d", q.extent<1>()), dv = axis("dv", v.extent<1>());
        for (auto& nest : parallel(shape(blocks))) {
            auto q0 = nest.index() * block;
            auto query = q[coord(q0, 0), shape(m, d)];
            auto row_max = full<f32>(shape(m), minus_infinity);
            auto row_sum = zeros<f32>(shape(m));
            auto acc = zeros<f32>(shape(m, dv));
            auto visible = axis("visible", min(nest.index() + 1, ceil_div(k.extent<0>(), block)));
            for (auto& step : nest.pipeline(shape(visible), {.window = 2})) {
                auto k0 = step.index() * block;
                auto score = mma(query, k[coord(k0, 0), shape(s, d)], zeros<f32>(shape(m, s))) * 0.125f;
                auto masked = ite((iota(s) + k0 < k.extent<0>()) && (iota(s) + k0 <= iota(m) + q0), score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto p = exp(masked - next_max);
                row_sum = row_sum * alpha + reduce(p, s, add);
                acc = mma(cast<bf16>(p), v[coord(k0, 0), shape(s, dv)], acc * alpha);
                row_max = next_max;
            }
            out(coord(q0, 0), shape(m, dv)).store(cast<bf16>(acc / row_sum));
        }
    });
}

// Attention over 4-D views whose mask hides each row's first `pad` keys (left padding;
// 0: none) and the keys' tail, the row maximum starting at `initial_max`. From -inf,
// where `pad` >= the key block `bk` the first block has every score at -inf and every
// output is NaN (exp(-inf - -inf) in the first step); from a finite floor (-1e30, as
// older FlashAttention code writes it) the Hopper kernel may take key blocks of its own.
inline Kernel padded(std::int64_t bq, std::int64_t bk, float initial_max, std::int64_t pad = 0) {
    return kernel("attention_padded", [=](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> out) {
        const float minus_infinity = -std::numeric_limits<float>::infinity();
        auto batch = axis("batch", q.extent<0>()), head = axis("head", q.extent<1>());
        auto blocks = axis("query_blocks", ceil_div(q.extent<2>(), bq));
        auto b1 = axis("b1", 1), h1 = axis("h1", 1), m = axis("m", bq), s = axis("s", bk), d = axis("d", q.extent<3>()), dv = axis("dv", v.extent<3>());
        auto key_blocks = axis("key_blocks", ceil_div(k.extent<2>(), bk));
        for (auto& nest : parallel(shape(batch, head, blocks))) {
            auto b0 = nest.index(batch), h0 = nest.index(head), q0 = nest.index(blocks) * bq;
            auto query = q[coord(b0, h0, q0, 0), shape(b1, h1, m, d)];
            auto row_max = full<f32>(shape(b1, h1, m), initial_max);
            auto row_sum = zeros<f32>(shape(b1, h1, m));
            auto acc = zeros<f32>(shape(b1, h1, m, dv));
            for (auto& step : nest.pipeline(shape(key_blocks), {.window = 2})) {
                auto k0 = step.index() * bk;
                auto score = mma(query, k[coord(b0, h0, k0, 0), shape(b1, h1, s, d)], zeros<f32>(shape(b1, h1, m, s))) * 0.125f;
                auto masked = ite((iota(s) + k0 >= pad) && (iota(s) + k0 < k.extent<2>()), score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto p = exp(masked - next_max);
                row_sum = row_sum * alpha + reduce(p, s, add);
                acc = mma(cast<bf16>(p), v[coord(b0, h0, k0, 0), shape(b1, h1, s, dv)], acc * alpha);
                row_max = next_max;
            }
            out(coord(b0, h0, q0, 0), shape(b1, h1, m, dv)).store(cast<bf16>(acc / row_sum));
        }
    });
}

// Block-causal attention over 4-D views (two query heads per key/value head): a row
// sees whole key blocks up to the one holding its own index, a mask computed per row
// from the key block index (so the kernel's key block must be the program's), and
// the keys' tail. Query blocks of 64, key blocks of `bk`.
inline Kernel block_causal(std::int64_t bk) {
    return kernel("attention_block_causal", [bk](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> out) {
        const std::int64_t bq = 64;
        const float minus_infinity = -std::numeric_limits<float>::infinity();
        auto batch = axis("batch", q.extent<0>()), head = axis("head", q.extent<1>());
        auto blocks = axis("query_blocks", ceil_div(q.extent<2>(), bq));
        auto b1 = axis("b1", 1), h1 = axis("h1", 1), m = axis("m", bq), s = axis("s", bk), d = axis("d", q.extent<3>()), dv = axis("dv", v.extent<3>());
        for (auto& nest : parallel(shape(batch, head, blocks))) {
            auto b0 = nest.index(batch), h0 = nest.index(head), q0 = nest.index(blocks) * bq;
            auto query = q[coord(b0, h0, q0, 0), shape(b1, h1, m, d)];
            auto row_max = full<f32>(shape(b1, h1, m), minus_infinity);
            auto row_sum = zeros<f32>(shape(b1, h1, m));
            auto acc = zeros<f32>(shape(b1, h1, m, dv));
            auto key_blocks = axis("key_blocks", min((q0 + bq - 1) / bk + 1, ceil_div(k.extent<2>(), bk)));
            for (auto& step : nest.pipeline(shape(key_blocks), {.window = 2})) {
                auto k0 = step.index() * bk;
                auto score = mma(query, k[coord(b0, h0 / 2, k0, 0), shape(b1, h1, s, d)], zeros<f32>(shape(b1, h1, m, s))) * 0.125f;
                auto row_sees_block = (iota(m) + q0) / bk >= step.index();
                auto masked = ite(row_sees_block && (iota(s) + k0 < k.extent<2>()), score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto p = exp(masked - next_max);
                row_sum = row_sum * alpha + reduce(p, s, add);
                acc = mma(cast<bf16>(p), v[coord(b0, h0 / 2, k0, 0), shape(b1, h1, s, dv)], acc * alpha);
                row_max = next_max;
            }
            out(coord(b0, h0, q0, 0), shape(b1, h1, m, dv)).store(cast<bf16>(acc / row_sum));
        }
    });
}

// The sequence-major layout: q, k, v and the output [batch, sequence, head, channel],
// as a linear layer leaves them (no transpose to [batch, head, sequence, channel]).
inline Kernel sequence_major() {
    return kernel("attention_bshd", [](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> out) {
        const std::int64_t bq = 64, bk = 64;
        const float scale = 0.125f, minus_infinity = -std::numeric_limits<float>::infinity();
        auto batch = axis("batch", q.extent<0>()), head = axis("head", q.extent<2>());
        auto blocks = axis("query_blocks", ceil_div(q.extent<1>(), bq));
        auto b1 = axis("b1", 1), h1 = axis("h1", 1), m = axis("m", bq), s = axis("s", bk), d = axis("d", q.extent<3>()), dv = axis("dv", v.extent<3>());
        for (auto& nest : parallel(shape(batch, head, blocks))) {
            auto b0 = nest.index(batch), h0 = nest.index(head), q0 = nest.index(blocks) * bq;
            auto query = q[coord(b0, q0, h0, 0), shape(b1, m, h1, d)];
            auto row_max = full<f32>(shape(b1, m, h1), minus_infinity);
            auto row_sum = zeros<f32>(shape(b1, m, h1));
            auto acc = zeros<f32>(shape(b1, m, h1, dv));
            for (auto& step : nest.pipeline(shape(axis("key_blocks", ceil_div(k.extent<1>(), bk))), {.window = 2})) {
                auto k0 = step.index() * bk;
                auto score = mma(query, k[coord(b0, k0, h0, 0), shape(b1, s, h1, d)], zeros<f32>(shape(b1, m, h1, s))) * scale;
                auto masked = ite(iota(s) + k0 < k.extent<1>(), score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto p = exp(masked - next_max);
                auto alpha = exp(row_max - next_max);
                row_sum = row_sum * alpha + reduce(p, s, add);
                acc = mma(cast<bf16>(p), v[coord(b0, k0, h0, 0), shape(b1, s, h1, dv)], acc * alpha);
                row_max = next_max;
            }
            out(coord(b0, q0, h0, 0), shape(b1, m, h1, dv)).store(cast<bf16>(acc / row_sum));
        }
    });
}

// The forward pass for training: the output and the log-sum-exp m + log(l) of each
// query row, lse [batch, head, row] in f32 (`at_row_zero`: every tile's values stored from row 0,
// a user's mistake the match refuses).
inline Kernel with_log_sum_exp(bool at_row_zero = false) {
    return kernel("attention_lse", [at_row_zero](View<const bf16, 4> q, View<const bf16, 4> k, View<const bf16, 4> v, View<bf16, 4> out,
                                                 View<f32, 3> lse) {
        const std::int64_t bq = 64, bk = 64;
        const float scale = 0.125f, minus_infinity = -std::numeric_limits<float>::infinity();
        auto batch = axis("batch", q.extent<0>()), head = axis("head", q.extent<1>());
        auto blocks = axis("query_blocks", ceil_div(q.extent<2>(), bq));
        auto b1 = axis("b1", 1), h1 = axis("h1", 1), m = axis("m", bq), s = axis("s", bk), d = axis("d", q.extent<3>()), dv = axis("dv", v.extent<3>());
        for (auto& nest : parallel(shape(batch, head, blocks))) {
            auto b0 = nest.index(batch), h0 = nest.index(head), q0 = nest.index(blocks) * bq;
            auto query = q[coord(b0, h0, q0, 0), shape(b1, h1, m, d)];
            auto row_max = full<f32>(shape(b1, h1, m), minus_infinity);
            auto row_sum = zeros<f32>(shape(b1, h1, m));
            auto acc = zeros<f32>(shape(b1, h1, m, dv));
            for (auto& step : nest.pipeline(shape(axis("key_blocks", ceil_div(k.extent<2>(), bk))), {.window = 2})) {
                auto k0 = step.index() * bk;
                auto score = mma(query, k[coord(b0, h0, k0, 0), shape(b1, h1, s, d)], zeros<f32>(shape(b1, h1, m, s))) * scale;
                auto masked = ite(iota(s) + k0 < k.extent<2>(), score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto p = exp(masked - next_max);
                auto alpha = exp(row_max - next_max);
                row_sum = row_sum * alpha + reduce(p, s, add);
                acc = mma(cast<bf16>(p), v[coord(b0, h0, k0, 0), shape(b1, h1, s, dv)], acc * alpha);
                row_max = next_max;
            }
            out(coord(b0, h0, q0, 0), shape(b1, h1, m, dv)).store(cast<bf16>(acc / row_sum));
            lse(coord(b0, h0, at_row_zero ? q0 * 0 : q0), shape(b1, h1, m)).store(row_max + log(row_sum));
        }
    });
}

}  // namespace kiln::attention_variants
