#ifndef KILN_HD
#if defined(__CUDACC__)
#define KILN_HD __host__ __device__ __forceinline__
#else
#define KILN_HD inline
#endif
#endif
// kiln's deterministic f64 math: the same source on every engine, so exact mode
// agrees bit for bit everywhere. Pasted verbatim after kround.h into generated
// C++ and NVRTC-compiled CUDA, so it includes no standard header.
//
// Building blocks are only correctly rounded IEEE + - * / and sqrt, comparisons
// and exact bit manipulation. No FMA: on the GPU every operation is an explicit
// __d*_rn intrinsic, which the compiler never contracts even with fmad=true;
// host code relies on -ffp-contract=off (kiln compiles everything with it).
// Accuracy target <= 2 ulp; the designs below measure <= 1 ulp (see kmath_test).
// Where a plain-double formula would lose bits to cancellation or to a
// long chain of roundings, the code carries a double-double (hi + lo, Dekker/
// Knuth error-free transforms, Veltkamp splitting because there is no FMA).
// Polynomial coefficients are Chebyshev fits made with mpmath for kiln, written
// as hex literals so every compiler reads the same bits.
// NaN results are some quiet NaN; payload bits are not part of the contract.
#ifndef KILN_KMATH_H
#define KILN_KMATH_H

#ifndef KILN_KROUND_H
// Generated code pastes kround.h just before this file, so this is skipped
// there; a C++ file that includes kmath.h on its own gets kround.h here.
#include "kround.h"
#endif

namespace kiln_rt {
namespace kd {  // implementation details

#if defined(__CUDA_ARCH__)
KILN_HD double add(double a, double b) { return __dadd_rn(a, b); }
KILN_HD double sub(double a, double b) { return __dsub_rn(a, b); }
KILN_HD double mul(double a, double b) { return __dmul_rn(a, b); }
KILN_HD double div(double a, double b) { return __ddiv_rn(a, b); }
KILN_HD double sqrt_rn(double a) { return __dsqrt_rn(a); }
#else
KILN_HD double add(double a, double b) { return a + b; }
KILN_HD double sub(double a, double b) { return a - b; }
KILN_HD double mul(double a, double b) { return a * b; }
KILN_HD double div(double a, double b) { return a / b; }
KILN_HD double sqrt_rn(double a) { return __builtin_sqrt(a); }
#endif

KILN_HD double inf() { return double_of(0x7ff0000000000000ULL); }
KILN_HD double qnan() { return double_of(0x7ff8000000000000ULL); }
KILN_HD bool sign_bit(double x) { return (bits_of(x) >> 63) != 0; }
KILN_HD double fabs_(double x) { return double_of(bits_of(x) & 0x7fffffffffffffffULL); }

// Horner: c0 + x*(c1 + x*(c2 + ...)), each step two roundings, never fused.
KILN_HD double poly(double, double c0) { return c0; }
template <class... C>
KILN_HD double poly(double x, double c0, C... c) { return add(c0, mul(x, poly(x, c...))); }

// ---- double-double ----------------------------------------------------------
struct dd { double hi, lo; };
// Exact a + b = hi + lo, valid when |a| >= |b| (or a == 0).
KILN_HD dd fast_two_sum(double a, double b) { const double s = add(a, b); return {s, add(sub(a, s), b)}; }
// Exact a + b = hi + lo for any a, b (Knuth).
KILN_HD dd two_sum(double a, double b) {
    const double s = add(a, b), bb = sub(s, a);
    return {s, add(sub(a, sub(s, bb)), sub(b, bb))};
}
// Exact a * b = hi + lo without FMA (Dekker): Veltkamp splits each factor into
// 26-bit halves whose partial products are exact. Needs |a|,|b| < 2^995.
KILN_HD dd split(double a) {
    const double c = mul(134217729.0, a);  // 2^27 + 1
    const double h = sub(c, sub(c, a));
    return {h, sub(a, h)};
}
KILN_HD dd two_prod(double a, double b) {
    const double p = mul(a, b);
    const dd x = split(a), y = split(b);
    const double e = add(add(add(sub(mul(x.hi, y.hi), p), mul(x.hi, y.lo)), mul(x.lo, y.hi)), mul(x.lo, y.lo));
    return {p, e};
}
KILN_HD dd dd_add(dd a, dd b) {
    const dd s = two_sum(a.hi, b.hi);
    return fast_two_sum(s.hi, add(s.lo, add(a.lo, b.lo)));
}
KILN_HD dd dd_mul(dd a, dd b) {
    const dd p = two_prod(a.hi, b.hi);
    return fast_two_sum(p.hi, add(p.lo, add(mul(a.hi, b.lo), mul(a.lo, b.hi))));
}
// a / b: one Newton correction from the exact remainder a - q*b.
KILN_HD dd dd_div(dd a, dd b) {
    const double q = div(a.hi, b.hi);
    const dd p = two_prod(q, b.hi);
    const double rem = sub(add(sub(sub(a.hi, p.hi), p.lo), a.lo), mul(q, b.lo));
    return fast_two_sum(q, div(rem, b.hi));
}

// y * 2^k for k in about [-2000, 2000] with a single rounding of the final
// product (intermediate factors keep y in the normal range; y near 1 here).
KILN_HD double scale2(double y, int k) {
    if (k > 1023) {
        y = mul(y, 0x1p1023); k -= 1023;
        if (k > 1023) { y = mul(y, 0x1p1023); k -= 1023; if (k > 1023) k = 1023; }
    } else if (k < -1022) {
        y = mul(y, 0x1p-969); k += 969;  // 2^(-1022+53): still exact for y >= 1
        if (k < -1022) { y = mul(y, 0x1p-969); k += 969; if (k < -1022) k = -1022; }
    }
    return mul(y, pow2i(k));
}

// (y.hi + y.lo) * 2^k rounded once, also when the result is subnormal. There
// the rounding is done by adding 1: on [1, 2) doubles are spaced 2^-52, which
// scaled by 2^-1022 is exactly the subnormal spacing 2^-1074, so the sum
// rounds to the right grid and the rest is exact.
KILN_HD double scale_dd(dd y, int k) {
    if (k > -1022 || (k == -1022 && y.hi >= 1.0)) return scale2(y.hi, k);
    const double p = pow2i(k + 1022);                  // k >= -1077 from the callers
    const dd h = fast_two_sum(1.0, mul(y.hi, p));
    const double r = add(h.hi, add(h.lo, mul(y.lo, p)));
    return mul(sub(r, 1.0), 0x1p-1022);
}

// ln2 = L2HI + L2LO to 2^-101; L2HI has 42 significant bits so k*L2HI is exact
// for every |k| < 2^11 that exp and log produce.
constexpr double L2HI = 0x1.62e42fefa3800p-1, L2LO = 0x1.ef35793c76730p-45;

// exp(x + xl) = 2^k (1 + hi + lo), with hi + lo = e^r - 1 in [-0.30, 0.42]
// to a relative error ~2^-60; |x| <= ~750, |xl| small against x.
// Why: k = nearest(x / ln2) (Cody-Waite), r = x - k ln2 exactly as a
// double-double (k*L2HI and the subtraction are exact), then
// e^r - 1 = r + r^2/2 + r^3 P(r) on |r| <= ln2/2, where r + r^2/2 is summed
// exactly (r^2 by two_prod) so only the small r^3 term carries rounding error.
// Returning e^r - 1 rather than e^r lets expm1 avoid cancelling against 1.
KILN_HD dd expm1_core(double x, double xl, int& k) {
    const double t = mul(x, 0x1.71547652b82fep+0);  // x / ln2
    const double fk = (double)(long long)add(t, t < 0 ? -0.5 : 0.5);
    k = (int)fk;
    const double hi = sub(x, mul(fk, L2HI));
    const dd r = two_sum(hi, sub(xl, mul(fk, L2LO)));
    const double p = poly(r.hi,
        0x1.5555555555557p-3, 0x1.5555555555556p-5, 0x1.111111110ff8bp-7, 0x1.6c16c16c16214p-10,
        0x1.a01a01ac9de9ep-13, 0x1.a01a01a74077ap-16, 0x1.71ddfff6573d6p-19, 0x1.27e4da1e12fb1p-22,
        0x1.af5282aacdb2ep-26, 0x1.1f75a3caadff5p-29);
    const dd z = two_prod(r.hi, r.hi);
    const dd h = two_sum(r.hi, mul(0.5, z.hi));
    // e^(r.hi + r.lo) - 1 ~= (e^r.hi - 1) + r.lo (1 + r.hi).
    const double tail = add(add(h.lo, mul(0.5, z.lo)),
                            add(mul(mul(r.hi, z.hi), p), add(r.lo, mul(r.lo, r.hi))));
    return fast_two_sum(h.hi, tail);
}
// exp(x + xl) = (hi + lo) * 2^k, hi + lo in [0.70, 1.42].
KILN_HD dd exp_core(double x, double xl, int& k) {
    const dd m = expm1_core(x, xl, k);
    const dd s = fast_two_sum(1.0, m.hi);
    return fast_two_sum(s.hi, add(s.lo, m.lo));
}

// log(x) as a double-double with relative error ~2^-64, for finite x > 0
// (what pow needs: y*log(x) up to 745 must be good to 2^-55 absolute).
// Why: x = 2^k m with m in [sqrt(1/2), sqrt(2)), so log m = 2 atanh(s) with
// s = (m-1)/(m+1), |s| <= 0.1716, = 2s + s^3 (2/3 + z U(z)), z = s^2. s, s^3,
// 2/3 and the products are double-double; only z U(z), which is 2^-12 of the
// total, is plain double.
KILN_HD dd log_dd(double x) {
    int k = 0;
    if (x < 0x1p-1022) { x = mul(x, 0x1p54); k = -54; }  // subnormal: normalise
    const unsigned long long b = bits_of(x);
    k += (int)(b >> 52) - 1023;
    const unsigned long long mb = b & 0x000fffffffffffffULL;
    double m;
    if (mb > 0x6a09e667f3bcdULL) { m = double_of(mb | 0x3fe0000000000000ULL); k += 1; }  // > sqrt(2): halve
    else m = double_of(mb | 0x3ff0000000000000ULL);
    const double f = sub(m, 1.0);                    // exact (Sterbenz)
    const dd s = dd_div(dd{f, 0.0}, fast_two_sum(2.0, f));
    const dd s3 = dd_mul(dd_mul(s, s), s);
    const double z = mul(s.hi, s.hi);
    const double u = poly(z,
        0x1.999999999999ap-2, 0x1.2492492492524p-2, 0x1.c71c71c6ea01fp-3, 0x1.745d177b22bcfp-3,
        0x1.3b1395976d2f0p-3, 0x1.1118d458653bcp-3, 0x1.df7a2eafecf14p-4, 0x1.e0499f72e39b9p-4);
    const dd two3 = {0x1.5555555555555p-1, 0x1.5555555555555p-55};  // 2/3
    const dd v = dd_add(two3, dd{mul(z, u), 0.0});
    const dd lm = dd_add(dd{mul(2.0, s.hi), mul(2.0, s.lo)}, dd_mul(s3, v));
    const double fk = (double)k;
    return dd_add(fast_two_sum(mul(fk, L2HI), mul(fk, L2LO)), lm);
}

// Exact truncation / floor through the bits (no conversion range limits).
KILN_HD double trunc_(double x) {
    const unsigned long long b = bits_of(x);
    const int e = (int)((b >> 52) & 0x7ff) - 1023;
    if (e >= 52) return x;                             // integral, inf or NaN
    if (e < 0) return double_of(b & 0x8000000000000000ULL);
    return double_of(b & ~(0x000fffffffffffffULL >> e));
}
KILN_HD double floor_(double x) { const double t = trunc_(x); return t > x ? sub(t, 1.0) : t; }

// 0: y is not an integer, 1: odd integer, 2: even integer (y finite).
KILN_HD int int_kind(double y) {
    const unsigned long long b = bits_of(y);
    const int e = (int)((b >> 52) & 0x7ff) - 1023;
    if (e >= 53) return 2;
    if (e < 0) return y == 0 ? 2 : 0;
    const unsigned long long sig = (b & 0x000fffffffffffffULL) | (1ULL << 52);
    const int fb = 52 - e;                             // number of fraction bits
    if (sig & ((1ULL << fb) - 1ULL)) return 0;
    return ((sig >> fb) & 1ULL) ? 1 : 2;
}

// Low and high 64 bits of a * b, from 32-bit halves (portable, exact).
KILN_HD void mul64(unsigned long long a, unsigned long long b, unsigned long long& hi, unsigned long long& lo) {
    const unsigned long long a0 = a & 0xffffffffULL, a1 = a >> 32, b0 = b & 0xffffffffULL, b1 = b >> 32;
    const unsigned long long p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
    const unsigned long long mid = (p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL);
    lo = (mid << 32) | (p00 & 0xffffffffULL);
    hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

// Reduction x = n pi/2 + (hi + lo), |hi| <= pi/4 (and a hair), q = n mod 4.
struct reduced { double hi, lo; int q; };

// Payne-Hanek, for |x| >= 1.6e6 up to DBL_MAX, in integer arithmetic: with
// x = M 2^E (M a 53-bit integer), the bits of 2/pi that would multiply x into
// a multiple of 4 are skipped, and the next 192 bits W give x 2/pi mod 4 as
// (M W mod 2^192) 2^-190 exactly up to 2^-138; no double comes closer than
// 2^-62 to a multiple of pi/2, so > 70 bits survive. Table word i >= 1 holds
// bits 64(i-1)+1 .. 64i of 2/pi; word 0 is the zero integer part.
KILN_HD reduced reduce_pio2_large(double x) {
    static const unsigned long long two_over_pi[20] = {
        0x0000000000000000ULL, 0xa2f9836e4e441529ULL, 0xfc2757d1f534ddc0ULL, 0xdb6295993c439041ULL,
        0xfe5163abdebbc561ULL, 0xb7246e3a424dd2e0ULL, 0x06492eea09d1921cULL, 0xfe1deb1cb129a73eULL,
        0xe88235f52ebb4484ULL, 0xe99c7026b45f7e41ULL, 0x3991d639835339f4ULL, 0x9c845f8bbdf9283bULL,
        0x1ff897ffde05980fULL, 0xef2f118b5a0a6d1fULL, 0x6d367ecf27cb09b7ULL, 0x4f463f669e5fea2dULL,
        0x7527bac7ebe5f17bULL, 0x3d0739f78a5292eaULL, 0x6bfb5fb11f8d5d08ULL, 0x56033046fc7b6babULL};
    const unsigned long long b = bits_of(x);
    const int E = (int)((b >> 52) & 0x7ff) - 1075;      // >= -32 here
    const unsigned long long M = (b & 0x000fffffffffffffULL) | (1ULL << 52);
    const int g = E + 62;                                // table bit index of 2/pi bit E-1
    const int w = g >> 6, sh = g & 63;
    unsigned long long W[3];
    for (int i = 0; i < 3; ++i)
        W[i] = sh ? (two_over_pi[w + i] << sh) | (two_over_pi[w + i + 1] >> (64 - sh)) : two_over_pi[w + i];
    unsigned long long h0, p0, h1, l1;
    mul64(M, W[2], h0, p0);
    mul64(M, W[1], h1, l1);
    const unsigned long long p1 = h0 + l1;
    const unsigned long long p2 = h1 + M * W[0] + (p1 < h0 ? 1ULL : 0ULL);
    // Quadrant = top two bits; the 190-bit fraction rounds to nearest: a
    // fraction >= 1/2 means n + 1 and fraction - 1 (a negative top word).
    int q = (int)(p2 >> 62);
    long long top = (long long)(p2 & 0x3fffffffffffffffULL);
    if (top >= (1LL << 61)) { top -= (1LL << 62); q += 1; }
    // Sum the fraction's 32-bit pieces (each exact in a double) as a double-double.
    const double pieces[5] = {mul((double)(top >> 32), 0x1p-30), mul((double)(top & 0xffffffffLL), 0x1p-62),
                              mul((double)(p1 >> 32), 0x1p-94), mul((double)(p1 & 0xffffffffULL), 0x1p-126),
                              mul((double)(p0 >> 32), 0x1p-158)};
    dd f = {pieces[0], 0.0};
    for (int i = 1; i < 5; ++i) {
        const dd t = two_sum(f.hi, pieces[i]);
        f = fast_two_sum(t.hi, add(t.lo, f.lo));
    }
    const dd r = dd_mul(f, dd{0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54});  // * pi/2
    if (sign_bit(x)) return {-r.hi, -r.lo, (4 - (q & 3)) & 3};
    return {r.hi, r.lo, q & 3};
}

// Cody-Waite below 1.6e6: pi/2 split in three 33-bit pieces and a 53-bit tail
// (~2^-160 total); for n < 2^20 each n * piece is exact and the cancellation
// against x (never closer than ~2^-60 to a multiple of pi/2 in this range)
// leaves > 90 good bits.
KILN_HD reduced reduce_pio2(double x) {
    if (fabs_(x) <= 0x1.921fb54442d18p-1) return {x, 0.0, 0};
    if (fabs_(x) >= 1.6e6) return reduce_pio2_large(x);
    const double t = mul(x, 0x1.45f306dc9c883p-1);  // x * 2/pi, |t| < 2^20
    const double fn = trunc_(add(t, t < 0 ? -0.5 : 0.5));
    const double r1 = sub(x, mul(fn, 0x1.921fb54400000p+0));
    const dd a = two_sum(r1, -mul(fn, 0x1.0b4611a600000p-34));
    const dd b = two_sum(a.hi, -mul(fn, 0x1.3198a2e000000p-69));
    const double low = sub(add(a.lo, b.lo), mul(fn, 0x1.b839a252049c1p-104));
    const dd r = two_sum(b.hi, low);
    const double q = sub(fn, mul(4.0, floor_(mul(fn, 0.25))));  // exact, in {0,1,2,3}
    return {r.hi, r.lo, (int)q};
}
// sin(r + rr) ~= sin r + rr (1 - r^2/2), with sin r = r + r^3 S(r^2) on |r| <= pi/4.
KILN_HD double sin_kernel(double r, double rr) {
    const double z = mul(r, r);
    const double s = poly(z,
        -0x1.5555555555555p-3, 0x1.1111111111110p-7, -0x1.a01a01a01990ap-13, 0x1.71de3a545b148p-19,
        -0x1.ae6454093c147p-26, 0x1.61217781a8ccdp-33, -0x1.ab13654fd392ap-41);
    return add(r, add(mul(mul(r, z), s), mul(rr, sub(1.0, mul(0.5, z)))));
}
// cos(r + rr) ~= cos r - r rr, cos r = 1 - r^2/2 + r^4 C(r^2). r^2 is exact
// (two_prod) and 1 - r^2/2 is split exactly, so the result rounds once.
KILN_HD double cos_kernel(double r, double rr) {
    const dd z = two_prod(r, r);
    const dd w = fast_two_sum(1.0, -mul(0.5, z.hi));
    const double c = poly(z.hi,
        0x1.5555555555555p-5, -0x1.6c16c16c16955p-10, 0x1.a01a019f4a826p-16, -0x1.27e4fa1272706p-22,
        0x1.1eeb634b132cdp-29, -0x1.907999e6897e2p-37);
    const double tail = sub(add(sub(w.lo, mul(0.5, z.lo)), mul(mul(z.hi, z.hi), c)), mul(r, rr));
    return add(w.hi, tail);
}

}  // namespace kd

// ---- public functions ----------------------------------------------------------
KILN_HD double k_abs(double x) { return kd::fabs_(x); }
KILN_HD double k_floor(double x) { return kd::floor_(x); }
KILN_HD double k_trunc(double x) { return kd::trunc_(x); }
KILN_HD double k_sqrt(double x) { return kd::sqrt_rn(x); }
KILN_HD double k_rsqrt(double x) { return kd::div(1.0, kd::sqrt_rn(x)); }

// NaN in either argument gives NaN; -0 < +0 for the choice.
KILN_HD double k_max(double a, double b) {
    if (a != a || b != b) return kd::add(a, b);
    if (a == b) return kd::sign_bit(a) ? b : a;
    return a > b ? a : b;
}
KILN_HD double k_min(double a, double b) {
    if (a != a || b != b) return kd::add(a, b);
    if (a == b) return kd::sign_bit(a) ? a : b;
    return a < b ? a : b;
}

KILN_HD double k_exp(double x) {
    if (x != x) return kd::add(x, x);
    if (x > 710.0) return kd::inf();
    if (x < -746.0) return 0.0;
    int k;
    const kd::dd y = kd::exp_core(x, 0.0, k);
    return kd::scale_dd(y, k);
}

// exp(x) - 1 without cancellation: e^r - 1 comes from the core directly, and
// for k != 0 the scaled 2^k e^r minus 1 is summed exactly before rounding.
KILN_HD double k_expm1(double x) {
    if (x != x) return kd::add(x, x);
    if (x > 710.0) return kd::inf();
    if (x < -40.0) return -1.0;                       // e^x < 2^-57: rounds to -1
    if (kd::fabs_(x) < 0x1p-54) return x;             // x + x^2/2 rounds to x (keeps -0)
    int k;
    const kd::dd m = kd::expm1_core(x, 0.0, k);
    if (k == 0) return m.hi;
    const kd::dd y = kd::fast_two_sum(1.0, m.hi);    // 2^k (y.hi + y.lo + m.lo) - 1
    if (k > 1000) return kd::scale2(kd::add(y.hi, kd::add(y.lo, m.lo)), k);
    const double p = pow2i(k);
    const kd::dd s = kd::two_sum(kd::mul(y.hi, p), -1.0);
    return kd::add(s.hi, kd::add(s.lo, kd::mul(kd::add(y.lo, m.lo), p)));
}

KILN_HD double k_log(double x) {
    if (x != x) return kd::add(x, x);
    if (x == 0) return -kd::inf();
    if (x < 0) return kd::qnan();
    if (x == kd::inf()) return x;
    return kd::log_dd(x).hi;
}

// log(1 + x): 1 + x = u.hi + u.lo exactly, log(u.hi + u.lo) ~= log(u.hi) + u.lo/u.hi.
KILN_HD double k_log1p(double x) {
    if (x != x) return kd::add(x, x);
    if (x == -1.0) return -kd::inf();
    if (x < -1.0) return kd::qnan();
    if (x == kd::inf()) return x;
    if (kd::fabs_(x) < 0x1p-54) return x;
    const kd::dd u = kd::two_sum(1.0, x);
    const kd::dd l = kd::log_dd(u.hi);
    return kd::add(l.hi, kd::add(l.lo, kd::div(u.lo, u.hi)));
}

// tanh: 1 - 2/(e^2|x| + 1) carried in double-double so only the last step
// rounds; below 0.3, where that cancels too much, the odd Taylor-like
// polynomial x + x^3 T(x^2), whose correction is under 3% of x.
KILN_HD double k_tanh(double x) {
    if (x != x) return kd::add(x, x);
    const double a = kd::fabs_(x);
    if (a < 0x1p-27) return x;                        // x - x^3/3 rounds to x
    if (a < 0.3) {
        const double z = kd::mul(x, x);
        const double t = kd::poly(z,
            -0x1.5555555555555p-2, 0x1.1111111110b9fp-3, -0x1.ba1ba1b8dd76fp-5, 0x1.664f47a52e33ep-6,
            -0x1.226de973098b5p-7, 0x1.d6b77a084310dp-9, -0x1.7ab0c8b40a0eep-10, 0x1.0bdf304f99aafp-11);
        return kd::add(x, kd::mul(kd::mul(x, z), t));
    }
    if (a > 22.0) return x > 0 ? 1.0 : -1.0;          // 1 - 2e^-44 rounds to 1
    int k;
    const kd::dd e = kd::exp_core(kd::mul(2.0, a), 0.0, k);
    const double p = pow2i(k);
    const kd::dd d = kd::dd_add(kd::dd{kd::mul(e.hi, p), kd::mul(e.lo, p)}, kd::dd{1.0, 0.0});
    const kd::dd q = kd::dd_div(kd::dd{2.0, 0.0}, d);
    const kd::dd s = kd::two_sum(1.0, -q.hi);
    const double r = kd::add(s.hi, kd::sub(s.lo, q.lo));
    return x > 0 ? r : -r;
}

// 1 / (1 + e^-x), from e = e^-|x| <= 1 so nothing overflows: x >= 0 gives
// 1/(1+e), x < 0 gives e/(1+e), each a double-double quotient rounded once.
KILN_HD double k_sigmoid(double x) {
    if (x != x) return kd::add(x, x);
    if (x > 40.0) return 1.0;                          // 1 - e^-40 rounds to 1
    if (x < -40.0) return k_exp(x);                    // e/(1+e) = e (1 - e), e < 2^-57
    int k;
    const kd::dd e0 = kd::exp_core(-kd::fabs_(x), 0.0, k);
    const double p = pow2i(k);
    const kd::dd e = {kd::mul(e0.hi, p), kd::mul(e0.lo, p)};
    const kd::dd d = kd::dd_add(e, kd::dd{1.0, 0.0});
    return kd::dd_div(x >= 0 ? kd::dd{1.0, 0.0} : e, d).hi;
}

// erf: x + x E(x^2) for |x| < 0.84375; above, 1 - e^-x^2 G(x) where G = erfcx
// is fitted on four intervals to the accuracy that keeps the erfc term's error
// under a tenth of an ulp of erf (erfc/erf <= 0.3 there and falls fast); x^2
// goes to exp exactly as a double-double, and 1 - erfc rounds once.
KILN_HD double k_erf(double x) {
    if (x != x) return kd::add(x, x);
    const double a = kd::fabs_(x);
    if (a < 0x1p-900) {                               // avoid subnormal intermediates
        const double y = kd::mul(x, 0x1p64);
        return kd::mul(kd::add(y, kd::mul(y, 0x1.06eba8214db69p-3)), 0x1p-64);
    }
    if (a < 0.84375) {
        const double z = kd::mul(x, x);
        const double e = kd::poly(z,
            0x1.06eba8214db69p-3, -0x1.812746b0379e6p-2, 0x1.ce2f21a042acfp-4, -0x1.b82ce31281a71p-6,
            0x1.565bcd0ceb1d7p-8, -0x1.c02db3a033205p-11, 0x1.f9a317b0dcb87p-14, -0x1.f4d0c17daf57fp-17,
            0x1.b9c9ed1d47fd5p-20, -0x1.5e1b368bdf09ep-23, 0x1.e819bbd6706fep-27, -0x1.e82ab4a2799adp-31);
        return kd::add(x, kd::mul(x, e));
    }
    if (a >= 6.0) return x > 0 ? 1.0 : -1.0;          // erfc(6) < 2^-54
    double g;                                         // erfcx(a), t = a - centre exactly
    if (a < 1.5) {
        g = kd::poly(kd::sub(a, 0x1.2cp+0),
            0x1.8a0c9d6c1656dp-2, -0x1.cfd08636a4ffbp-3, 0x1.e921bb204669cp-4, -0x1.d89206d9f427dp-5,
            0x1.a8785639aa26ep-6, -0x1.662c06edde176p-7, 0x1.1e23626d04c7fp-8, -0x1.b3753d2707f2fp-10,
            0x1.3d2074f76112cp-11, -0x1.bbcf74e88d693p-13, 0x1.2b342b11c2731p-14, -0x1.86362fe7c1450p-16,
            0x1.fea4d80c8fce7p-18, -0x1.38af3ff12e24cp-19);
    } else if (a < 2.25) {
        g = kd::poly(kd::sub(a, 0x1.ep+0),
            0x1.13e5743b60481p-2, -0x1.e36580c7f734ap-4, 0x1.8a6efeed231a7p-5, -0x1.2ef92f6f1068dp-6,
            0x1.b99589d4821bfp-8, -0x1.33237c3f25dbbp-9, 0x1.99b60da9b79d1p-11, -0x1.070e0c6738f19p-12,
            0x1.463225c3d0d0fp-14, -0x1.87a681fe4ddebp-16, 0x1.c81a3181bf301p-18, -0x1.0265cc11a5f61p-19,
            0x1.2771127a44f43p-21, -0x1.3d93a895dc51dp-23);
    } else if (a < 3.25) {
        g = kd::poly(kd::sub(a, 0x1.6p+1),
            0x1.8c9eb68ff27d7p-3, -0x1.030578132fef6p-4, 0x1.43b98bac836a8p-6, -0x1.84e9ab319dd43p-8,
            0x1.c2c72fd7cd025p-10, -0x1.f99e407ec7ae9p-12, 0x1.131bb0bbb4c06p-13, -0x1.23134ed706f92p-15,
            0x1.2bfbe893b36a9p-17, -0x1.2d6235e68b209p-19, 0x1.281c3b947d155p-21, -0x1.29b2226e135a3p-23,
            0x1.17be345724383p-25);
    } else {
        g = kd::poly(kd::sub(a, 0x1.28p+2),
            0x1.e8b725e91150cp-4, -0x1.94e4c65b290e5p-6, 0x1.48ea08f56ef66p-8, -0x1.0641d50b920fap-10,
            0x1.9adeaf84ee922p-13, -0x1.3c748d0702587p-15, 0x1.dfa7a75430431p-18, -0x1.65efaa0a597bep-20,
            0x1.075f89ac1d2c2p-22, -0x1.7dc58a7e00d34p-25, 0x1.0bd77485a24a1p-27, -0x1.7a463efaac47dp-30,
            0x1.4638385af3f4ap-32, -0x1.bec2ea573ea87p-35);
    }
    const kd::dd a2 = kd::two_prod(a, a);
    int k;
    const kd::dd e = kd::exp_core(-a2.hi, -a2.lo, k);
    const double p = pow2i(k);                        // exact scaling: k >= -53
    const kd::dd q = kd::two_prod(kd::mul(e.hi, p), g);   // erfc(a), 1 - q rounds once
    const kd::dd s = kd::two_sum(1.0, -q.hi);
    const double r = kd::add(s.hi, kd::sub(s.lo, kd::add(q.lo, kd::mul(kd::mul(e.lo, p), g))));
    return x > 0 ? r : -r;
}

KILN_HD double k_sin(double x) {
    if (kd::fabs_(x) < 0x1p-27) return x;             // x - x^3/6 rounds to x (keeps -0)
    if (kd::fabs_(x) == kd::inf() || x != x) return kd::sub(x, x);  // NaN
    const kd::reduced r = kd::reduce_pio2(x);
    switch (r.q) {
        case 0: return kd::sin_kernel(r.hi, r.lo);
        case 1: return kd::cos_kernel(r.hi, r.lo);
        case 2: return -kd::sin_kernel(r.hi, r.lo);
        default: return -kd::cos_kernel(r.hi, r.lo);
    }
}
KILN_HD double k_cos(double x) {
    if (kd::fabs_(x) < 0x1p-27) return 1.0;
    if (kd::fabs_(x) == kd::inf() || x != x) return kd::sub(x, x);
    const kd::reduced r = kd::reduce_pio2(x);
    switch (r.q) {
        case 0: return kd::cos_kernel(r.hi, r.lo);
        case 1: return -kd::sin_kernel(r.hi, r.lo);
        case 2: return -kd::cos_kernel(r.hi, r.lo);
        default: return kd::sin_kernel(r.hi, r.lo);
    }
}

// pow as C99 Annex F specifies the special cases; otherwise
// exp(y log|x|) with y log|x| carried as a double-double (log_dd's 2^-64 keeps
// the product good to 2^-55 absolute even at |y log x| ~ 745), sign from odd y.
KILN_HD double k_pow(double x, double y) {
    if (y == 0) return 1.0;                           // even for NaN x
    if (x == 1.0) return 1.0;                         // even for NaN y
    if (x != x || y != y) return kd::add(x, y);
    const double ax = kd::fabs_(x), ay = kd::fabs_(y);
    if (ay == kd::inf()) {
        if (ax == 1.0) return 1.0;                    // (-1)^+-inf
        return (ax < 1.0) == (y > 0) ? 0.0 : kd::inf();
    }
    const int yk = kd::int_kind(y);
    if (x < 0 && ax != kd::inf() && yk == 0) return kd::qnan();
    const bool neg = kd::sign_bit(x) && yk == 1;
    double r;
    if (ax == 0) r = y < 0 ? kd::inf() : 0.0;
    else if (ax == kd::inf()) r = y < 0 ? 0.0 : kd::inf();
    else if (y == 1.0) r = ax;
    else if (y == 2.0) r = kd::mul(ax, ax);
    else if (y == -1.0) r = kd::div(1.0, ax);
    else {
        const kd::dd l = kd::log_dd(ax);
        const double t0 = kd::mul(y, l.hi);
        if (t0 > 710.0) r = kd::inf();
        else if (t0 < -746.0) r = 0.0;
        else {
            // |y| <= 746 / |log ax| < 2^63 here, safe for Veltkamp splitting.
            const kd::dd t = kd::two_prod(y, l.hi);
            int k;
            const kd::dd e = kd::exp_core(t.hi, kd::add(t.lo, kd::mul(y, l.lo)), k);
            r = kd::scale_dd(e, k);
        }
    }
    return neg ? -r : r;
}

}  // namespace kiln_rt

#endif  // KILN_KMATH_H
