// Error bounds for the catalog's comparisons (docs/catalog.md, "How tolerances are
// derived"). An entry restates its kernel's arithmetic on `Bounded` values: each
// carries the exact value of an intermediate result (in f64, from the stored
// inputs) and a bound on how far the kernel's value can be from it, on any target
// in either precision. The bound of an output element is its tolerance:
// |out_i - ref_i| <= bound_i. Bounds are worst cases, not estimates, so a seed that
// exceeds one shows a bug; they are computed from the magnitudes that feed each element,
// so they stay meaningful where a result cancels (a loss, a difference, a sum near 0).
//
// The model (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 2-4):
//  - + - * / sqrt are correctly rounded (every target: docs/semantics.md): the
//    result z of exact operands rounds to z (1 + d) + e with |d| <= u and |e| <= eta
//    (e only for * / and functions: a sum that underflows is exact);
//  - exp, log, tanh are within 2 ulp of the correctly rounded result in precision
//    standard (the targets' own functions), so within 2.5 ulp <= 5u |z| of z;
//    kiln's own math (interp, exact mode) is within 0.5 ulp + 1.03 f64 ulp;
//  - a sum that a target may reassociate (reduce, mma, dot in precision standard)
//    is bounded for any order: no term passes more than `depth` roundings, so the
//    computed sum is within gamma(depth) * sum(|x_i|) of the exact one; FMA only
//    removes roundings, so the bounds cover contracted code too;
//  - an error carried in an operand propagates by the operation's derivative
//    (worst case over the operand's interval), then the result is rounded.
// The f64 reference rounds too (2^-53 per operation): each u below carries 2^-50
// on top, which covers a few reference roundings of every modelled one.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/kind.h>

namespace kiln::catalog {

// A value of the kernel's computation: exact, with a bound on the kernel's error.
struct Bounded {
    double value = 0;       // the exact result of the operations so far
    double error = 0;       // |the kernel's rounded result - value| <= error
    Kind kind = Kind::F32;  // the kind the kernel holds it in (rounds it to)
};

// The bounds of a case: one vector per output, one element per output element.
using Bounds = std::vector<std::vector<Bounded>>;

// The unit roundoff of a float kind (2^-24 f32, 2^-11 f16, 2^-8 bf16, 2^-53 f64)
// plus the reference's share (above).
double unit_roundoff(Kind k);
// n u / (1 - n u): n roundings of at most u each, compounded.
double gamma(double n, Kind k);
// How many ulps from the correctly rounded result a target's exp, log or tanh may
// be in precision standard (docs/semantics.md).
inline constexpr double kMathUlps = 2;

// An input element: the kernel reads it exactly.
Bounded exact(double v, Kind k = Kind::F32);
// A literal the kernel holds as c rounded to kind k (error |round(c) - c|, computed).
Bounded constant(double c, Kind k = Kind::F32);
// x rounded to another kind (cast<>, or a narrow product rounded to the accumulator).
Bounded cast(const Bounded& x, Kind k);

// Rounded operations of the operands' kind (two kinds: std::invalid_argument, as
// kernels never mix them); a double beside a Bounded is a literal of its kind.
Bounded operator+(const Bounded& a, const Bounded& b);
Bounded operator-(const Bounded& a, const Bounded& b);
Bounded operator*(const Bounded& a, const Bounded& b);
Bounded operator/(const Bounded& a, const Bounded& b);  // infinite bound if b's interval holds 0
Bounded operator+(const Bounded& a, double b);
Bounded operator+(double a, const Bounded& b);
Bounded operator-(const Bounded& a, double b);
Bounded operator-(double a, const Bounded& b);
Bounded operator*(const Bounded& a, double b);
Bounded operator*(double a, const Bounded& b);
Bounded operator/(const Bounded& a, double b);
// Exact operations: a negation, |x| and a selection change no bits.
Bounded operator-(const Bounded& a);
Bounded abs(const Bounded& a);
Bounded max(const Bounded& a, const Bounded& b);  // 1-Lipschitz: the larger error
Bounded min(const Bounded& a, const Bounded& b);
Bounded max(const Bounded& a, double b);
Bounded min(const Bounded& a, double b);
// Correctly rounded square root (of an operand the kernel never computes below 0).
Bounded sqrt(const Bounded& a);
// Functions within kMathUlps of correctly rounded (log needs an operand above 0).
Bounded exp(const Bounded& a);
Bounded log(const Bounded& a);
Bounded tanh(const Bounded& a);
// 1/sqrt(a) in one operation (rsqrt: kiln's own is correctly rounded, a target's
// within kMathUlps), of an operand the kernel never computes at or below 0.
Bounded rsqrt(const Bounded& a);

// The sum of `terms` in any order (a reduction a target may reassociate), where no
// term passes more than `depth` roundings: gamma(depth) * sum(|x_i| + e_i) on top of
// the terms' own errors. `reduction_depth(n)` is the depth of any order of n terms.
Bounded sum(const std::vector<Bounded>& terms, double depth);
inline double reduction_depth(std::int64_t n) { return n > 1 ? static_cast<double>(n - 1) : 0.0; }

// The bounds of C = A B, row-major A [m, k] and B [k, n]: each product rounded to
// the accumulator kind `acc`, the k products summed with no term passing more than
// `depth` roundings (reduction_depth(k) when any order is allowed).
std::vector<Bounded> matrix_product(const std::vector<double>& a, const std::vector<double>& b, std::int64_t m, std::int64_t n,
                                    std::int64_t k, double depth, Kind acc = Kind::F32);

// One output's bounds, element by element: element(i) for i in [0, n).
template <class F> std::vector<Bounded> each_element(std::int64_t n, F element) {
    std::vector<Bounded> out;
    out.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) out.push_back(element(i));
    return out;
}

}  // namespace kiln::catalog
