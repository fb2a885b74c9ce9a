// kiln's deterministic math (kmath.h) against glibc's long double libm: at
// least ~11 more bits than double, so its rounding error is ~0.001 ulp of a
// double and the measured error is the kmath error. Every function is sampled
// over the ranges ML code uses and must stay within 2 ulp; rounding the f64
// result to f32 must also give the correctly rounded f32 almost always.
#include <kiln/detail/kround.h>
#include <kiln/detail/kmath.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace kiln_rt;
using ld = long double;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// |got - ref| in units of the double ulp at ref (the spacing of doubles in the
// binade of the exact value; subnormal spacing below 2^-1022).
double ulp_error(double got, ld ref) {
    if (std::isnan(got) || std::isnan(static_cast<double>(ref))) return std::isnan(got) == std::isnan(static_cast<double>(ref)) ? 0 : kInf;
    if (std::isinf(got) || std::isinf(ref)) return static_cast<ld>(got) == ref ? 0 : kInf;
    int e = 0;
    std::frexp(static_cast<double>(ref), &e);  // ref = m 2^e, m in [0.5, 1)
    if (ref == 0) e = -1073;
    const int ulp_exp = std::max(e - 1, -1022) - 52;
    return static_cast<double>(std::fabs(static_cast<ld>(got) - ref) / std::ldexp(1.0L, ulp_exp));
}

struct Stats {
    std::string name;
    long n = 0, f32_ok = 0;
    double max_ulp = 0, worst_x = 0, worst_y = 0;

    void add(double got, ld ref, double x, double y = 0) {
        ++n;
        const double u = ulp_error(got, ref);
        if (u > max_ulp || std::isnan(u)) { max_ulp = u; worst_x = x; worst_y = y; }
        if (static_cast<float>(round_f32(got)) == static_cast<float>(ref) ||
            (std::isnan(got) && std::isnan(static_cast<double>(ref))))
            ++f32_ok;
    }
    void report_and_check() const {
        std::printf("[ kmath    ] %-10s %8ld samples  max %.3f ulp (at x=%.17g y=%.17g)  f32 correctly rounded %ld/%ld\n",
                    name.c_str(), n, max_ulp, worst_x, worst_y, f32_ok, n);
        EXPECT_LE(max_ulp, 2.0) << name << " at x=" << worst_x << " y=" << worst_y;
        EXPECT_GE(static_cast<double>(f32_ok), 0.9999 * static_cast<double>(n)) << name;
    }
};

std::mt19937_64& rng() { static std::mt19937_64 g(20240607); return g; }
double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng()); }
// |x| log-uniform in [2^lo, 2^hi], random sign when signed_.
double log_uniform(double lo, double hi, bool signed_) {
    const double m = std::exp2(uniform(lo, hi));
    return signed_ && (rng()() & 1) ? -m : m;
}

void sweep(Stats& s, const std::function<double()>& gen, int count, double (*f)(double), ld (*ref)(ld)) {
    for (int i = 0; i < count; ++i) {
        const double x = gen();
        s.add(f(x), ref(x), x);
    }
}

TEST(KMath, Exp) {
    Stats s{"exp"};
    sweep(s, [] { return uniform(-745.0, 709.78); }, 400000, k_exp, [](ld x) { return expl(x); });
    sweep(s, [] { return uniform(-745.2, -708.0); }, 100000, k_exp, [](ld x) { return expl(x); });  // subnormal results
    sweep(s, [] { return uniform(-1.0, 1.0); }, 200000, k_exp, [](ld x) { return expl(x); });
    sweep(s, [] { return log_uniform(-60, 0, true); }, 100000, k_exp, [](ld x) { return expl(x); });
    s.report_and_check();
}

TEST(KMath, Expm1) {
    Stats s{"expm1"};
    sweep(s, [] { return uniform(-40.0, 709.78); }, 200000, k_expm1, [](ld x) { return expm1l(x); });
    sweep(s, [] { return log_uniform(-70, 2, true); }, 300000, k_expm1, [](ld x) { return expm1l(x); });
    s.report_and_check();
}

TEST(KMath, Log) {
    Stats s{"log"};
    // Random bit patterns cover every binade, subnormals included.
    sweep(s, [] { return std::bit_cast<double>(rng()() & 0x7fefffffffffffffULL); }, 300000, k_log,
          [](ld x) { return logl(x); });
    sweep(s, [] { return uniform(0.5, 2.0); }, 300000, k_log, [](ld x) { return logl(x); });
    sweep(s, [] { return 1.0 + log_uniform(-52, -4, true); }, 200000, k_log, [](ld x) { return logl(x); });
    s.report_and_check();
}

TEST(KMath, Log1p) {
    Stats s{"log1p"};
    sweep(s, [] { return log_uniform(-70, 10, true) * 0.999; }, 300000, [](double x) { return k_log1p(x < -1 ? -x : x); },
          [](ld x) { return log1pl(x < -1 ? -x : x); });
    sweep(s, [] { return std::bit_cast<double>(rng()() & 0x7fefffffffffffffULL); }, 100000, k_log1p,
          [](ld x) { return log1pl(x); });
    s.report_and_check();
}

TEST(KMath, Tanh) {
    Stats s{"tanh"};
    sweep(s, [] { return uniform(-8.0, 8.0); }, 300000, k_tanh, [](ld x) { return tanhl(x); });
    sweep(s, [] { return uniform(-0.7, 0.7); }, 200000, k_tanh, [](ld x) { return tanhl(x); });
    sweep(s, [] { return log_uniform(-60, 5, true); }, 200000, k_tanh, [](ld x) { return tanhl(x); });
    s.report_and_check();
}

TEST(KMath, Sigmoid) {
    Stats s{"sigmoid"};
    auto ref = [](ld x) { return 1.0L / (1.0L + expl(-x)); };
    sweep(s, [] { return uniform(-50.0, 50.0); }, 300000, k_sigmoid, ref);
    sweep(s, [] { return uniform(-745.0, -30.0); }, 100000, k_sigmoid, ref);
    sweep(s, [] { return log_uniform(-60, 3, true); }, 100000, k_sigmoid, ref);
    s.report_and_check();
}

TEST(KMath, Erf) {
    Stats s{"erf"};
    sweep(s, [] { return uniform(-6.5, 6.5); }, 400000, k_erf, [](ld x) { return erfl(x); });
    sweep(s, [] { return uniform(0.7, 1.0); }, 100000, k_erf, [](ld x) { return erfl(x); });
    sweep(s, [] { return log_uniform(-1060, 3, true); }, 200000, k_erf, [](ld x) { return erfl(x); });
    s.report_and_check();
}

TEST(KMath, SinCos) {
    Stats s{"sin"}, c{"cos"};
    auto both = [&](double x) {
        s.add(k_sin(x), sinl(x), x);
        c.add(k_cos(x), cosl(x), x);
    };
    for (int i = 0; i < 300000; ++i) both(uniform(-1e5, 1e5));
    for (int i = 0; i < 200000; ++i) both(uniform(-10.0, 10.0));
    for (int i = 0; i < 100000; ++i) both(log_uniform(-40, 3, true));
    // Large arguments (Payne-Hanek path from 1.6e6) up to DBL_MAX.
    for (int i = 0; i < 100000; ++i) both(log_uniform(20, 24, true));
    for (int i = 0; i < 100000; ++i) both(std::bit_cast<double>(rng()() & 0xffefffffffffffffULL));
    // The double closest to a multiple of pi/2 (6381956970095103 * 2^797).
    both(std::ldexp(6381956970095103.0, 797));
    both(-std::ldexp(6381956970095103.0, 797));
    both(std::nextafter(1.6e6, 0.0)); both(1.6e6); both(std::numeric_limits<double>::max());
    // Doubles nearest to multiples of pi/2: the reduction's hardest inputs.
    for (int n = 1; n < 70000; ++n) {
        const double x = static_cast<double>(n * (3.14159265358979323846264338327950288L / 2));
        both(x); both(std::nextafter(x, 0.0)); both(std::nextafter(x, 1e9)); both(-x);
    }
    s.report_and_check();
    c.report_and_check();
}

TEST(KMath, Pow) {
    Stats s{"pow"};
    auto one = [&](double x, double y) { s.add(k_pow(x, y), powl(x, y), x, y); };
    for (int i = 0; i < 300000; ++i) {  // positive x, any y with a finite result
        const double x = log_uniform(-60, 60, false), y = uniform(-11.0, 11.0);
        one(x, y);
    }
    for (int i = 0; i < 200000; ++i) {  // results near overflow / underflow
        const double x = log_uniform(-30, 30, false);
        const double y = (uniform(-745.0, 709.0)) / std::log(x);
        one(x, y);
    }
    for (int i = 0; i < 100000; ++i) {  // x near 1, large y
        const double x = 1.0 + log_uniform(-50, -8, true), y = log_uniform(0, 40, true);
        if (std::fabs(y * std::log(x)) < 700) one(x, y);
    }
    for (int i = 0; i < 200000; ++i) {  // negative x, integer y
        const double x = -log_uniform(-8, 8, false), y = std::round(uniform(-60.0, 60.0));
        one(x, y);
    }
    s.report_and_check();
}

TEST(KMath, SqrtRsqrt) {
    Stats s{"sqrt"}, r{"rsqrt"};
    for (int i = 0; i < 200000; ++i) {
        const double x = std::bit_cast<double>(rng()() & 0x7fefffffffffffffULL);
        s.add(k_sqrt(x), sqrtl(x), x);
        r.add(k_rsqrt(x), 1.0L / sqrtl(x), x);
    }
    s.report_and_check();
    EXPECT_EQ(s.max_ulp <= 0.5, true) << "sqrt must be correctly rounded";
    r.report_and_check();
}

// C99 Annex F special values.
TEST(KMath, SpecialValues) {
    auto same = [](double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b)); };
#define KX(call, want) EXPECT_TRUE(same(call, want)) << #call << " = " << (call) << ", want " << (want)
    KX(k_exp(-kInf), 0.0); KX(k_exp(kInf), kInf); KX(k_exp(kNaN), kNaN); KX(k_exp(0.0), 1.0); KX(k_exp(-0.0), 1.0);
    KX(k_exp(710.0), kInf); KX(k_exp(-746.0), 0.0); KX(k_exp(1.0), 2.718281828459045);
    KX(k_exp(709.782712893384), 1.7976931348622732e308);
    KX(k_expm1(0.0), 0.0); KX(k_expm1(-0.0), -0.0); KX(k_expm1(-kInf), -1.0); KX(k_expm1(kInf), kInf);
    KX(k_log(0.0), -kInf); KX(k_log(-0.0), -kInf); KX(k_log(-1.0), kNaN); KX(k_log(kInf), kInf); KX(k_log(kNaN), kNaN);
    KX(k_log(1.0), 0.0); KX(k_log(-kInf), kNaN); KX(k_log(4.9406564584124654e-324), -744.44007192138122);
    KX(k_log1p(-1.0), -kInf); KX(k_log1p(-2.0), kNaN); KX(k_log1p(-0.0), -0.0); KX(k_log1p(kInf), kInf);
    KX(k_sqrt(-0.0), -0.0); KX(k_sqrt(-1.0), kNaN); KX(k_sqrt(kInf), kInf);
    KX(k_rsqrt(0.0), kInf); KX(k_rsqrt(-0.0), -kInf); KX(k_rsqrt(kInf), 0.0); KX(k_rsqrt(4.0), 0.5);
    KX(k_tanh(0.0), 0.0); KX(k_tanh(-0.0), -0.0); KX(k_tanh(kInf), 1.0); KX(k_tanh(-kInf), -1.0); KX(k_tanh(kNaN), kNaN);
    KX(k_erf(0.0), 0.0); KX(k_erf(-0.0), -0.0); KX(k_erf(kInf), 1.0); KX(k_erf(-kInf), -1.0); KX(k_erf(kNaN), kNaN);
    KX(k_sigmoid(0.0), 0.5); KX(k_sigmoid(kInf), 1.0); KX(k_sigmoid(-kInf), 0.0); KX(k_sigmoid(kNaN), kNaN);
    KX(k_sin(0.0), 0.0); KX(k_sin(-0.0), -0.0); KX(k_sin(kInf), kNaN); KX(k_sin(kNaN), kNaN);
    KX(k_cos(0.0), 1.0); KX(k_cos(-0.0), 1.0); KX(k_cos(-kInf), kNaN);
    KX(k_abs(-0.0), 0.0); KX(k_abs(-kInf), kInf);
    KX(k_max(-0.0, 0.0), 0.0); KX(k_max(0.0, -0.0), 0.0); KX(k_min(-0.0, 0.0), -0.0); KX(k_min(0.0, -0.0), -0.0);
    KX(k_max(1.0, kNaN), kNaN); KX(k_max(kNaN, 1.0), kNaN); KX(k_min(1.0, kNaN), kNaN); KX(k_min(kNaN, 1.0), kNaN);
    KX(k_max(-1.0, 2.0), 2.0); KX(k_min(-1.0, 2.0), -1.0); KX(k_max(-kInf, kInf), kInf);
    KX(k_floor(-0.5), -1.0); KX(k_floor(-0.0), -0.0); KX(k_floor(2.5), 2.0); KX(k_trunc(-2.5), -2.0);
    // pow
    KX(k_pow(kNaN, 0.0), 1.0); KX(k_pow(1.0, kNaN), 1.0); KX(k_pow(kNaN, 1.0), kNaN); KX(k_pow(2.0, kNaN), kNaN);
    KX(k_pow(-1.0, kInf), 1.0); KX(k_pow(-1.0, -kInf), 1.0); KX(k_pow(0.5, kInf), 0.0); KX(k_pow(0.5, -kInf), kInf);
    KX(k_pow(2.0, kInf), kInf); KX(k_pow(2.0, -kInf), 0.0); KX(k_pow(-2.0, 0.5), kNaN);
    KX(k_pow(0.0, -3.0), kInf); KX(k_pow(-0.0, -3.0), -kInf); KX(k_pow(-0.0, -2.0), kInf); KX(k_pow(-0.0, -0.5), kInf);
    KX(k_pow(0.0, 3.0), 0.0); KX(k_pow(-0.0, 3.0), -0.0); KX(k_pow(-0.0, 2.0), 0.0); KX(k_pow(0.0, -kInf), kInf);
    KX(k_pow(-kInf, -3.0), -0.0); KX(k_pow(-kInf, -2.0), 0.0); KX(k_pow(-kInf, 3.0), -kInf); KX(k_pow(-kInf, 2.5), kInf);
    KX(k_pow(kInf, -1.0), 0.0); KX(k_pow(kInf, 0.5), kInf); KX(k_pow(-2.0, 3.0), -8.0); KX(k_pow(-2.0, -2.0), 0.25);
    KX(k_pow(2.0, 1024.0), kInf); KX(k_pow(2.0, -1075.0), 0.0); KX(k_pow(2.0, -1074.0), 4.9406564584124654e-324);
    KX(k_pow(2.0, 0.5), 1.4142135623730951); KX(k_pow(10.0, 3.0), 1000.0); KX(k_pow(-8.0, 1.0 / 3.0), kNaN);
    KX(k_pow(-1.0, 1e300), 1.0); KX(k_pow(-1.0, 9007199254740993.0), 1.0);  // huge integers are even
#undef KX
}

// Exactly representable results come out exact (the final double-double sum is
// within a tiny fraction of an ulp of them, so they cannot round away).
TEST(KMath, ExactCases) {
    for (int e = -1074; e <= 1023; ++e) EXPECT_EQ(k_pow(2.0, e), std::ldexp(1.0, e)) << e;
    for (int n = 0; n <= 22; ++n) EXPECT_EQ(k_pow(10.0, n), std::stod("1e" + std::to_string(n))) << n;
    for (int n = 1; n <= 30; ++n) EXPECT_EQ(k_pow(static_cast<double>(n), 3.0), static_cast<double>(n * n * n));
}

}  // namespace
