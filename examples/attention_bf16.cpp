// attention_bf16 and attention_softcap: FlashAttention as an ML engineer writes it
// for bf16 models. 4-D [batch, head, sequence, channel] views, bf16 q/k/v/out, f32
// scores and accumulator, the probabilities converted to bf16 for the second mma,
// an online softmax over key blocks in a `pipeline`. Causal cases skip the key blocks
// past the diagonal by the trip count (a function of the program's query block) and
// mask the diagonal block; every case masks the key tail. Grouped-query attention:
// `group` query heads share one key/value head, by index arithmetic on the head.
// attention_softcap adds a score modification (Gemma-style soft-capping,
// cap * tanh(score / cap)) to show that a fast lowering is not a fixed kernel.
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_bf16.h"
#include "typed_gemm.h"

namespace kiln::catalog {

template <class T> Kernel make_attention_kernel(const std::string& name, AttentionConfig cfg) {
    return kernel(name, [=](View<const T, 4> q, View<const T, 4> k, View<const T, 4> v, View<T, 4> out) {
        const auto bq = cfg.block_q, bk = cfg.block_k;
        const float minus_infinity = -std::numeric_limits<float>::infinity();
        auto batch = axis("batch", q.template extent<0>());
        auto head = axis("head", q.template extent<1>());
        auto query_blocks = axis("query_blocks", ceil_div(q.template extent<2>(), bq));
        auto one_b = axis("one_batch", 1), one_h = axis("one_head", 1);
        auto m = axis("query", bq), s = axis("key", bk);
        auto d = axis("channel", q.template extent<3>()), dv = axis("value_channel", v.template extent<3>());
        for (auto& nest : parallel(shape(batch, head, query_blocks))) {
            auto b0 = nest.index(batch), h0 = nest.index(head);
            auto kv_head = h0 / cfg.group;
            auto q0 = nest.index(query_blocks) * bq;
            auto query = q[coord(b0, h0, q0, 0), shape(one_b, one_h, m, d)];
            auto row_max = full<f32>(shape(one_b, one_h, m), cfg.initial_max);
            auto row_sum = zeros<f32>(shape(one_b, one_h, m));
            auto acc = zeros<f32>(shape(one_b, one_h, m, dv));
            // Causal: the key blocks that hold a key <= the block's last query.
            auto all_blocks = ceil_div(k.template extent<2>(), bk);
            auto blocks = cfg.causal ? axis("visible_key_blocks", min((q0 + (bq + bk - 1)) / bk, all_blocks)) : axis("key_blocks", all_blocks);
            for (auto& step : nest.pipeline(shape(blocks), {.window = 2})) {
                auto k0 = step.index() * bk;
                auto key = k[coord(b0, kv_head, k0, 0), shape(one_b, one_h, s, d)];
                auto value = v[coord(b0, kv_head, k0, 0), shape(one_b, one_h, s, dv)];
                auto score = mma(query, key, zeros<f32>(shape(one_b, one_h, m, s))) * cfg.scale;
                if (cfg.softcap > 0) score = tanh(score * (1.0f / cfg.softcap)) * cfg.softcap;
                auto valid = iota(s) + k0 < k.template extent<2>();
                if (cfg.causal) valid = valid && (iota(s) + k0 <= iota(m) + q0);
                auto masked = ite(valid, score, minus_infinity);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto probability = exp(masked - next_max);  // masked keys: exp(-inf) = 0
                row_sum = row_sum * alpha + reduce(probability, s, add);
                acc = mma(cast<T>(probability), value, acc * alpha);
                row_max = next_max;
            }
            out(coord(b0, h0, q0, 0), shape(one_b, one_h, m, dv)).store(cast<T>(acc / row_sum));
        }
    });
}
template Kernel make_attention_kernel<bf16>(const std::string&, AttentionConfig);
template Kernel make_attention_kernel<f16>(const std::string&, AttentionConfig);

namespace {

using Config = AttentionConfig;

struct Dims {
    std::int64_t batches, heads, queries, keys, channels, value_channels, kv_heads;
};

struct Problem {
    Dims n;
    Config cfg;
};

// The scores of one query row against the keys it sees, in f64 (softcap applied).
std::vector<double> scores(const double* qi, const double* kb, const Dims& n, const Config& cfg, std::int64_t i, double scale) {
    const std::int64_t visible = cfg.causal ? std::min(i + 1, n.keys) : n.keys;
    std::vector<double> w(static_cast<std::size_t>(visible));
    for (std::int64_t j = 0; j < visible; ++j) {
        double dot = 0;
        for (std::int64_t e = 0; e < n.channels; ++e) dot += qi[e] * kb[j * n.channels + e];
        w[j] = dot * scale;
        if (cfg.softcap > 0) w[j] = std::tanh(w[j] / cfg.softcap) * cfg.softcap;
    }
    return w;
}

// For each output element: the reference (softmax(scores) v) and a bound on the
// kernel's error that holds for any blocking of queries and keys (a target may
// tile differently from the program). First-order worst cases, with margin:
//  - a score carries the dot product's error (f32 accumulation, any order, on
//    tensor cores: gamma(roundings * d) sum |q k|), the scale's multiply and, with
//    softcap, tanh's and three more roundings (tanh is 1-Lipschitz): e_s per row;
//  - every weight exp(s - max) then moves by at most a factor exp(+-2 e_s) and by
//    exp's own 2.5 ulp; the alphas that rescale the carried state round at most
//    once per key (any blocking has at most one step per key), each a factor
//    (1 + 7u); the probabilities fed to the second mma are rounded to bf16 (u_bf16),
//    the denominator's are not;
//  - sums of p v and of p in any order: gamma(keys) relative to sum p |v|;
//  - the division, then the output's rounding to bf16.
// So |out - ref| <= (2 rel_w + u_bf16 + gamma(keys)) * sum w |v| / sum w + (u + u_bf16) |out|,
// where rel_w bounds one weight's relative error. A key past the diagonal let in,
// a missing rescale or a key-tail mask that lets padding in moves outputs by about
// 0.1 (tens of bounds at these magnitudes).
struct Expected {
    std::vector<double> reference, bound;
};

Expected expected(const Case& c, const Dims& n, const Config& cfg) {
    auto q = values(*c.args[0]), k = values(*c.args[1]), v = values(*c.args[2]);
    const double scale = cfg.scale;  // the f32 scale the kernel uses, exactly
    const double u = unit_roundoff(Kind::F32), ub = unit_roundoff(Kind::BF16);
    Expected x;
    x.reference.assign(static_cast<std::size_t>(n.batches * n.heads * n.queries * n.value_channels), 0.0);
    x.bound = x.reference;
    const std::int64_t group = n.heads / n.kv_heads;
    for (std::int64_t b = 0; b < n.batches; ++b)
        for (std::int64_t h = 0; h < n.heads; ++h) {
            const double* qh = q.data() + (b * n.heads + h) * n.queries * n.channels;
            const std::int64_t kvh = (b * n.kv_heads + h / group) * n.keys;
            const double* kb = k.data() + kvh * n.channels;
            const double* vb = v.data() + kvh * n.value_channels;
            double* ob = x.reference.data() + (b * n.heads + h) * n.queries * n.value_channels;
            double* eb = x.bound.data() + (b * n.heads + h) * n.queries * n.value_channels;
            for (std::int64_t i = 0; i < n.queries; ++i) {
                const double* qi = qh + i * n.channels;
                auto w = scores(qi, kb, n, cfg, i, scale);
                double score_error = 0;
                for (std::size_t j = 0; j < w.size(); ++j) {
                    double magnitude = 0;
                    for (std::int64_t e = 0; e < n.channels; ++e) magnitude += std::abs(qi[e] * kb[j * n.channels + e]);
                    double e_s = gamma(kTensorCoreRoundings * reduction_depth(n.channels) + 2, Kind::F32) * magnitude * scale;
                    // tanh(s * (1/cap)) * cap: the rounded 1/cap and the multiply (|s| <= the
                    // magnitude), tanh's 2.5 ulp of a value <= 1 and the final multiply, times cap.
                    if (cfg.softcap > 0) e_s += 4 * u * magnitude * scale + 8 * u * cfg.softcap;
                    score_error = std::max(score_error, e_s);
                }
                const double peak = *std::max_element(w.begin(), w.end());
                double total = 0;
                for (auto& s : w) total += (s = std::exp(s - peak));
                const double keys = static_cast<double>(w.size());
                const double rel_w = std::expm1(2 * score_error) + (kMathUlps + 0.5) * 2 * u + std::expm1(keys * 7 * u);
                const double factor = 1.01 * (2 * rel_w + ub + gamma(keys + 1, Kind::F32));
                for (std::int64_t e = 0; e < n.value_channels; ++e) {
                    double num = 0, magnitude = 0;
                    for (std::size_t j = 0; j < w.size(); ++j) {
                        num += w[j] * vb[static_cast<std::int64_t>(j) * n.value_channels + e];
                        magnitude += w[j] * std::abs(vb[static_cast<std::int64_t>(j) * n.value_channels + e]);
                    }
                    const double o = num / total;
                    ob[i * n.value_channels + e] = o;
                    eb[i * n.value_channels + e] = factor * magnitude / total + 1.01 * (u + ub) * std::abs(o);
                }
            }
        }
    return x;
}

std::string describe(const Problem& p) {
    const auto& n = p.n;
    std::string s = std::to_string(n.batches) + "x" + std::to_string(n.heads) + "x" + std::to_string(n.queries) + "x" +
                    std::to_string(n.keys) + " d" + std::to_string(n.channels);
    if (n.value_channels != n.channels) s += " dv" + std::to_string(n.value_channels);
    if (n.kv_heads != n.heads) s += " kv_heads " + std::to_string(n.kv_heads);
    s += " block " + std::to_string(p.cfg.block_q) + "x" + std::to_string(p.cfg.block_k);
    return s + (p.cfg.causal ? " causal" : " full");
}

std::vector<Case> make_cases(const std::string& name, Size size, std::uint64_t seed, float softcap) {
    std::vector<Problem> problems;
    // {batches, heads, queries, keys, d, dv, kv heads}, {block q, block k, group, causal}
    switch (size) {
        case Size::small:
            problems = {{{1, 2, 9, 9, 8, 8, 2}, {4, 4, 1, true}},
                        {{1, 2, 5, 11, 16, 8, 2}, {8, 4, 1, false}},
                        {{2, 4, 6, 7, 8, 8, 2}, {4, 8, 2, true}}};
            break;
        case Size::medium:
            problems = {{{2, 4, 128, 128, 64, 64, 4}, {64, 64, 1, true}},
                        {{1, 4, 200, 333, 64, 64, 2}, {64, 64, 2, false}},
                        {{1, 2, 257, 257, 128, 128, 2}, {128, 64, 1, true}}};
            break;
        case Size::large:  // the f64 reference is O(s^2 d) per head on the host: bench/attention_bench.cpp times B=4 H=32 S=4096
            problems = {{{1, 4, 2048, 2048, 128, 128, 4}, {128, 128, 1, false}},
                        {{1, 4, 2048, 2048, 128, 128, 4}, {128, 128, 1, true}},
                        {{1, 8, 1024, 1024, 64, 64, 2}, {128, 128, 4, false}},
                        {{1, 2, 3000, 3001, 128, 128, 2}, {64, 64, 1, true}},
                        {{1, 2, 1024, 1024, 256, 256, 2}, {128, 64, 1, false}}};
            break;
    }
    std::vector<Case> cases;
    for (auto [n, cfg] : problems) {
        cfg.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n.channels)));
        cfg.softcap = softcap;
        Case c;
        c.shape = describe({n, cfg});
        c.kernel = make_attention_kernel<bf16>(name, cfg);
        c.args = {input(Kind::BF16, {n.batches, n.heads, n.queries, n.channels}, uniform(seed, -2, 2)),
                  input(Kind::BF16, {n.batches, n.kv_heads, n.keys, n.channels}, uniform(seed + 1, -2, 2)),
                  input(Kind::BF16, {n.batches, n.kv_heads, n.keys, n.value_channels}, uniform(seed + 2, -1, 1)),
                  output(Kind::BF16, {n.batches, n.heads, n.queries, n.value_channels})};
        c.scalars.assign(c.args.size(), 0);
        c.reference = [n, cfg](const Case& c) { return std::vector<std::vector<double>>{expected(c, n, cfg).reference}; };
        c.error_bound = [n, cfg](const Case& c) {
            auto x = expected(c, n, cfg);
            std::vector<Bounded> out;
            for (std::size_t i = 0; i < x.reference.size(); ++i) out.push_back({x.reference[i], x.bound[i], Kind::BF16});
            return Bounds{out};
        };
        cases.push_back(std::move(c));
    }
    return cases;
}

Entry make_attention_bf16() {
    Entry e;
    e.name = "attention_bf16";
    e.description = "bf16 FlashAttention over 4-D [batch, head, seq, channel] views: full and causal, GQA, ragged lengths";
    e.cases = [](Size size, std::uint64_t seed) { return make_cases("attention_bf16", size, seed, 0.0f); };
    return e;
}

Entry make_attention_softcap() {
    Entry e;
    e.name = "attention_softcap";
    e.description = "attention_bf16 with a score modification: soft-capping, 30 tanh(score / 30)";
    e.cases = [](Size size, std::uint64_t seed) { return make_cases("attention_softcap", size, seed, 30.0f); };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_attention_bf16);
KILN_CATALOG_ENTRY(make_attention_softcap);

}  // namespace kiln::catalog
