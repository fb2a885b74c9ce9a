// Mean losses between a prediction and a target along one dimension: MSE, MAE, Huber
// and binary cross entropy. Axis forms reduce a kernel tile's axis (the axis drops
// out); row forms reduce the last dimension of an anonymous tile into R x 1.
#pragma once

#include <kiln/std/along.h>

namespace kiln {

namespace detail {

template <FloatElement T> Tile<T> mse_along(const Tile<T>& pred, const Tile<T>& target, Along a, Loc loc) {
    auto d = sub(pred, target, loc);
    return mean_along(mul(d, d, loc), a, loc);
}
template <FloatElement T> Tile<T> mae_along(const Tile<T>& pred, const Tile<T>& target, Along a, Loc loc) {
    return mean_along(abs(sub(pred, target, loc), loc), a, loc);
}
// Quadratic within delta of the target, linear beyond, continuous with its slope.
template <FloatElement T> Tile<T> huber_along(const Tile<T>& pred, const Tile<T>& target, Along a, double delta, Loc loc) {
    auto d = sub(pred, target, loc);
    auto m = abs(d, loc);
    auto loss = ite(m <= delta, mul(mul(d, d, loc), 0.5, loc), mul(sub(m, 0.5 * delta, loc), delta, loc), loc);
    return mean_along(loss, a, loc);
}
// -(t log p + (1 - t) log(1 - p)), p clamped into [eps, 1 - eps] so both logs are finite.
template <FloatElement T> Tile<T> bce_along(const Tile<T>& p, const Tile<T>& target, Along a, double eps, Loc loc) {
    auto q = min(max(p, eps, loc), 1.0 - eps, loc);
    auto log_likelihood = add(mul(target, log(q, loc), loc), mul(sub(1.0, target, loc), log(sub(1.0, q, loc), loc), loc), loc);
    return mean_along(-log_likelihood, a, loc);
}

}  // namespace detail

template <FloatElement T> Tile<T> mse(const Tile<T>& pred, const Tile<T>& target, const Axis& a, Loc loc = Loc::here()) {
    return detail::mse_along(pred, target, detail::along(pred, a, loc, "mse"), loc);
}
template <FloatElement T> Tile<T> mae(const Tile<T>& pred, const Tile<T>& target, const Axis& a, Loc loc = Loc::here()) {
    return detail::mae_along(pred, target, detail::along(pred, a, loc, "mae"), loc);
}
template <FloatElement T>
Tile<T> huber(const Tile<T>& pred, const Tile<T>& target, const Axis& a, double delta = 1.0, Loc loc = Loc::here()) {
    return detail::huber_along(pred, target, detail::along(pred, a, loc, "huber"), delta, loc);
}
// eps must survive rounding to T on both sides: the default suits f32; f16 wants ~1e-3.
template <FloatElement T>
Tile<T> bce(const Tile<T>& p, const Tile<T>& target, const Axis& a, double eps = 1e-7, Loc loc = Loc::here()) {
    return detail::bce_along(p, target, detail::along(p, a, loc, "bce"), eps, loc);
}

template <FloatElement T> Tile<T> mse_rows(const Tile<T>& pred, const Tile<T>& target, Loc loc = Loc::here()) {
    return detail::mse_along(pred, target, detail::last_dimension(pred, loc, "mse_rows"), loc);
}
template <FloatElement T> Tile<T> mae_rows(const Tile<T>& pred, const Tile<T>& target, Loc loc = Loc::here()) {
    return detail::mae_along(pred, target, detail::last_dimension(pred, loc, "mae_rows"), loc);
}
template <FloatElement T> Tile<T> huber_rows(const Tile<T>& pred, const Tile<T>& target, double delta = 1.0, Loc loc = Loc::here()) {
    return detail::huber_along(pred, target, detail::last_dimension(pred, loc, "huber_rows"), delta, loc);
}
template <FloatElement T> Tile<T> bce_rows(const Tile<T>& p, const Tile<T>& target, double eps = 1e-7, Loc loc = Loc::here()) {
    return detail::bce_along(p, target, detail::last_dimension(p, loc, "bce_rows"), eps, loc);
}

}  // namespace kiln
