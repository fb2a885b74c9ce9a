#include "attention_bound.h"

#include <algorithm>
#include <limits>

namespace kiln::catalog {

// Per query row, per key block: scores (a dot product, any order, then * scale), the
// new running maximum (exact selections), alpha = exp(old max - new max), the
// probabilities exp(score - new max), row_sum * alpha + their sum, and the second mma
// acc * alpha + sum p v (any order). Masked keys contribute exact zeros and no
// roundings. The first block's alpha is exactly 0 (exp of -inf or of -1e30 - max);
// a block with no visible key leaves the maximum bit for bit, so alpha = exp(0).
// Errors are treated as independent worst cases: the common factor that the alphas
// put on acc and row_sum cancels in acc / row_sum, which this counts twice; the
// bound is looser for it, by a small factor.
std::vector<Bounded> attention_bound(const double* q, const double* k, const double* v, const AttentionShape& s, Bounded scale) {
    std::vector<Bounded> out;
    const std::int64_t key_blocks = (s.keys + s.block_k - 1) / s.block_k;
    std::vector<Bounded> products(static_cast<std::size_t>(s.channels));
    for (std::int64_t i = 0; i < s.queries; ++i) {
        std::int64_t blocks = key_blocks;
        if (s.causal && s.skips_masked_blocks) blocks = std::min(blocks, i / s.block_q + 1);
        Bounded row_max = exact(-std::numeric_limits<double>::infinity()), row_sum = exact(0);
        std::vector<Bounded> acc(static_cast<std::size_t>(s.value_channels), exact(0));
        bool started = false;
        for (std::int64_t b = 0; b < blocks; ++b) {
            std::vector<std::int64_t> visible;
            for (std::int64_t j = b * s.block_k; j < std::min((b + 1) * s.block_k, s.keys); ++j)
                if (!s.causal || j <= i) visible.push_back(j);
            std::vector<Bounded> score;
            Bounded next_max = row_max;
            for (auto j : visible) {
                for (std::int64_t e = 0; e < s.channels; ++e) products[e] = exact(q[i * s.channels + e]) * exact(k[j * s.channels + e]);
                score.push_back(sum(products, reduction_depth(s.channels)) * scale);
                next_max = max(next_max, score.back());
            }
            const Bounded alpha = !started ? exact(0) : visible.empty() ? exp(exact(0)) : exp(row_max - next_max);
            std::vector<Bounded> probability;
            for (const auto& x : score) probability.push_back(exp(x - next_max));
            row_sum = row_sum * alpha;
            if (!visible.empty()) row_sum = row_sum + sum(probability, reduction_depth(static_cast<std::int64_t>(visible.size())));
            for (std::int64_t e = 0; e < s.value_channels; ++e) {
                std::vector<Bounded> terms = {acc[e] * alpha};
                for (std::size_t t = 0; t < visible.size(); ++t) terms.push_back(probability[t] * exact(v[visible[t] * s.value_channels + e]));
                acc[e] = sum(terms, static_cast<double>(visible.size()));
            }
            row_max = next_max;
            started = started || !visible.empty();
        }
        for (const auto& a : acc) out.push_back(a / row_sum);
    }
    return out;
}

}  // namespace kiln::catalog
