// The elementwise catalog entries (copy, saxpy, clamp, exp, rmsnorm) on hand-chosen
// inputs: exact bits where the semantics pin them, edge values, ties to bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "entry_runner.h"

using namespace kiln;
using namespace kiln::catalog::testing;

namespace {
const double kInf = std::numeric_limits<double>::infinity();
}

TEST(CopyEntry, MovesSpecialValuesBitForBit) {
    // -0.0, infinities and the smallest subnormal survive, across a ragged block edge.
    std::vector<double> x = {-0.0, kInf, -kInf, 0x1p-149, -3.5, 0x1p100, 0.1f, 7.0, -0x1p-149, 2.0, 42.0};
    auto out = run_entry("copy", {buffer(Kind::F32, {1, 11}, x), catalog::output(Kind::F32, {1, 11})});
    ASSERT_EQ(out.size(), 1u);
    for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_EQ(out[0][i], x[i]) << i;
        EXPECT_EQ(std::signbit(out[0][i]), std::signbit(x[i])) << i;
    }
}

TEST(SaxpyEntry, IsTheF32ExpressionAOver0point4fPlusB) {
    // Each operation rounds once to f32, so the kernel must agree bit for bit with the
    // same expression in C++ float arithmetic (no contraction, SSE rounding).
    std::vector<double> a, b;
    for (int i = 0; i < 37; ++i) {
        a.push_back(static_cast<float>(std::sin(i * 1.7) * 3));
        b.push_back(static_cast<float>(std::cos(i * 0.9) * 2));
    }
    auto out = run_entry("saxpy", {buffer(Kind::F32, {1, 37}, a), buffer(Kind::F32, {1, 37}, b), catalog::output(Kind::F32, {1, 37})});
    for (std::size_t i = 0; i < a.size(); ++i) {
        volatile float fa = static_cast<float>(a[i]), fb = static_cast<float>(b[i]);
        volatile float quotient = fa / 0.4f;
        float expected = quotient + fb;
        EXPECT_EQ(out[0][i], expected) << i;
    }
}

TEST(ClampEntry, TiesToTheBoundsComeBackUnchanged) {
    const double lo = -0.5, hi = 0.75;
    std::vector<double> x = {-2.0, -0.5, -0.49999997, 0.0, 0.75, 0.75000006, 3.0, -0.0, -kInf, kInf};
    std::vector<double> want = {-0.5, -0.5, -0.49999997, 0.0, 0.75, 0.75, 0.75, -0.0, -0.5, 0.75};
    auto n = static_cast<std::int64_t>(x.size());
    auto out = run_entry("clamp", {buffer(Kind::F32, {2, n / 2}, x), catalog::scalar_arg(Kind::F32), catalog::scalar_arg(Kind::F32),
                                   catalog::output(Kind::F32, {2, n / 2})},
                         {0, lo, hi, 0});
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(out[0][i], static_cast<float>(want[i])) << i;
}

TEST(ClampEntry, EqualBoundsGiveThatValueEverywhere) {
    std::vector<double> x = {-1, 0, 0.25, 1, 100};
    auto out = run_entry("clamp", {buffer(Kind::F32, {1, 5}, x), catalog::scalar_arg(Kind::F32), catalog::scalar_arg(Kind::F32),
                                   catalog::output(Kind::F32, {1, 5})},
                         {0, 0.25, 0.25, 0});
    for (double v : out[0]) EXPECT_EQ(v, 0.25);
}

TEST(ExpEntry, ExactPointsAndLimits) {
    std::vector<double> x = {0.0, -0.0, 1.0, -1.0, -200.0, 100.0};
    auto out = run_entry("exp", {buffer(Kind::F32, {1, 6}, x), catalog::output(Kind::F32, {1, 6})});
    EXPECT_EQ(out[0][0], 1.0);
    EXPECT_EQ(out[0][1], 1.0);
    EXPECT_EQ(out[0][2], static_cast<float>(std::exp(1.0)));   // correctly rounded e
    EXPECT_EQ(out[0][3], static_cast<float>(std::exp(-1.0)));
    EXPECT_EQ(out[0][4], 0.0);                                  // underflows f32
    EXPECT_EQ(out[0][5], kInf);                                 // overflows f32
}

TEST(RmsnormEntry, EpsilonKeepsAZeroRowFiniteAndSitsInsideTheRoot) {
    // Row 0: zeros -> 0 / sqrt(eps) = 0. Row 1: every x = 1e-6, so mean(x^2) = 1e-12
    // and eps (1e-12f) doubles it: y = 1e-6 / sqrt(1e-12 + 1e-12f) ~ 0.7071, up to the
    // f32 roundings of 300 squares and their sum. Row 2: x = -3, every step exact
    // (eps vanishes next to 9 in f32), so y = -1 exactly. Each row is 300 long: one
    // full column block of 256 and a ragged one.
    const std::int64_t cols = 300;
    std::vector<double> x;
    for (int r = 0; r < 3; ++r)
        for (std::int64_t j = 0; j < cols; ++j) x.push_back(r == 0 ? 0.0 : r == 1 ? 1e-6 : -3.0);
    auto out = run_entry("rmsnorm", {buffer(Kind::F32, {3, cols}, x), catalog::output(Kind::F32, {3, cols})});
    const double tiny = static_cast<float>(1e-6);
    const double row1 = tiny / std::sqrt(tiny * tiny + static_cast<double>(1e-12f));
    for (std::int64_t j = 0; j < cols; ++j) {
        EXPECT_EQ(out[0][static_cast<std::size_t>(j)], 0.0) << j;
        EXPECT_NEAR(out[0][static_cast<std::size_t>(cols + j)], row1, 4e-6) << j;
        EXPECT_EQ(out[0][static_cast<std::size_t>(2 * cols + j)], -1.0) << j;
    }
}
