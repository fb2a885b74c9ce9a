// attention: FlashAttention-2 over row-major [n, d] views (seed 000's attention8, any
// head dimension and block). One program owns `block` query rows and streams keys
// and values past them `block` rows at a time, carrying a running row maximum, a
// running denominator and an unnormalised output, rescaled whenever the maximum moves.
#include "attention.h"

#include "attention_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::catalog {

Kernel make_attention_kernel(std::int64_t block, bool causal) {
    return kernel(causal ? "causal_attention" : "attention",
                  [=](View<const f32, 2> q, View<const f32, 2> k, View<const f32, 2> v, View<f32, 2> out) {
        auto query_blocks = axis("query_blocks", ceil_div(q.extent<0>(), block));
        auto key_blocks = axis("key_blocks", ceil_div(k.extent<0>(), block));
        auto m = axis("query", block);
        auto s = axis("key", block);
        auto d = axis("channel", q.extent<1>());
        auto dv = axis("value_channel", v.extent<1>());
        const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(q.extent<1>())));
        const float minus_infinity = -std::numeric_limits<float>::infinity();
        for (auto& nest : parallel(shape(query_blocks))) {
            auto q0 = nest.index() * block;
            auto query = q[coord(q0, 0), shape(m, d)];
            // Every row sees key 0 in the first block, so the maximum is finite from then
            // on; before that, alpha = exp(-inf) = 0 simply clears the empty state.
            auto row_max = full<f32>(shape(m), minus_infinity);
            auto row_sum = zeros<f32>(shape(m));
            auto acc = zeros<f32>(shape(m, dv));
            // Causal: key blocks past the diagonal block are skipped (the trip count
            // depends on the program's query block); the diagonal block is masked below.
            auto visible_blocks = causal ? axis("visible_key_blocks", min(nest.index() + 1, ceil_div(k.extent<0>(), block)))
                                         : key_blocks;
            for (auto& step : nest.pipeline(shape(visible_blocks), {.window = 2, .interval = 1})) {
                auto k0 = step.index() * block;
                step.stage("load");
                auto key = k[coord(k0, 0), shape(s, d)];
                auto value = v[coord(k0, 0), shape(s, dv)];
                step.stage("score");
                auto score = mma(query, key, zeros<f32>(shape(m, s))) * scale;
                auto in_range = iota(s) + k0 < k.extent<0>();  // the key tail of the last block
                Tile<bool> valid = causal ? (in_range && (iota(s) + k0 <= iota(m) + q0)) : in_range;
                auto masked = ite(valid, score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto probability = exp(masked - next_max);  // masked keys: exp(-inf) = 0
                step.stage("update");
                row_sum = row_sum * alpha + reduce(probability, s, add);
                acc = mma(probability, value, acc * alpha);
                row_max = next_max;
            }
            out(coord(q0, 0), shape(m, dv)).store(acc / row_sum);
        }
    });
}

namespace {

struct Problem {
    std::int64_t queries, keys, channels, value_channels, block;
};

// softmax(q k^T / sqrt(d)) v in f64, the causal form dropping keys j > i.
std::vector<double> reference(const Case& c, const Problem& p, bool causal) {
    auto q = values(*c.args[0]), k = values(*c.args[1]), v = values(*c.args[2]);
    const double scale = 1.0 / std::sqrt(static_cast<double>(p.channels));
    std::vector<double> out(static_cast<std::size_t>(p.queries * p.value_channels), 0.0);
    for (std::int64_t i = 0; i < p.queries; ++i) {
        std::int64_t visible = causal ? std::min(i + 1, p.keys) : p.keys;
        std::vector<double> w(static_cast<std::size_t>(visible));
        for (std::int64_t j = 0; j < visible; ++j) {
            double dot = 0;
            for (std::int64_t e = 0; e < p.channels; ++e) dot += q[i * p.channels + e] * k[j * p.channels + e];
            w[j] = dot * scale;
        }
        double peak = *std::max_element(w.begin(), w.end()), total = 0;
        for (auto& x : w) total += (x = std::exp(x - peak));
        for (std::int64_t j = 0; j < visible; ++j)
            for (std::int64_t e = 0; e < p.value_channels; ++e) out[i * p.value_channels + e] += w[j] / total * v[j * p.value_channels + e];
    }
    return out;
}

}  // namespace

std::vector<Case> attention_cases(Size size, std::uint64_t seed, bool causal) {
    std::vector<Problem> problems;
    switch (size) {  // head dimension 8 and block 8 first (seed 000's attention8); then ragged ones
        case Size::small: problems = {{16, 16, 8, 8, 8}, {13, 13, 5, 3, 4}, {1, 1, 2, 2, 8}}; break;
        case Size::medium: problems = {{256, 256, 64, 64, 32}, {200, 200, 48, 40, 16}, {65, 65, 128, 128, 64}}; break;
        case Size::large: problems = {{4096, 4096, 128, 128, 64}, {3000, 3000, 64, 64, 128}, {8192, 8192, 64, 64, 64}}; break;
    }
    if (!causal) problems[1].keys += 7;  // cross attention: more keys than queries, a key tail
    std::vector<Case> cases;
    for (const auto& p : problems) {
        Case c;
        c.shape = std::to_string(p.queries) + "x" + std::to_string(p.keys) + " d" + std::to_string(p.channels) + " dv" +
                  std::to_string(p.value_channels) + " block " + std::to_string(p.block);
        c.kernel = make_attention_kernel(p.block, causal);
        c.args = {input(Kind::F32, {p.queries, p.channels}, uniform(seed, -2, 2)),
                  input(Kind::F32, {p.keys, p.channels}, uniform(seed + 1, -2, 2)),
                  input(Kind::F32, {p.keys, p.value_channels}, uniform(seed + 2, -1, 1)),
                  output(Kind::F32, {p.queries, p.value_channels})};
        c.scalars.assign(c.args.size(), 0);
        c.reference = [p, causal](const Case& c) { return std::vector<std::vector<double>>{reference(c, p, causal)}; };
        // The kernel's arithmetic on Bounded values (attention_bound.h); its f32 scale
        // carries its representation error against the reference's 1/sqrt(d). About
        // 1e-5 at d = 8: a causal mask off by one key or a missing rescale moves
        // outputs by ~0.1, 10^4 bounds.
        c.error_bound = [p, causal](const Case& c) {
            auto q = values(*c.args[0]), k = values(*c.args[1]), v = values(*c.args[2]);
            const AttentionShape shape{p.queries, p.keys, p.channels, p.value_channels, p.block, p.block, causal, true};
            const Bounded scale = constant(1.0 / std::sqrt(static_cast<double>(p.channels)));
            return Bounds{attention_bound(q.data(), k.data(), v.data(), shape, scale)};
        };
        cases.push_back(std::move(c));
    }
    return cases;
}

namespace {

Entry make_attention() {
    Entry e;
    e.name = "attention";
    e.description = "f32 FlashAttention-2 over [n, d] views: online softmax over key blocks, any head dim and block";
    e.cases = [](Size size, std::uint64_t seed) { return attention_cases(size, seed, false); };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_attention);

}  // namespace kiln::catalog
