// kc::fdiv, the cuda prelude's correctly rounded f32 division without a call
// (src/targets/cuda/prelude.cpp: "f32 division"; EmitOptions::inline_division).
//
// On the host: the arithmetic of its fast path, fdiv_core, with the reciprocal the
// special function unit may give (within 1 ulp of 1/b: RN(1/b) and its two
// neighbours), for every dividend significand against the divisors where a
// reciprocal rounds least kindly, and scaled over the range kc::fdiv lets it take.
// (The whole helper, its wide path included, runs on the emulated target against the
// interpreter: tests/emulated/emulated_inline_division_test.cpp.)
// Offline: the PTX of a division with the option has no div.rn.f32, only a call to
// the wide path.
// On a device (KILN_CUDA_INLINE_DIVISION=1): quotients of random bit patterns and
// of hand-picked edges, bit for bit against the interpreter's.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "division_kernels.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }
std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// fdiv_core in host floats (each step rounds once), its reciprocal `r0` given.
float core_quotient(float a, float b, float r0) {
    const float r1 = std::fma(r0, std::fma(-b, r0, 1.0f), r0);
    const float q0 = a * r1;
    return std::fma(r1, std::fma(-b, q0, a), q0);
}

// RN(1/b) moved by `step` ulps (away from zero when positive).
float reciprocal(float b, int step) { return from_bits(bits(1.0f / b) + static_cast<std::uint32_t>(step)); }

// How many of the 2^23 dividends in [1, 2) give another quotient than a / b.
long differences_for(float b, int step) {
    long bad = 0;
    const float r0 = reciprocal(b, step);
    for (std::uint32_t m = 0; m < (1u << 23); ++m) {
        const float a = from_bits(0x3f800000u | m);
        bad += bits(core_quotient(a, b, r0)) != bits(a / b);
    }
    return bad;
}

TEST(CudaInlineDivision, TheFastPathRoundsEveryDividendSignificandCorrectly) {
    // With the correctly rounded reciprocal (the emulator's). The special function
    // unit's is not always that one; the fast path is div.rn.f32's own, instruction
    // for instruction, so on the device it is right wherever CUDA's range check lets
    // div.rn.f32 take it, and OnTheDeviceEveryDividendSignificandAgainstHardDivisors
    // checks the hardware's reciprocals directly.
    std::vector<std::uint32_t> significands = {0u, 1u, 2u, 0x7fffffu, 0x7ffffeu, 0x400000u, 0x3fffffu};
    std::mt19937 rng(20261206);
    for (int k = 0; k < 5; ++k) significands.push_back(rng() & 0x7fffffu);
    for (std::uint32_t s : significands) {
        const float b = from_bits(0x3f800000u | s);
        EXPECT_EQ(differences_for(b, 0), 0) << "divisor " << b;
    }
}

TEST(CudaInlineDivision, AReciprocalAnUlpOffIsNotEnough) {
    // Any reciprocal within 1 ulp would not do: with RN(1/b) moved an ulp either way,
    // one dividend significand against b = 2 - 2^-23 rounds wrongly. Hence the device
    // test of the hardware's own reciprocals.
    const float b = from_bits(0x3fffffffu);
    EXPECT_EQ(differences_for(b, -1), 1);
    EXPECT_EQ(differences_for(b, 1), 1);
}

TEST(CudaInlineDivision, TheFastPathScalesAcrossTheRangeFdivGivesIt) {
    // Operands and quotients anywhere in kc::fdiv's bounds, both signs.
    std::mt19937 rng(11);
    long checked = 0;
    while (checked < 300000) {
        const int ea = static_cast<int>(rng() % 226) - 100, eb = static_cast<int>(rng() % 251) - 125;
        const float a = std::ldexp(from_bits(0x3f800000u | (rng() & 0x7fffffu)), ea) * (rng() & 1 ? -1.0f : 1.0f);
        const float b = std::ldexp(from_bits(0x3f800000u | (rng() & 0x7fffffu)), eb) * (rng() & 1 ? -1.0f : 1.0f);
        const float q = a / b;
        if (!(std::fabs(a) <= 0x1p125f && std::fabs(b) <= 0x1p125f && std::fabs(q) >= 0x1p-100f && std::fabs(q) <= 0x1p125f)) continue;
        ASSERT_EQ(bits(core_quotient(a, b, reciprocal(b, 0))), bits(q)) << a << " / " << b;
        ++checked;
    }
}

TEST(CudaInlineDivision, TheBoundsAreNeeded) {
    // Outside them the fast path rounds wrongly or overflows, which is why kc::fdiv
    // sends such operands to its wide path: a dividend far below 2^-100 (the
    // residual is no longer exact), a quotient that overflows, and -0 (the residual's
    // +0 added to -0 gives +0).
    const float tiny = 0x1.8dc21cp-127f, b = 0x1.c6ef4cp-80f;
    EXPECT_NE(bits(core_quotient(tiny, b, reciprocal(b, 0))), bits(tiny / b));
    const float big = 0x1.fffffep127f, half = 0x1.000002p-1f;
    EXPECT_TRUE(std::isnan(core_quotient(big, half, reciprocal(half, 0))) || bits(core_quotient(big, half, reciprocal(half, 0))) == bits(big / half));
    EXPECT_EQ(bits(core_quotient(-0.0f, 3.0f, reciprocal(3.0f, 0))), bits(0.0f));
    EXPECT_EQ(bits(-0.0f / 3.0f), bits(-0.0f));
}

using division_tests::divide_rows;

TEST(CudaInlineDivision, ThePtxHoldsNoDivisionInstructionAndCallsOnlyTheWidePath) {
    REQUIRE_NVRTC();
    const Tensor<f32> a({4, 256}), b({4, 256});
    Tensor<f32> y({4, 256});
    const auto args = args_of(a, b, y);
    auto program = detail::specialize(*divide_rows().shared_impl(), args, Loc::here());
    for (Precision p : {Precision::standard, Precision::exact}) {
        cu::EmitOptions o = cu::emit_options(args, CompileOptions{.precision = p});
        o.inline_division = false;
        const std::string plain = cu::kernel_ptx(*cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true));
        EXPECT_TRUE(contains(plain, "div.rn.f32"));  // what the option takes out
        o.inline_division = true;
        const std::string inlined = cu::kernel_ptx(*cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true));
        EXPECT_FALSE(contains(inlined, "div.rn.f32"));
        EXPECT_TRUE(contains(inlined, "rcp.approx.ftz.f32"));
        // The one call is the wide path's, out of line (prelude: "f32 division").
        int calls = 0;
        for (std::size_t at = inlined.find("call."); at != std::string::npos; at = inlined.find("call.", at + 1), ++calls)
            EXPECT_TRUE(contains(inlined.substr(at, 80), "fdiv_wide")) << inlined.substr(at, 80);
        EXPECT_GE(calls, 1);
    }
}

// Random bit patterns (every exponent, subnormals, infinities, NaNs) and edges:
// zeros of both signs, the bounds of kc::fdiv's fast path, quotients that overflow,
// that land on the subnormal grid exactly halfway (ties) or just beside it.
std::pair<std::vector<float>, std::vector<float>> hard_operands(std::size_t n) {
    std::vector<float> a, b;
    std::mt19937 rng(5);
    const std::vector<float> edges = {0.0f, -0.0f, 1.0f, -1.0f, 0x1p-125f, 0x1p125f, 0x1.fffffep-126f, 0x1p-126f, 0x1p-149f, 0x1p-100f,
                                      0x1.fffffep-101f, 0x1p126f, 0x1.fffffep127f, 3.0f, 0.75f, INFINITY, -INFINITY, NAN, 0x1p-24f, 0x1p24f};
    for (float x : edges)
        for (float y : edges) a.push_back(x), b.push_back(y);
    // Exact quotients on the subnormal grid's midpoints and beside them: (2k + 1) 2^-150
    // and its neighbours, as dividends times powers of two.
    for (int i = 0; i < 4096; ++i) {
        const int e = 1 + static_cast<int>(rng() % 60);
        const float odd = static_cast<float>(2 * (rng() % (1u << 22)) + 1);
        const float q = std::ldexp(odd, -150 - static_cast<int>(rng() % 24));
        const float divisor = std::ldexp(1.0f, e);
        const float dividend = q * divisor;  // exact: q has at most 23 significant bits
        for (int d : {-1, 0, 1}) a.push_back(from_bits(bits(dividend) + static_cast<std::uint32_t>(d))), b.push_back(divisor);
        a.push_back(dividend), b.push_back(from_bits(bits(divisor) + 1));
    }
    while (a.size() < n) a.push_back(from_bits(static_cast<std::uint32_t>(rng()))), b.push_back(from_bits(static_cast<std::uint32_t>(rng())));
    a.resize(n), b.resize(n);
    return {a, b};
}

TEST(CudaInlineDivision, OnTheDeviceTheQuotientsAreTheInterpretersBits) {
    REQUIRE_DEVICE();
    if (!division_tests::knob_on("KILN_CUDA_INLINE_DIVISION")) GTEST_SKIP() << "KILN_CUDA_INLINE_DIVISION=1 runs this";
    constexpr std::int64_t rows = 4096, cols = 4096;
    auto [a, b] = hard_operands(static_cast<std::size_t>(rows * cols));
    Tensor<f32> ta({rows, cols}, a), tb({rows, cols}, b), want({rows, cols});
    const auto ad = ta.to(cuda()), bd = tb.to(cuda());
    auto yd = Tensor<f32>({rows, cols}).to(cuda());
    for (Precision p : {Precision::exact, Precision::standard}) {
        run_kernel(divide_rows(), interp(), args_of(std::as_const(ta), std::as_const(tb), want), {.precision = p}, Loc::here());
        run_kernel(divide_rows(), cuda(), args_of(ad, bd, yd), {.precision = p}, Loc::here());
        const auto got = yd.to(host()).values();
        long differ = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (bits(want.values()[i]) != bits(got[i]) && !(std::isnan(want.values()[i]) && std::isnan(got[i])))
                if (++differ <= 5) ADD_FAILURE() << a[i] << " / " << b[i] << ": interpreter " << want.values()[i] << ", cuda " << got[i];
        EXPECT_EQ(differ, 0);
    }
}

TEST(CudaInlineDivision, OnTheDeviceEveryDividendSignificandAgainstHardDivisors) {
    // The special function unit's reciprocals, whatever they are: every one of the
    // 2^23 dividend significands in [1, 2) against divisors where a reciprocal rounds
    // least kindly and random ones, against the host's correctly rounded quotients.
    REQUIRE_DEVICE();
    if (!division_tests::knob_on("KILN_CUDA_INLINE_DIVISION")) GTEST_SKIP() << "KILN_CUDA_INLINE_DIVISION=1 runs this";
    std::vector<std::uint32_t> significands = {0u, 1u, 2u, 3u, 0x7fffffu, 0x7ffffeu, 0x7ffffdu, 0x400000u, 0x3fffffu, 0x555555u, 0x2aaaabu};
    std::mt19937 rng(606);
    while (significands.size() < 16) significands.push_back(rng() & 0x7fffffu);
    // Rows of 4096 quotients (a row of 2^23 would be one program instance's tile: the
    // first device run's version of this test did not finish in its 150 s).
    const std::int64_t divisors = static_cast<std::int64_t>(significands.size()), n = std::int64_t{1} << 23, cols = 4096;
    std::vector<float> a(static_cast<std::size_t>(divisors * n)), b(a.size());
    for (std::int64_t d = 0; d < divisors; ++d)
        for (std::int64_t m = 0; m < n; ++m) {
            a[static_cast<std::size_t>(d * n + m)] = from_bits(0x3f800000u | static_cast<std::uint32_t>(m));
            b[static_cast<std::size_t>(d * n + m)] = from_bits(0x3f800000u | significands[static_cast<std::size_t>(d)]);
        }
    const std::int64_t rows = divisors * n / cols;
    Tensor<f32> ta({rows, cols}, a), tb({rows, cols}, b);
    const auto ad = ta.to(cuda()), bd = tb.to(cuda());
    auto yd = Tensor<f32>({rows, cols}).to(cuda());
    run_kernel(divide_rows(), cuda(), args_of(ad, bd, yd), {.precision = Precision::exact}, Loc::here());
    const auto got = yd.to(host()).values();
    long differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (bits(got[i]) != bits(a[i] / b[i]))
            if (++differ <= 5) ADD_FAILURE() << a[i] << " / " << b[i] << ": cuda " << got[i] << ", host " << a[i] / b[i];
    EXPECT_EQ(differ, 0);
}

}  // namespace
