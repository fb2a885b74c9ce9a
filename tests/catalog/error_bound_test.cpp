// The error analysis behind the catalog's bounds (examples/error_bound.h): each rule
// against hand-computed values and against f32 arithmetic done for real.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "error_bound.h"

using namespace kiln;
using namespace kiln::catalog;

namespace {
constexpr double kU = 0x1p-24;
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST(ErrorBound, ConstantsCarryTheirRepresentationError) {
    EXPECT_EQ(constant(0.5).error, 0.0);
    EXPECT_EQ(constant(static_cast<double>(0.1f)).error, 0.0);  // the kernel's own f32 number
    EXPECT_EQ(constant(0.1).error, std::abs(static_cast<double>(0.1f) - 0.1));
    EXPECT_EQ(constant(0.1, Kind::F64).error, 0.0);
    EXPECT_DOUBLE_EQ(constant(0.1, Kind::BF16).error, 0.10009765625 - 0.1);  // bf16 holds 0.1 as 0.10009765625
}

TEST(ErrorBound, OneRoundingIsAtMostUOfTheResult) {
    const Bounded q = exact(1.0) / exact(3.0);
    const double actual = std::abs(static_cast<double>(1.0f / 3.0f) - 1.0 / 3.0);  // 9.9e-9
    EXPECT_GE(q.error, actual);
    EXPECT_LE(q.error, kU / 3 * 1.001 + 1e-44);  // u |1/3| (and the underflow term)
    EXPECT_EQ(q.value, 1.0 / 3.0);
    // Sums that underflow are exact: no absolute term.
    EXPECT_EQ((exact(0x1p-149) + exact(0x1p-149)).error, 0x1p-148 * unit_roundoff(Kind::F32));
    // A narrow kind rounds far more coarsely (and underflows sooner: 2^-25 in f16).
    EXPECT_NEAR((exact(1.0, Kind::F16) / exact(3.0, Kind::F16)).error, 0x1p-11 / 3 + 0x1p-25, 1e-12);
}

TEST(ErrorBound, SumsInAnyOrderStayWithinGammaOfTheMagnitudes) {
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> d(-1, 1);
    const int n = 4096;
    std::vector<float> x(n);
    std::vector<Bounded> terms;
    for (auto& v : x) {
        v = static_cast<float>(d(g) + 0.3);
        terms.push_back(exact(v));
    }
    const Bounded bound = sum(terms, reduction_depth(n));
    // Left to right, right to left, and pairwise: three of the orders a target may use.
    float left = 0, right = 0;
    for (float v : x) left += v;
    for (auto it = x.rbegin(); it != x.rend(); ++it) right += *it;
    std::vector<float> tree = x;
    while (tree.size() > 1) {
        std::vector<float> next;
        for (std::size_t i = 0; i + 1 < tree.size(); i += 2) next.push_back(tree[i] + tree[i + 1]);
        if (tree.size() % 2) next.push_back(tree.back());
        tree = next;
    }
    for (float got : {left, right, tree[0]}) EXPECT_LE(std::abs(got - bound.value), bound.error) << got;
    // The depth is what makes it a bound: the left-to-right fold errs by far more
    // than one rounding of each term would allow.
    EXPECT_GT(std::abs(left - bound.value), sum(terms, 1).error);
}

TEST(ErrorBound, CancellationIsBoundedByTheTermsNotTheResult) {
    // 0.1 + 0.2 - 0.3 is ~0 exactly, not in f32: the bound follows the terms (about
    // u of each, from the constants and the roundings), not the result.
    const Bounded r = constant(0.1) + constant(0.2) - constant(0.3);
    const double actual = std::abs(static_cast<double>((0.1f + 0.2f) - 0.3f) - (0.1 + 0.2 - 0.3));
    EXPECT_GE(r.error, actual);
    EXPECT_GT(r.error, kU * 0.3);  // at least the rounding of the 0.3-sized sum
    EXPECT_LT(std::abs(r.value), 1e-15);
}

TEST(ErrorBound, ErrorsPropagateThroughFunctionsByTheirSlopes) {
    const Bounded e = exp(Bounded{1.0, 1e-3, Kind::F32});
    EXPECT_GE(e.error, std::exp(1.001) - std::exp(1.0));
    EXPECT_LE(e.error, std::exp(1.001) - std::exp(1.0) + 6 * kU * 2.73);
    // tanh flattens: far out its slope is ~0, so an input error barely moves it.
    EXPECT_LT(tanh(Bounded{10.0, 1e-3, Kind::F32}).error, 1e-10 + 5 * kU);
    EXPECT_GE(tanh(Bounded{0.0, 1e-3, Kind::F32}).error, 1e-3 * 0.999);
    // log near its pole and a quotient whose divisor may be 0 have no bound.
    EXPECT_EQ(log(Bounded{1e-3, 1e-3, Kind::F32}).error, kInf);
    EXPECT_EQ((exact(1.0) / Bounded{1e-6, 2e-6, Kind::F32}).error, kInf);
    // sqrt of a value near 0 moves by up to sqrt of its error.
    EXPECT_GE(sqrt(Bounded{0.0, 1e-10, Kind::F32}).error, 1e-5);
    EXPECT_LE(sqrt(Bounded{4.0, 1e-6, Kind::F32}).error, 1e-6 / 2 + 3 * kU);
    // Selections are exact: they pass the larger operand error on, no more.
    EXPECT_EQ(max(Bounded{1, 1e-6, Kind::F32}, Bounded{2, 1e-7, Kind::F32}).error, 1e-6);
    EXPECT_EQ(abs(Bounded{-1, 1e-6, Kind::F32}).error, 1e-6);
}

TEST(ErrorBound, F32ExpressionsStayWithinTheirBounds) {
    // The tanh GELU plus a residual in real f32 arithmetic (std::tanh of a float is
    // within an ulp or two), against its f64 value, on inputs where it cancels.
    std::mt19937_64 g(11);
    std::uniform_real_distribution<double> d(-5, 5);
    const double k = std::sqrt(2.0 / std::acos(-1.0));
    double worst = 0;
    for (int i = 0; i < 20000; ++i) {
        const float x = static_cast<float>(d(g));
        const float kf = static_cast<float>(k), cf = 0.044715f;
        volatile float cubic = x * x * x;
        volatile float inner = kf * (x + cf * cubic);
        volatile float gelu = 0.5f * x * (1.0f + std::tanh(inner));
        const double exact_gelu = 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
        const float residual = static_cast<float>(-exact_gelu);  // cancels to ~u |gelu|
        const float got = gelu + residual;
        const Bounded v = exact(x);
        const Bounded b = 0.5 * v * (1.0 + tanh(k * (v + 0.044715 * (v * v * v)))) + exact(residual);
        const double err = std::abs(got - b.value);
        EXPECT_LE(err, b.error) << x;
        worst = std::max(worst, err / b.error);
    }
    EXPECT_GT(worst, 0.01);  // and not loose by orders of magnitude
}

TEST(ErrorBound, KindsNeverMix) {
    try {
        (void)(exact(1.0, Kind::F16) + exact(1.0, Kind::F32));
        FAIL() << "f16 + f32 was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("an operation on f16 and f32 values"), std::string::npos) << e.what();
    }
}

TEST(ErrorBound, MatrixProductBoundsEveryElement) {
    // A 3x2 times 2x2 product: bounds per element from |a| |b|, values exact.
    const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {0.5, -1, 0.25, 2};
    auto c = matrix_product(a, b, 3, 2, 2, reduction_depth(2));
    ASSERT_EQ(c.size(), 6u);
    EXPECT_EQ(c[0].value, 1 * 0.5 + 2 * 0.25);
    EXPECT_EQ(c[5].value, 5 * -1 + 6 * 2.0);
    // Each product rounds (u |a b|), and the sum adds gamma(1) of the magnitudes.
    EXPECT_NEAR(c[5].error, 2 * (5 + 12) * kU, 1e-12);
}
