// The tile standard library (seed 000's std.tile): one small function per
// operation, written in kiln's own vocabulary, so each runs eagerly, inside
// kernels, and on every target with the same rounding. Row functions take 2-D
// tiles (or any tile: "rows" are all dimensions but the last).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include <kiln/eager.h>
#include <kiln/std/activations.h>
#include <kiln/std/losses.h>
#include <kiln/std/norms.h>

namespace kiln {

// R x 1: each row's maximum / sum, folded left to right.
template <FloatElement T> Tile<T> row_max(const Tile<T>& t, Loc loc = Loc::here()) {
    return reduce_dim(t, -1, maximum, loc);
}
template <Element T> Tile<T> row_sum(const Tile<T>& t, Loc loc = Loc::here()) {
    return reduce_dim(t, -1, add, loc);
}
// Each element combined with its row's entry of an R x 1 tile.
template <Element T> Tile<T> sub_rows(const Tile<T>& t, const Tile<T>& r, Loc loc = Loc::here()) {
    return broadcast_rows(t, r, [](Scalar<T> a, Scalar<T> b) { return a - b; }, loc);
}
template <Element T> Tile<T> mul_rows(const Tile<T>& t, const Tile<T>& r, Loc loc = Loc::here()) {
    return broadcast_rows(t, r, [](Scalar<T> a, Scalar<T> b) { return a * b; }, loc);
}
template <Element T> Tile<T> div_rows(const Tile<T>& t, const Tile<T>& r, Loc loc = Loc::here()) {
    return broadcast_rows(t, r, [](Scalar<T> a, Scalar<T> b) { return a / b; }, loc);
}
// Softmax along each row: exp(x - max) / sum.
template <FloatElement T> Tile<T> softmax_rows(const Tile<T>& t, Loc loc = Loc::here()) {
    auto e = exp(sub_rows(t, row_max(t, loc), loc), loc);
    return div_rows(e, row_sum(e, loc), loc);
}

// FlashAttention-2 (online softmax) over row-major [n, d] tiles, one block of
// `block` query rows at a time, keys and values streamed `block` rows at a time:
// a running row maximum, a running denominator and an unnormalised output,
// rescaled when the maximum moves. Any head dimension; n need not divide by block.
template <FloatElement T>
Tile<T> attention(const Tile<T>& q, const Tile<T>& k, const Tile<T>& v, std::int64_t block, bool causal = false, Loc loc = Loc::here()) {
    auto qs = q.shape(), ks = k.shape(), vs = v.shape();
    if (qs.size() != 2 || ks.size() != 2 || vs.size() != 2 || qs[1] != ks[1] || ks[0] != vs[0])
        fail(loc, "attention", "expects q [n, d], k [m, d], v [m, dv]");
    if (block <= 0) fail(loc, "attention", "block must be positive");
    const double scale = 1.0 / std::sqrt(static_cast<double>(qs[1]));
    std::vector<T> out(static_cast<std::size_t>(qs[0] * vs[1]));
    for (std::int64_t q0 = 0; q0 < qs[0]; q0 += block) {
        std::int64_t bq = std::min(block, qs[0] - q0);
        auto qb = slice(q, {q0, 0}, {bq, qs[1]}, loc);
        auto m = full<T>(shape(bq, 1), -std::numeric_limits<double>::infinity(), loc);
        auto l = zeros<T>(bq, 1, loc);
        auto o = zeros<T>(bq, vs[1], loc);
        for (std::int64_t k0 = 0; k0 < ks[0]; k0 += block) {
            if (causal && k0 > q0 + bq - 1) break;  // key blocks past the query block
            std::int64_t bk = std::min(block, ks[0] - k0);
            auto kb = slice(k, {k0, 0}, {bk, ks[1]}, loc);
            auto vb = slice(v, {k0, 0}, {bk, vs[1]}, loc);
            auto s = mul(dot(qb, transpose(kb, loc), loc), scale, loc);
            if (causal) {
                // Mask the upper triangle of the diagonal block: key index > query index.
                auto grid = arange(bq, bk, loc);
                auto qi = add(div(grid, bk, loc), q0, loc);
                auto ki = add(grid % bk, k0, loc);
                s = ite(ki <= qi, s, -std::numeric_limits<double>::infinity(), loc);
            }
            auto m_new = maximum(m, row_max(s, loc), loc);
            auto p = exp(sub_rows(s, m_new, loc), loc);
            auto alpha = exp(sub(m, m_new, loc), loc);
            l = add(mul(l, alpha, loc), row_sum(p, loc), loc);
            o = add(mul_rows(o, alpha, loc), dot(p, vb, loc), loc);
            m = m_new;
        }
        auto ob = div_rows(o, l, loc).to_vector(loc);
        std::copy(ob.begin(), ob.end(), out.begin() + q0 * vs[1]);
    }
    return from_vec(out, qs[0], vs[1], loc);
}
template <FloatElement T>
Tile<T> causal_attention(const Tile<T>& q, const Tile<T>& k, const Tile<T>& v, std::int64_t block, Loc loc = Loc::here()) {
    return attention(q, k, v, block, true, loc);
}

// The plain f64 definition attention is checked against: softmax(q k^T / sqrt(d)) v.
inline std::vector<double> attention_ref(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                                         std::int64_t n, std::int64_t m, std::int64_t d, std::int64_t dv, bool causal = false) {
    std::vector<double> out(static_cast<std::size_t>(n * dv), 0.0);
    double scale = 1.0 / std::sqrt(static_cast<double>(d));
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<double> s(static_cast<std::size_t>(m));
        double mx = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < m; ++j) {
            double acc = 0;
            for (std::int64_t c = 0; c < d; ++c) acc += q[static_cast<std::size_t>(i * d + c)] * k[static_cast<std::size_t>(j * d + c)];
            s[static_cast<std::size_t>(j)] = (causal && j > i) ? -std::numeric_limits<double>::infinity() : acc * scale;
            mx = std::max(mx, s[static_cast<std::size_t>(j)]);
        }
        double den = 0;
        for (auto& x : s) den += (x = std::exp(x - mx));
        for (std::int64_t j = 0; j < m; ++j)
            for (std::int64_t c = 0; c < dv; ++c)
                out[static_cast<std::size_t>(i * dv + c)] += s[static_cast<std::size_t>(j)] / den * v[static_cast<std::size_t>(j * dv + c)];
    }
    return out;
}

}  // namespace kiln
