// The arithmetic of the cuda prelude's kc::fdiv_shared (src/targets/cuda/prelude.cpp),
// checked on the host: with y = RN(1/b), q0 = RN(a y) corrected once by the exact
// residual, fma(fma(-q0, b, a), y, q0), is the correctly rounded a / b whenever |a|
// and |b| lie in [2^-62, 2^62]. There nothing underflows or overflows, so the
// result scales exactly with the operands' exponents and a dividend significand
// against a divisor significand stands for every pair with those significands in
// the range. Here every dividend significand against the divisors where a
// reciprocal rounds least kindly (all ones, near one, near two) and random ones;
// the session that wrote the helper ran 21,200 divisors (1.8e11 pairs) the same way.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

// The prelude's fast path, in host floats (no contraction: each step rounds once).
float shared_quotient(float a, float b) {
    const float y = 1.0f / b;
    const float q0 = a * y;
    return std::fma(std::fma(-q0, b, a), y, q0);
}

// How many of the 2^23 dividends in [1, 2) give another quotient than a / b.
long differences_for(float b) {
    long bad = 0;
    for (std::uint32_t m = 0; m < (1u << 23); ++m) {
        const float a = std::bit_cast<float>(0x3f800000u | m);
        bad += std::bit_cast<std::uint32_t>(shared_quotient(a, b)) != std::bit_cast<std::uint32_t>(a / b);
    }
    return bad;
}

TEST(CudaSharedDivisor, EveryDividendSignificandAgainstHardDivisors) {
    std::vector<std::uint32_t> significands;
    for (std::uint32_t k = 0; k < 8; ++k) significands.push_back(k);                // 1 + k ulp
    for (std::uint32_t k = 0; k < 8; ++k) significands.push_back(0x7fffffu - k);    // 2 - (k + 1) ulp, all ones first
    std::mt19937 rng(20261204);
    for (int k = 0; k < 16; ++k) significands.push_back(rng() & 0x7fffffu);
    for (std::uint32_t s : significands) {
        const float b = std::bit_cast<float>(0x3f800000u | s);
        EXPECT_EQ(differences_for(b), 0) << "divisor " << b;
    }
}

TEST(CudaSharedDivisor, ScalesExactlyAcrossTheGuardedRange) {
    // Operands at the ends of [2^-62, 2^62] and both signs: the same significands as
    // above give the same quotient bits up to the exponent and sign.
    std::mt19937 rng(7);
    for (int i = 0; i < 200000; ++i) {
        const int ea = static_cast<int>(rng() % 125) - 62, eb = static_cast<int>(rng() % 125) - 62;
        const float a = std::ldexp(1.0f + static_cast<float>(rng() & 0x7fffffu) * 0x1p-23f, ea) * (rng() & 1 ? -1.0f : 1.0f);
        const float b = std::ldexp(1.0f + static_cast<float>(rng() & 0x7fffffu) * 0x1p-23f, eb) * (rng() & 1 ? -1.0f : 1.0f);
        if (std::fabs(a) > 0x1p62f || std::fabs(b) > 0x1p62f) continue;
        ASSERT_EQ(std::bit_cast<std::uint32_t>(shared_quotient(a, b)), std::bit_cast<std::uint32_t>(a / b)) << a << " / " << b;
    }
}

TEST(CudaSharedDivisor, TheGuardIsNeededBelowIt) {
    // A dividend below the range: the residual a - b q0 is no longer exact, and the
    // fast path would round wrongly (found by a random search; hence the guard).
    const float a = 0x1.8dc21cp-127f, b = 0x1.c6ef4cp-80f;
    EXPECT_NE(std::bit_cast<std::uint32_t>(shared_quotient(a, b)), std::bit_cast<std::uint32_t>(a / b));
}

}  // namespace
