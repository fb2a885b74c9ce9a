// divide_by.h (the cuda target's division by a divisor shared by a row) compiled on
// the host: kiln_rt::divide(a, kiln_rt::divisor(b)) must be bit for bit the IEEE
// quotient a / b, on random bit patterns (specials included) and on the edges of
// the fast path's window, where one side takes the reciprocal and the other the
// division itself.
#include <kiln/detail/kround.h>

#include "targets/cuda/divide_by.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace {

// Same bits, or both NaN (the device's NaN payload is not the contract's concern here).
::testing::AssertionResult same_quotient(float a, float b) {
    const float want = a / b, got = kiln_rt::divide(a, kiln_rt::divisor(b));
    if (std::bit_cast<std::uint32_t>(want) == std::bit_cast<std::uint32_t>(got) || (std::isnan(want) && std::isnan(got)))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << std::hexfloat << a << " / " << b << ": want " << want << ", got " << got;
}

TEST(DivideBy, RandomBitPatternsGiveTheIeeeQuotient) {
    std::mt19937_64 rng(20261201);
    int failures = 0;
    for (int i = 0; i < 4'000'000 && failures < 5; ++i) {
        const auto bits = rng();
        const float a = std::bit_cast<float>(static_cast<std::uint32_t>(bits)), b = std::bit_cast<float>(static_cast<std::uint32_t>(bits >> 32));
        auto r = same_quotient(a, b);
        if (!r) {
            ADD_FAILURE() << r.message();
            ++failures;
        }
    }
}

TEST(DivideBy, RowLikeValuesGiveTheIeeeQuotient) {
    // Softmax's case: numerators in (0, 1], divisors the sum of a row of them.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> num(0.0f, 1.0f), den(1.0f, 70000.0f);
    int failures = 0;
    for (int i = 0; i < 4'000'000 && failures < 5; ++i) {
        auto r = same_quotient(num(rng), den(rng));
        if (!r) {
            ADD_FAILURE() << r.message();
            ++failures;
        }
    }
}

TEST(DivideBy, TheWindowsEdgesGiveTheIeeeQuotient) {
    const float inf = std::numeric_limits<float>::infinity(), max = std::numeric_limits<float>::max();
    const float tiny = std::numeric_limits<float>::denorm_min(), least = std::numeric_limits<float>::min();
    const float divisors[] = {1.0f, -1.0f, 3.0f, 0.1f, 1e-30f, 1e30f, least, -least, 2 * least, max, -max, max / 4, tiny, 0.0f, -0.0f, inf, -inf,
                              std::nanf("")};
    for (float b : divisors) {
        for (int e = -160; e <= 130; ++e) {
            for (float m : {1.0f, 1.5f, 1.9999999f, -1.25f}) {
                const float a = std::ldexp(m, e);
                EXPECT_TRUE(same_quotient(a, b));
                EXPECT_TRUE(same_quotient(std::nextafter(a, inf), b));
                EXPECT_TRUE(same_quotient(std::nextafter(a, -inf), b));
            }
        }
        for (float a : {0.0f, -0.0f, inf, -inf, std::nanf(""), tiny, max, least}) EXPECT_TRUE(same_quotient(a, b));
    }
}

}  // namespace
