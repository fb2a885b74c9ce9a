// flash_attention: causal FlashAttention over 4-D [batch, head, sequence, channel]
// views with an online softmax (seed 004, section 7). One program per (batch, head,
// query block); the pipeline streams key/value blocks, forms scores with one mma,
// rescales the carried row state and applies the second mma. The causal mask and the
// key-tail mask are explicit, separate from memory bounds.
#include <cmath>
#include <limits>

#include "attention_bound.h"
#include "catalog.h"

namespace kiln::catalog {
namespace {

struct Config {
    std::int64_t block_q = 2;
    std::int64_t block_k = 3;
    float scale = 0.5f;
};

Kernel make_kernel(Config cfg) {
    return kernel("flash_attention", [=](View<const f32, 4> q, View<const f32, 4> k, View<const f32, 4> v, View<f32, 4> result) {
        const auto bq = cfg.block_q, bk = cfg.block_k;
        auto batch = axis("batch", result.extent<0>());
        auto head = axis("head", result.extent<1>());
        auto query_blocks = axis("query_blocks", ceil_div(result.extent<2>(), bq));
        auto key_blocks = axis("key_blocks", ceil_div(k.extent<2>(), bk));
        auto b = axis("local_batch", 1);
        auto h = axis("local_head", 1);
        auto m = axis("query", bq);
        auto s = axis("key", bk);
        auto d = axis("channel", q.extent<3>());
        auto dv = axis("value_channel", result.extent<3>());
        for (auto& nest : parallel(shape(batch, head, query_blocks))) {
            auto b0 = nest.index(batch);
            auto h0 = nest.index(head);
            auto q0 = nest.index(query_blocks) * bq;
            auto query = q[coord(b0, h0, q0, 0), shape(b, h, m, d)];
            // A finite "minus infinity": exp(row_max - next_max) stays 0 or 1, never NaN.
            auto row_max = full<f32>(shape(b, h, m), -1e30f);
            auto row_sum = zeros<f32>(shape(b, h, m));
            auto acc = zeros<f32>(shape(b, h, m, dv));
            for (auto& step : nest.pipeline(shape(key_blocks), {.window = 2, .interval = 1})) {
                auto k0 = step.index() * bk;
                step.stage("load");
                auto key = k[coord(b0, h0, k0, 0), shape(b, h, s, d)];
                auto value = v[coord(b0, h0, k0, 0), shape(b, h, s, dv)];
                step.stage("score");
                auto score = mma(query, key, zeros<f32>(shape(b, h, m, s))) * cfg.scale;
                auto valid = (iota(s) + k0 < k.extent<2>()) && (iota(s) + k0 <= iota(m) + q0);
                auto masked = ite(valid, score, -1e30f);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto probability = ite(valid, exp(masked - next_max), 0.0f);
                step.stage("update");
                row_sum = row_sum * alpha + reduce(probability, s, add);
                acc = mma(probability, value, acc * alpha);
                row_max = next_max;
            }
            result(coord(b0, h0, q0, 0), shape(b, h, m, dv)).store(acc / row_sum);
        }
    });
}

struct Dims {
    std::int64_t batches, heads, queries, keys, channels, value_channels;
};

// softmax over the keys j <= i of (q_i . k_j) * scale, applied to v; f64, per (batch, head).
std::vector<double> reference(const Case& c, Dims n, double scale) {
    auto q = values(*c.args[0]), k = values(*c.args[1]), v = values(*c.args[2]);
    std::vector<double> out(static_cast<std::size_t>(n.batches * n.heads * n.queries * n.value_channels), 0.0);
    for (std::int64_t bh = 0; bh < n.batches * n.heads; ++bh) {
        const double* qb = q.data() + bh * n.queries * n.channels;
        const double* kb = k.data() + bh * n.keys * n.channels;
        const double* vb = v.data() + bh * n.keys * n.value_channels;
        double* ob = out.data() + bh * n.queries * n.value_channels;
        for (std::int64_t i = 0; i < n.queries; ++i) {
            std::int64_t visible = std::min(i + 1, n.keys);
            std::vector<double> w(static_cast<std::size_t>(visible));
            double peak = -std::numeric_limits<double>::infinity(), total = 0;
            for (std::int64_t j = 0; j < visible; ++j) {
                double dot = 0;
                for (std::int64_t e = 0; e < n.channels; ++e) dot += qb[i * n.channels + e] * kb[j * n.channels + e];
                w[j] = dot * scale;
                peak = std::max(peak, w[j]);
            }
            for (auto& x : w) total += (x = std::exp(x - peak));
            for (std::int64_t j = 0; j < visible; ++j)
                for (std::int64_t e = 0; e < n.value_channels; ++e) ob[i * n.value_channels + e] += w[j] / total * vb[j * n.value_channels + e];
        }
    }
    return out;
}

// The kernel's arithmetic on Bounded values, head by head (attention_bound.h).
Bounds error_bound(const Case& c, Dims n, Config cfg) {
    auto q = values(*c.args[0]), k = values(*c.args[1]), v = values(*c.args[2]);
    const AttentionShape shape{n.queries, n.keys, n.channels, n.value_channels, cfg.block_q, cfg.block_k, true, false};
    std::vector<Bounded> out;
    for (std::int64_t bh = 0; bh < n.batches * n.heads; ++bh) {
        auto head = attention_bound(q.data() + bh * n.queries * n.channels, k.data() + bh * n.keys * n.channels,
                                    v.data() + bh * n.keys * n.value_channels, shape, exact(cfg.scale));
        out.insert(out.end(), head.begin(), head.end());
    }
    return {out};
}

Entry make_flash_attention() {
    Entry e;
    e.name = "flash_attention";
    e.description = "causal FlashAttention, 4-D [batch, head, seq, channel] views, online softmax, key-tail mask";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::pair<Dims, Config>> shapes;
        switch (size) {  // the seed's blocks and shape first; queries != keys in the ragged cases
            case Size::small: shapes = {{{1, 2, 4, 5, 4, 3}, {2, 3}}, {{2, 1, 7, 5, 8, 8}, {4, 4}}, {{1, 1, 1, 3, 2, 1}, {2, 2}}}; break;
            case Size::medium: shapes = {{{2, 4, 128, 128, 32, 32}, {16, 16}}, {{1, 3, 77, 100, 24, 16}, {16, 32}}, {{3, 2, 65, 33, 64, 64}, {32, 8}}}; break;
            case Size::large: shapes = {{{4, 16, 1024, 1024, 64, 64}, {64, 64}}, {{2, 8, 2047, 2047, 128, 128}, {64, 64}}, {{1, 32, 4096, 4096, 128, 128}, {128, 64}}}; break;
        }
        std::vector<Case> cases;
        for (auto [n, cfg] : shapes) {
            cfg.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n.channels)));
            Case c;
            c.shape = std::to_string(n.batches) + "x" + std::to_string(n.heads) + "x" + std::to_string(n.queries) + "x" +
                      std::to_string(n.keys) + "x" + std::to_string(n.channels) + "x" + std::to_string(n.value_channels);
            c.kernel = make_kernel(cfg);
            c.args = {input(Kind::F32, {n.batches, n.heads, n.queries, n.channels}, uniform(seed, -2, 2)),
                      input(Kind::F32, {n.batches, n.heads, n.keys, n.channels}, uniform(seed + 1, -2, 2)),
                      input(Kind::F32, {n.batches, n.heads, n.keys, n.value_channels}, uniform(seed + 2, -1, 1)),
                      output(Kind::F32, {n.batches, n.heads, n.queries, n.value_channels})};
            c.scalars.assign(c.args.size(), 0);
            double scale = cfg.scale;
            c.reference = [n, scale](const Case& c) { return std::vector<std::vector<double>>{reference(c, n, scale)}; };
            // About 1e-5 at 8 channels (the scores' errors, ~gamma(8) sum |q k| * scale,
            // move every weight by that much relative, times |v| <= 1). A key past the
            // diagonal let in, or a missing rescale by alpha, moves outputs by ~0.1,
            // 10^4 bounds; a key-tail mask that lets padding in shifts them as much.
            c.error_bound = [n, cfg](const Case& c) { return error_bound(c, n, cfg); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_flash_attention);

}  // namespace kiln::catalog
