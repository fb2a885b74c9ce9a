// The cpu prelude's branch-free f16/bf16 conversions (cpu_prelude.h), which
// generated code uses for loads, stores, casts and the rounding of f16/bf16
// arithmetic, against kiln_rt's definitions (kround.h), bit for bit: every
// f16/bf16 pattern loaded and stored, a stride through every float rounded,
// and doubles of every class rounded (ties, near-ties, the overflow and
// underflow boundaries, subnormals, NaN and inf).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <kiln/detail/kround.h>
#include <kiln/detail/kmath.h>

#include "targets/cpu/cpu_abi.h"
#include "targets/cpu/cpu_prelude.h"

namespace {

std::uint64_t bits(double d) {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}

double from_bits(std::uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}

float float_of(std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

TEST(CpuNarrowFloat, EveryPatternLoadsAndStoresAsKilnRt) {
    int bad = 0;
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const auto m = static_cast<unsigned short>(h);
        const double bf = kiln_rt::bf16_bits_to_double(m), f16 = kiln_rt::f16_bits_to_double(m);
        bad += bits(kiln_cpu::K_bf16::load(m)) != bits(bf);
        bad += bits(kiln_cpu::K_f16::load(m)) != bits(f16);
        bad += kiln_cpu::K_bf16::store(bf) != kiln_rt::bf16_bits_from_double(bf);
        bad += kiln_cpu::K_f16::store(f16) != kiln_rt::f16_bits_from_double(f16);
        if (bad) FAIL() << "pattern 0x" << std::hex << h;
    }
    // Canonical NaNs whatever the sign and payload stored.
    EXPECT_EQ(kiln_cpu::K_bf16::store(-std::numeric_limits<double>::quiet_NaN()), 0x7fc0);
    EXPECT_EQ(kiln_cpu::K_f16::store(-std::numeric_limits<double>::quiet_NaN()), 0x7e00);
}

// Rounding the exact value of a float once: the cast f32 -> bf16 / f16.
TEST(CpuNarrowFloat, FloatsRoundAsKilnRt) {
    for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 997) {
        const float f = float_of(static_cast<std::uint32_t>(u));
        ASSERT_EQ(bits(kiln_cpu::round_bf16_of(f)), bits(kiln_rt::round_bf16(f))) << std::hexfloat << f;
        ASSERT_EQ(bits(kiln_cpu::round_f16_of(f)), bits(kiln_rt::round_f16(f))) << std::hexfloat << f;
    }
    // The f16 boundaries: the largest finite (65504), the overflow tie (65520,
    // to even: inf), the subnormal steps and the tie below the smallest one.
    for (float f : {65504.0f, 65519.996f, 65520.0f, 65536.0f, 0x1p-14f, 0x1.ffcp-15f, 0x1p-24f, 0x1p-25f, 0x1.000002p-25f, 0x1.8p-24f,
                    0x1.4p-24f, -0.0f, 3.0e38f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()}) {
        for (float g : {f, -f}) {
            EXPECT_EQ(bits(kiln_cpu::round_f16_of(g)), bits(kiln_rt::round_f16(g))) << std::hexfloat << g;
            EXPECT_EQ(bits(kiln_cpu::round_bf16_of(g)), bits(kiln_rt::round_bf16(g))) << std::hexfloat << g;
        }
    }
}

// Rounding a double once (f16/bf16 arithmetic computes in f64): through a
// float rounded to odd, which must never round twice. Doubles with many
// trailing zeros hit the ties; those one bit beside a tie test the sticky bit.
TEST(CpuNarrowFloat, DoublesRoundAsKilnRt) {
    std::mt19937_64 g(2024);
    std::vector<double> xs;
    for (int i = 0; i < 2000000; ++i) {
        std::uint64_t u = g();
        if (i % 2) u = (u & 0x800fffffffffffffULL) | (static_cast<std::uint64_t>(1023 - 170 + static_cast<int>(g() % 340)) << 52);
        if (i % 3 == 0) u &= ~((std::uint64_t{1} << (g() % 53)) - 1);  // a tie at some width
        if (i % 5 == 0) u += (g() & 1) ? 1 : static_cast<std::uint64_t>(-1);  // beside it
        xs.push_back(from_bits(u));
    }
    for (double x : {65520.0, 65519.99999999999, 0x1.ffep15, 0x1p-25, 0x1.0000000000001p-25, 0x1p-134, 0x1.0000000000001p-134, 0x1p-133,
                     0x1.fep127, 0x1.ff00000000001p127, 1e300, 4.9e-324, 0x1.0000010000000p0, 0x1.0000010000001p0, 0x1.0020000000000p0,
                     std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), -0.0}) {
        xs.push_back(x);
        xs.push_back(-x);
    }
    for (double x : xs) {
        ASSERT_EQ(bits(kiln_cpu::rbf16(x)), bits(kiln_rt::round_bf16(x))) << std::hexfloat << x;
        ASSERT_EQ(bits(kiln_cpu::r16(x)), bits(kiln_rt::round_f16(x))) << std::hexfloat << x;
    }
}

}  // namespace
