#include "error_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "interp/semantics.h"

namespace kiln::catalog {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The f64 reference's share of every modelled rounding (error_bound.h).
constexpr double kReferenceShare = 0x1p-50;

double raw_unit_roundoff(Kind k) {
    switch (k) {
        case Kind::F16: return 0x1p-11;
        case Kind::BF16: return 0x1p-8;
        case Kind::F64: return 0x1p-53;
        default: return 0x1p-24;  // f32 (integer kinds never reach here)
    }
}

// Half the smallest subnormal: the most a correctly rounded result that underflows
// can lose beyond its relative error.
double underflow(Kind k) {
    switch (k) {
        case Kind::F16: return 0x1p-25;
        case Kind::BF16: return 0x1p-134;
        case Kind::F64: return 0x1p-1074;  // half of it is below the doubles: the whole
        default: return 0x1p-150;
    }
}

// A result z of the kernel's operands (which are within `carried` of the exact
// ones) rounded once to k: |fl(z~) - z| <= carried + u |z~| + eta.
Bounded rounded(double z, double carried, Kind k, bool may_underflow) {
    if (std::isinf(z)) return {z, 0, k};  // an infinite result (a -inf mask) is exact
    const double u = unit_roundoff(k);
    return {z, carried + u * (std::abs(z) + carried) + (may_underflow ? underflow(k) : 0.0), k};
}

// A function value z whose argument carried an error that moves z by `carried`,
// so that the function of the kernel's argument is f, |f| <= |z| + carried. The
// result is within kMathUlps ulps of the correctly rounded r, and |r - f| <= u |f|;
// an ulp of r is at most 2u |r| <= 2u (1 + u) |f| (below the normal range, 2 eta).
Bounded function_value(double z, double carried, Kind k) {
    if (std::isinf(z) || std::isnan(carried)) return {z, std::isinf(z) ? 0.0 : kInf, k};
    const double u = unit_roundoff(k);
    const double relative = (2 * kMathUlps * (1 + u) + 1) * u;
    return {z, carried + relative * (std::abs(z) + carried) + (2 * kMathUlps + 1) * underflow(k), k};
}

// Kernels never mix kinds implicitly; an analysis that does is wrong.
Kind common_kind(const Bounded& a, const Bounded& b) {
    if (a.kind != b.kind)
        throw std::invalid_argument("error bound: an operation on " + std::string(kind_name(a.kind)) + " and " + std::string(kind_name(b.kind)) +
                                    " values; cast<> one of them, as the kernel does");
    return a.kind;
}

}  // namespace

double unit_roundoff(Kind k) { return raw_unit_roundoff(k) + kReferenceShare; }

double gamma(double n, Kind k) {
    const double nu = n * unit_roundoff(k);
    return nu < 1 ? nu / (1 - nu) : kInf;
}

Bounded exact(double v, Kind k) { return {v, 0, k}; }

Bounded constant(double c, Kind k) { return {c, std::abs(ref::round_to(k, c) - c), k}; }

Bounded cast(const Bounded& x, Kind k) { return rounded(x.value, x.error, k, true); }

Bounded operator+(const Bounded& a, const Bounded& b) { return rounded(a.value + b.value, a.error + b.error, common_kind(a, b), false); }
Bounded operator-(const Bounded& a, const Bounded& b) { return rounded(a.value - b.value, a.error + b.error, common_kind(a, b), false); }

Bounded operator*(const Bounded& a, const Bounded& b) {
    // |a~ b~ - a b| <= |a| e_b + |b| e_a + e_a e_b
    const double carried = std::abs(a.value) * b.error + std::abs(b.value) * a.error + a.error * b.error;
    return rounded(a.value * b.value, carried, common_kind(a, b), true);
}

Bounded operator/(const Bounded& a, const Bounded& b) {
    // |a~/b~ - a/b| <= (e_a + |a/b| e_b) / (|b| - e_b), when b's interval excludes 0
    const double z = a.value / b.value;
    const double room = std::abs(b.value) - b.error;
    if (!(room > 0)) return {z, kInf, common_kind(a, b)};
    return rounded(z, (a.error + std::abs(z) * b.error) / room, common_kind(a, b), true);
}

Bounded operator+(const Bounded& a, double b) { return a + constant(b, a.kind); }
Bounded operator+(double a, const Bounded& b) { return constant(a, b.kind) + b; }
Bounded operator-(const Bounded& a, double b) { return a - constant(b, a.kind); }
Bounded operator-(double a, const Bounded& b) { return constant(a, b.kind) - b; }
Bounded operator*(const Bounded& a, double b) { return a * constant(b, a.kind); }
Bounded operator*(double a, const Bounded& b) { return constant(a, b.kind) * b; }
Bounded operator/(const Bounded& a, double b) { return a / constant(b, a.kind); }

Bounded operator-(const Bounded& a) { return {-a.value, a.error, a.kind}; }
Bounded abs(const Bounded& a) { return {std::abs(a.value), a.error, a.kind}; }
Bounded max(const Bounded& a, const Bounded& b) { return {std::max(a.value, b.value), std::max(a.error, b.error), common_kind(a, b)}; }
Bounded min(const Bounded& a, const Bounded& b) { return {std::min(a.value, b.value), std::max(a.error, b.error), common_kind(a, b)}; }
Bounded max(const Bounded& a, double b) { return max(a, constant(b, a.kind)); }
Bounded min(const Bounded& a, double b) { return min(a, constant(b, a.kind)); }

Bounded sqrt(const Bounded& a) {
    if (a.value < 0) return {std::sqrt(a.value), kInf, a.kind};
    // |sqrt(a~) - sqrt(a)| = |a~ - a| / (sqrt(a~) + sqrt(a)), largest at a~ = a - e;
    // where that reaches 0, at most sqrt(e).
    const double carried = a.value >= a.error ? a.error / (std::sqrt(a.value) + std::sqrt(a.value - a.error)) : std::sqrt(a.error);
    return rounded(std::sqrt(a.value), carried, a.kind, true);
}

Bounded exp(const Bounded& a) {
    // exp is increasing and convex: the upper end of the interval moves it most.
    const double z = std::exp(a.value);
    const double carried = z > 0 ? z * std::expm1(a.error) : std::exp(a.value + a.error);
    return function_value(z, carried, a.kind);
}

Bounded log(const Bounded& a) {
    // log is increasing and concave: the lower end moves it most (and must stay above 0).
    const double z = std::log(a.value);
    if (!(a.value > a.error)) return {z, kInf, a.kind};
    return function_value(z, -std::log1p(-a.error / a.value), a.kind);
}

Bounded rsqrt(const Bounded& a) {
    // 1/sqrt is decreasing and convex: the lower end of the interval moves it most
    // (and must stay above 0).
    const double z = 1 / std::sqrt(a.value);
    if (!(a.value > a.error)) return {z, kInf, a.kind};
    return function_value(z, 1 / std::sqrt(a.value - a.error) - z, a.kind);
}

Bounded tanh(const Bounded& a) {
    // tanh' = 1 - tanh^2 is largest where |x| is smallest on the interval.
    const double nearest = std::max(std::abs(a.value) - a.error, 0.0);
    const double slope = 1 - std::tanh(nearest) * std::tanh(nearest);
    return function_value(std::tanh(a.value), slope * a.error, a.kind);
}

Bounded sum(const std::vector<Bounded>& terms, double depth) {
    if (terms.empty()) return {};
    double z = 0, carried = 0, magnitude = 0;
    for (const auto& t : terms) {
        z += t.value;
        carried += t.error;
        magnitude += std::abs(t.value) + t.error;
    }
    const Kind k = terms.front().kind;
    return {z, carried + gamma(depth, k) * magnitude, k};
}

std::vector<Bounded> matrix_product(const std::vector<double>& a, const std::vector<double>& b, std::int64_t m, std::int64_t n,
                                    std::int64_t k, double depth, Kind acc) {
    std::vector<Bounded> c;
    std::vector<Bounded> products(static_cast<std::size_t>(k));
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            for (std::int64_t t = 0; t < k; ++t) products[t] = exact(a[i * k + t], acc) * exact(b[t * n + j], acc);
            c.push_back(sum(products, depth));
        }
    return c;
}

}  // namespace kiln::catalog
