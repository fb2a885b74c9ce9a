// Normalisations along one dimension: LayerNorm (two-pass), LayerNorm with Welford
// statistics, and RMSNorm. Unweighted; scale and shift are one multiply and one add
// away. Axis forms serve kernel tiles (layer_norm(x, c)); row forms take the last
// dimension of anonymous tiles, like softmax_rows.
#pragma once

#include <utility>
#include <vector>

#include <kiln/std/along.h>

namespace kiln {

namespace detail {

// (x - mean) / sqrt(variance + eps), the variance from the centred values (two passes),
// which stays accurate when the mean is large against the spread.
template <FloatElement T> Tile<T> layer_norm_along(const Tile<T>& x, Along a, double eps, Loc loc) {
    auto centred = sub(x, spread_back(mean_along(x, a, loc), x, loc), loc);
    auto variance = mean_along(mul(centred, centred, loc), a, loc);
    return div(centred, spread_back(sqrt(add(variance, eps, loc), loc), x, loc), loc);
}

template <FloatElement T> Tile<T> rms_norm_along(const Tile<T>& x, Along a, double eps, Loc loc) {
    return div(x, spread_back(sqrt(add(mean_along(mul(x, x, loc), a, loc), eps, loc), loc), x, loc), loc);
}

// Mean and variance by Welford's update in its pairwise form (Chan, Golub and LeVeque):
// two partial states (mean_a, M2_a, n_a) and (mean_b, M2_b, n_b) merge as
//   delta = mean_b - mean_a, mean = mean_a + delta n_b / n, M2 = M2_a + M2_b + delta^2 n_a n_b / n.
// Each level merges the two halves of the dimension elementwise, so the work is
// log2(extent) whole-tile steps (an odd element waits aside and merges at the end),
// and the running values never hold the large sums that make E[x^2] - E[x]^2 cancel.
template <FloatElement T> std::pair<Tile<T>, Tile<T>> welford_along(const Tile<T>& x, Along a, Loc loc) {
    const auto p = static_cast<std::size_t>(a.position);
    auto part = [&](const Tile<T>& t, std::int64_t start, std::int64_t size) {
        std::vector<std::int64_t> origin(t.type().dims.size(), 0), sizes;
        for (auto& d : t.type().dims) sizes.push_back(d.extent);
        origin[p] = start;
        sizes[p] = size;
        return slice(t, origin, sizes, loc);
    };
    struct State {
        Tile<T> mean, m2;
        double count;  // equal in every slot of a level, so a host number, exact up to 2^53
    };
    State s{x, zeros_like(x, loc), 1};
    std::vector<State> aside;
    for (std::int64_t len = x.type().dims[p].extent; len > 1; len /= 2) {
        if (len % 2) {
            aside.push_back({part(s.mean, len - 1, 1), part(s.m2, len - 1, 1), s.count});
            s.mean = part(s.mean, 0, len - 1);
            s.m2 = part(s.m2, 0, len - 1);
            --len;
        }
        auto h = len / 2;
        auto delta = sub(part(s.mean, h, h), part(s.mean, 0, h), loc);
        s.mean = add(part(s.mean, 0, h), mul(delta, 0.5, loc), loc);
        s.m2 = add(add(part(s.m2, 0, h), part(s.m2, h, h), loc), mul(mul(delta, delta, loc), s.count / 2, loc), loc);
        s.count *= 2;
    }
    for (auto& b : aside) {
        double n = s.count + b.count;
        auto delta = sub(b.mean, s.mean, loc);
        s.mean = add(s.mean, mul(delta, b.count / n, loc), loc);
        s.m2 = add(add(s.m2, b.m2, loc), mul(mul(delta, delta, loc), s.count * b.count / n, loc), loc);
        s.count = n;
    }
    // The slices lost the reduced axis's name: reshape to x's own reduced dims.
    auto dims = reduced_dims(x, a);
    return {Tile<T>(reshape(s.mean.value(), dims, loc)), Tile<T>(reshape(div(s.m2, s.count, loc).value(), dims, loc))};
}

template <FloatElement T> Tile<T> layer_norm_welford_along(const Tile<T>& x, Along a, double eps, Loc loc) {
    auto [mean, variance] = welford_along(x, a, loc);
    return div(sub(x, spread_back(mean, x, loc), loc), spread_back(sqrt(add(variance, eps, loc), loc), x, loc), loc);
}

}  // namespace detail

// LayerNorm along axis `a`: (x - mean) / sqrt(variance + eps), population variance.
template <FloatElement T> Tile<T> layer_norm(const Tile<T>& x, const Axis& a, double eps = 1e-5, Loc loc = Loc::here()) {
    return detail::layer_norm_along(x, detail::along(x, a, loc, "layer_norm"), eps, loc);
}
// LayerNorm with Welford (pairwise) statistics: robust for any offset and length.
template <FloatElement T> Tile<T> layer_norm_welford(const Tile<T>& x, const Axis& a, double eps = 1e-5, Loc loc = Loc::here()) {
    return detail::layer_norm_welford_along(x, detail::along(x, a, loc, "layer_norm_welford"), eps, loc);
}
// RMSNorm along axis `a`: x / sqrt(mean(x^2) + eps).
template <FloatElement T> Tile<T> rms_norm(const Tile<T>& x, const Axis& a, double eps = 1e-6, Loc loc = Loc::here()) {
    return detail::rms_norm_along(x, detail::along(x, a, loc, "rms_norm"), eps, loc);
}

// The same along each row (the last dimension) of an anonymous tile.
template <FloatElement T> Tile<T> layer_norm_rows(const Tile<T>& x, double eps = 1e-5, Loc loc = Loc::here()) {
    return detail::layer_norm_along(x, detail::last_dimension(x, loc, "layer_norm_rows"), eps, loc);
}
template <FloatElement T> Tile<T> layer_norm_welford_rows(const Tile<T>& x, double eps = 1e-5, Loc loc = Loc::here()) {
    return detail::layer_norm_welford_along(x, detail::last_dimension(x, loc, "layer_norm_welford_rows"), eps, loc);
}
template <FloatElement T> Tile<T> rms_norm_rows(const Tile<T>& x, double eps = 1e-6, Loc loc = Loc::here()) {
    return detail::rms_norm_along(x, detail::last_dimension(x, loc, "rms_norm_rows"), eps, loc);
}

}  // namespace kiln
