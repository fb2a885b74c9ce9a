// kiln's rounding and cast rules (kround.h), the f16/bf16 storage types and
// the float printing rule, each checked against an independent reference:
// GCC's _Float16 (libgcc's direct double -> half conversion), a slow
// long-double "pick the nearer neighbour" rounding, the hardware float cast,
// and hand-computed values.
#include <kiln/numeric.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace {

using namespace kiln_rt;
using kiln::bf16;
using kiln::f16;
using kiln::repr_float;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::uint64_t bits64(double x) { return std::bit_cast<std::uint64_t>(x); }
// Same double bit for bit, or both NaN.
bool same(double a, double b) { return bits64(a) == bits64(b) || (std::isnan(a) && std::isnan(b)); }

std::mt19937_64& rng() { static std::mt19937_64 g(7); return g; }
// A double with a random sign and mantissa and an exponent in [elo, ehi].
double random_double(int elo, int ehi) {
    const auto r = rng()();
    const int e = std::uniform_int_distribution<int>(elo, ehi)(rng());
    const std::uint64_t b = (r & 0x800fffffffffffffULL) | (static_cast<std::uint64_t>(e + 1023) << 52);
    return std::bit_cast<double>(b);
}

// Independent slow reference: round x to a binary format with p significant
// bits, minimum exponent emin, maximum exponent emax, to nearest, ties to even,
// by finding the two neighbours in long double (exact here) and comparing.
double slow_round(double x, int p, int emin, int emax) {
    if (std::isnan(x)) return kNaN;
    if (x == 0 || std::isinf(x)) return x;
    const long double a = std::fabs(static_cast<long double>(x));
    int e = 0;
    std::frexp(a, &e);                                   // a = m 2^e, m in [0.5, 1)
    const long double q = std::ldexp(1.0L, std::max(e - 1, emin) - (p - 1));  // spacing there
    const long double lo = std::floor(a / q) * q, hi = lo + q;
    long double r;
    if (a - lo < hi - a) r = lo;
    else if (a - lo > hi - a) r = hi;
    else r = std::fmod(lo / q, 2.0L) == 0 ? lo : hi;
    if (r > (2 - std::ldexp(1.0L, 1 - p)) * std::ldexp(1.0L, emax)) r = kInf;
    return std::signbit(x) ? -static_cast<double>(r) : static_cast<double>(r);
}
double slow_f16(double x) { return slow_round(x, 11, -14, 15); }
double slow_bf16(double x) { return slow_round(x, 8, -126, 127); }

std::uint16_t gcc_f16_bits(double x) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(x)); }

// Checks one double against every reference that applies to f16.
void check_f16(double x) {
    const std::uint16_t got = f16_bits_from_double(x);
    if (std::isnan(x)) {
        ASSERT_EQ(got, 0x7e00);
        return;
    }
    ASSERT_EQ(got, gcc_f16_bits(x)) << std::hexfloat << x;
    ASSERT_TRUE(same(round_f16(x), static_cast<double>(static_cast<_Float16>(x)))) << std::hexfloat << x;
}

TEST(F16, ExhaustiveDecodeAndRoundTrip) {
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const std::uint16_t b = static_cast<std::uint16_t>(h);
        const double d = f16_bits_to_double(b);
        ASSERT_TRUE(same(d, static_cast<double>(std::bit_cast<_Float16>(b)))) << std::hex << h;
        ASSERT_TRUE(same(f16::from_bits(b).to_double(), d));
        if (std::isnan(d)) {
            ASSERT_EQ(f16_bits_from_double(d), 0x7e00) << std::hex << h;
            ASSERT_TRUE(std::isnan(round_f16(d)));
        } else {
            ASSERT_EQ(f16_bits_from_double(d), b) << std::hex << h;
            ASSERT_TRUE(same(round_f16(d), d));
            ASSERT_TRUE(f16(d).same_bits(f16::from_bits(b)));
        }
    }
}

TEST(F16, RandomDoublesMatchFloat16) {
    for (int i = 0; i < 2'000'000; ++i) check_f16(random_double(-28, 17));  // normal, subnormal, overflow
    for (int i = 0; i < 300'000; ++i) check_f16(random_double(-1022, 1023));  // everything else
    for (int i = 0; i < 300'000; ++i)
        check_f16(std::uniform_real_distribution<double>(-0x1p-14, 0x1p-14)(rng()));  // subnormal range
}

TEST(F16, TiesAndNeighboursMatchFloat16) {
    // Exact midpoints between adjacent finite f16 values (exact in double), and
    // the doubles just either side: the cases a double rounding would get wrong.
    for (std::uint32_t h = 0; h < 0x7c00; ++h) {
        const double a = f16_bits_to_double(static_cast<std::uint16_t>(h));
        const double b = h == 0x7bff ? 65536.0 : f16_bits_to_double(static_cast<std::uint16_t>(h + 1));
        const double mid = (a + b) / 2;
        for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf)}) {
            check_f16(x);
            check_f16(-x);
            ASSERT_TRUE(same(round_f16(x), slow_f16(x))) << std::hexfloat << x;
        }
    }
}

TEST(F16, HandValues) {
    EXPECT_EQ(f16_bits_from_double(65504.0), 0x7bff);
    EXPECT_EQ(f16_bits_from_double(65519.99999999999), 0x7bff);
    EXPECT_EQ(f16_bits_from_double(65520.0), 0x7c00);  // tie with 2^16, even side is infinity
    EXPECT_EQ(f16_bits_from_double(-65520.0), 0xfc00);
    EXPECT_EQ(f16_bits_from_double(1e300), 0x7c00);
    EXPECT_EQ(f16_bits_from_double(0x1p-24), 0x0001);                   // smallest subnormal
    EXPECT_EQ(f16_bits_from_double(0x1p-25), 0x0000);                   // tie with 0
    EXPECT_EQ(f16_bits_from_double(std::nextafter(0x1p-25, 1.0)), 0x0001);
    EXPECT_EQ(f16_bits_from_double(0x1.8p-24), 0x0002);                 // 1.5 subnormal ulps: tie to even
    EXPECT_EQ(f16_bits_from_double(-0x1p-30), 0x8000);                  // underflow keeps the sign
    EXPECT_EQ(f16_bits_from_double(0x1.ffcp-15), 0x0400);               // carries into the smallest normal
    EXPECT_EQ(f16_bits_from_double(1.0 + 0x1p-11), 0x3c00);             // tie to even
    EXPECT_EQ(f16_bits_from_double(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);   // via float this would tie to 0x3c00
    EXPECT_EQ(f16_bits_from_double(-0.0), 0x8000);
    EXPECT_EQ(f16_bits_from_double(kInf), 0x7c00);
    EXPECT_EQ(f16_bits_from_double(-kInf), 0xfc00);
    EXPECT_EQ(f16_bits_from_double(-kNaN), 0x7e00);
    EXPECT_TRUE(same(round_f16(0.1), 0.0999755859375));
}

TEST(BF16, HandValues) {
    EXPECT_EQ(bf16_bits_from_double(1.0), 0x3f80);
    EXPECT_EQ(bf16_bits_from_double(1.0 + 0x1p-8), 0x3f80);                  // tie, 1.0 is even
    EXPECT_EQ(bf16_bits_from_double(1.0 + 3 * 0x1p-8), 0x3f82);              // tie, 1 + 2^-6 is even
    EXPECT_EQ(bf16_bits_from_double(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);        // above the tie (float would tie)
    EXPECT_EQ(bf16_bits_from_double(1.0 + 0x1p-8 - 0x1p-40), 0x3f80);
    EXPECT_EQ(bf16_bits_from_double(-1.5), 0xbfc0);
    EXPECT_EQ(bf16_bits_from_double(3.141592653589793), 0x4049);             // 3.140625
    EXPECT_EQ(bf16_bits_from_double(1.0 / 3.0), 0x3eab);                     // 0.333984375
    EXPECT_EQ(bf16_bits_from_double(0x1.fep127), 0x7f7f);                    // largest finite
    EXPECT_EQ(bf16_bits_from_double(0x1.ffp127), 0x7f80);                    // tie with 2^128: even is inf
    EXPECT_EQ(bf16_bits_from_double(std::nextafter(0x1.ffp127, 0.0)), 0x7f7f);
    EXPECT_EQ(bf16_bits_from_double(-1e39), 0xff80);
    EXPECT_EQ(bf16_bits_from_double(0x1p-126), 0x0080);                      // smallest normal
    EXPECT_EQ(bf16_bits_from_double(0x1p-133), 0x0001);                      // smallest subnormal
    EXPECT_EQ(bf16_bits_from_double(0x1p-134), 0x0000);                      // tie with 0
    EXPECT_EQ(bf16_bits_from_double(-0x1p-134), 0x8000);
    EXPECT_EQ(bf16_bits_from_double(std::nextafter(0x1p-134, 1.0)), 0x0001);
    EXPECT_EQ(bf16_bits_from_double(3 * 0x1p-134), 0x0002);                  // tie to even
    EXPECT_EQ(bf16_bits_from_double(0x1.fcp-127), 0x007f);                   // largest subnormal
    EXPECT_EQ(bf16_bits_from_double(0x1.fep-127), 0x0080);                   // tie: carries into the normals
    EXPECT_EQ(bf16_bits_from_double(4.9406564584124654e-324), 0x0000);       // double subnormal
    EXPECT_EQ(bf16_bits_from_double(-0.0), 0x8000);
    EXPECT_EQ(bf16_bits_from_double(kNaN), 0x7fc0);
    EXPECT_EQ(bf16_bits_from_double(-kNaN), 0x7fc0);
    EXPECT_EQ(bf16_bits_from_double(kInf), 0x7f80);
    EXPECT_EQ(bf16_bits_from_double(-kInf), 0xff80);
    EXPECT_TRUE(same(bf16_bits_to_double(0x4049), 3.140625));
    EXPECT_TRUE(same(bf16_bits_to_double(0x0001), 0x1p-133));
    EXPECT_TRUE(same(bf16_bits_to_double(0x8000), -0.0));
    EXPECT_TRUE(std::isnan(bf16_bits_to_double(0x7fc0)));
    EXPECT_TRUE(std::isnan(round_bf16(kNaN)));
}

TEST(BF16, ExhaustiveRoundTrip) {
    for (std::uint32_t h = 0; h < 65536; ++h) {
        const std::uint16_t b = static_cast<std::uint16_t>(h);
        const double d = bf16_bits_to_double(b);
        // bf16 is the top half of an f32: an independent decoding.
        const double via_f32 = static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16));
        ASSERT_TRUE(same(d, via_f32)) << std::hex << h;
        if (std::isnan(d)) ASSERT_EQ(bf16_bits_from_double(d), 0x7fc0);
        else ASSERT_EQ(bf16_bits_from_double(d), b) << std::hex << h;
    }
}

TEST(BF16, RandomDoublesMatchSlowReference) {
    for (int i = 0; i < 1'000'000; ++i) {
        const double x = random_double(-140, 130);
        ASSERT_TRUE(same(round_bf16(x), slow_bf16(x))) << std::hexfloat << x;
    }
    // Midpoints between adjacent bf16 values and their neighbours.
    for (std::uint32_t h = 0; h < 0x7f80; h += 3) {
        const double a = bf16_bits_to_double(static_cast<std::uint16_t>(h));
        const double b = h == 0x7f7f ? 0x1p128 : bf16_bits_to_double(static_cast<std::uint16_t>(h + 1));
        const double mid = (a + b) / 2;
        for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf), -mid})
            ASSERT_TRUE(same(round_bf16(x), slow_bf16(x))) << std::hexfloat << x;
    }
}

TEST(BF16, FloatInputsMatchBitTrick) {
    // For inputs that are floats, the classic f32 -> bf16 round-to-nearest-even
    // bit trick is a third, independent implementation.
    for (int i = 0; i < 1'000'000; ++i) {
        const std::uint32_t u = static_cast<std::uint32_t>(rng()());
        const float f = std::bit_cast<float>(u);
        if (std::isnan(f)) continue;
        const std::uint16_t want = static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
        ASSERT_EQ(bf16_bits_from_double(static_cast<double>(f)), want) << std::hex << u;
    }
}

TEST(F32, RoundMatchesFloatCast) {
    for (int i = 0; i < 1'000'000; ++i) {
        const double x = random_double(-160, 130);
        ASSERT_TRUE(same(round_f32(x), static_cast<double>(static_cast<float>(x)))) << std::hexfloat << x;
    }
    EXPECT_EQ(round_f32(0x1.ffffffp127), kInf);                        // tie above FLT_MAX: to inf
    EXPECT_EQ(round_f32(std::nextafter(0x1.ffffffp127, 0.0)), 0x1.fffffep127);
    EXPECT_EQ(round_f32(0x1p-150), 0.0);                               // tie with 0
    EXPECT_EQ(round_f32(0x1.8p-149), 0x1p-148);                        // subnormal tie to even
    EXPECT_EQ(round_f32(0.1), 0.10000000149011612);
    EXPECT_TRUE(same(round_f32(-0.0), -0.0));
    EXPECT_TRUE(std::isnan(round_f32(kNaN)));
    EXPECT_EQ(bits64(round_f32(-kNaN)), 0x7ff8000000000000ULL);        // canonical on every engine
}

TEST(NarrowTypes, Api) {
    static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2);
    static_assert(std::is_trivially_copyable_v<f16> && std::is_trivially_copyable_v<bf16>);
    static_assert(!std::is_convertible_v<double, f16> && !std::is_convertible_v<f16, double>);
    EXPECT_EQ(f16().bits, 0);
    EXPECT_EQ(bf16().bits, 0);
    EXPECT_EQ(f16(1.0).bits, 0x3c00);
    EXPECT_EQ(f16(0.1f).bits, f16_bits_from_double(static_cast<double>(0.1f)));
    EXPECT_EQ(bf16(1.0f + 0x1p-8f).bits, 0x3f80);
    EXPECT_EQ(static_cast<double>(f16::from_bits(0x3555)), 0.333251953125);
    EXPECT_EQ(static_cast<float>(bf16::from_bits(0x4049)), 3.140625f);
    EXPECT_TRUE(f16(-0.0).same_bits(f16::from_bits(0x8000)));
    EXPECT_FALSE(f16(-0.0).same_bits(f16(0.0)));
    EXPECT_TRUE(bf16(2.0).same_bits(bf16::from_bits(0x4000)));
    EXPECT_EQ(f16(70000.0).to_double(), kInf);
}

TEST(IntegerRules, Wrap) {
    EXPECT_EQ(wrap_i8(127), 127);
    EXPECT_EQ(wrap_i8(128), -128);
    EXPECT_EQ(wrap_i8(255), -1);
    EXPECT_EQ(wrap_i8(256), 0);
    EXPECT_EQ(wrap_i8(-129), 127);
    EXPECT_EQ(wrap_i8(-128), -128);
    EXPECT_EQ(wrap_i8(1000), -24);                                      // 1000 - 4*256
    EXPECT_EQ(wrap_i8(std::numeric_limits<long long>::min()), 0);
    EXPECT_EQ(wrap_i32(2147483647LL), 2147483647LL);
    EXPECT_EQ(wrap_i32(2147483648LL), -2147483648LL);
    EXPECT_EQ(wrap_i32(4294967296LL + 5), 5);
    EXPECT_EQ(wrap_i32(-2147483649LL), 2147483647LL);
    EXPECT_EQ(wrap_bits(-1, 64), -1);
}

TEST(IntegerRules, FloatToIntSaturates) {
    constexpr long long kMax = std::numeric_limits<long long>::max(), kMin = std::numeric_limits<long long>::min();
    EXPECT_EQ(f64_to_i64_sat(2.9), 2);
    EXPECT_EQ(f64_to_i64_sat(-2.9), -2);                                // toward zero
    EXPECT_EQ(f64_to_i64_sat(-0.5), 0);
    EXPECT_EQ(f64_to_i64_sat(kNaN), 0);
    EXPECT_EQ(f64_to_i64_sat(kInf), kMax);
    EXPECT_EQ(f64_to_i64_sat(-kInf), kMin);
    EXPECT_EQ(f64_to_i64_sat(1e19), kMax);
    EXPECT_EQ(f64_to_i64_sat(0x1p63), kMax);                            // 2^63 itself is out of range
    EXPECT_EQ(f64_to_i64_sat(0x1.fffffffffffffp62), 9223372036854774784LL);  // largest double below 2^63
    EXPECT_EQ(f64_to_i64_sat(-0x1p63), kMin);                           // exactly INT64_MIN
    EXPECT_EQ(f64_to_i64_sat(-1e19), kMin);
    EXPECT_EQ(f64_to_int_sat(127.9, 8), 127);
    EXPECT_EQ(f64_to_int_sat(128.0, 8), 127);
    EXPECT_EQ(f64_to_int_sat(300.5, 8), 127);
    EXPECT_EQ(f64_to_int_sat(-128.9, 8), -128);
    EXPECT_EQ(f64_to_int_sat(-129.0, 8), -128);
    EXPECT_EQ(f64_to_int_sat(-5.5, 8), -5);
    EXPECT_EQ(f64_to_int_sat(kNaN, 8), 0);
    EXPECT_EQ(f64_to_int_sat(2147483647.9, 32), 2147483647LL);
    EXPECT_EQ(f64_to_int_sat(2147483648.0, 32), 2147483647LL);
    EXPECT_EQ(f64_to_int_sat(-2147483648.9, 32), -2147483648LL);
    EXPECT_EQ(f64_to_int_sat(-1e10, 32), -2147483648LL);
    EXPECT_EQ(f64_to_int_sat(-kInf, 32), -2147483648LL);
    EXPECT_EQ(f64_to_int_sat(1e300, 64), kMax);
}

TEST(IntegerRules, DivisionAndRemainder) {
    constexpr long long kMin64 = std::numeric_limits<long long>::min();
    EXPECT_EQ(idiv(7, 2, 32), 3);
    EXPECT_EQ(idiv(-7, 2, 32), -3);                                     // truncation
    EXPECT_EQ(idiv(7, -2, 32), -3);
    EXPECT_EQ(idiv(-7, -2, 32), 3);
    EXPECT_EQ(imod(7, 2, 32), 1);
    EXPECT_EQ(imod(-7, 2, 32), -1);                                     // sign of the dividend
    EXPECT_EQ(imod(7, -2, 32), 1);
    EXPECT_EQ(imod(-7, -2, 32), -1);
    EXPECT_EQ(idiv(5, 0, 32), 0);
    EXPECT_EQ(imod(5, 0, 32), 5);
    EXPECT_EQ(imod(-5, 0, 8), -5);
    EXPECT_EQ(idiv(kMin64, 0, 64), 0);
    EXPECT_EQ(idiv(-128, -1, 8), -128);                                 // MIN / -1 wraps
    EXPECT_EQ(idiv(-2147483648LL, -1, 32), -2147483648LL);
    EXPECT_EQ(idiv(kMin64, -1, 64), kMin64);
    EXPECT_EQ(imod(kMin64, -1, 64), 0);
    EXPECT_EQ(imod(-128, -1, 8), 0);
    EXPECT_EQ(idiv(-127, -1, 8), 127);
    EXPECT_EQ(idiv(kMin64, 1, 64), kMin64);
    EXPECT_EQ(idiv(kMin64 + 1, -1, 64), std::numeric_limits<long long>::max());
}

TEST(ReprFloat, Examples) {
    EXPECT_EQ(repr_float(12.0), "12.0");
    EXPECT_EQ(repr_float(static_cast<double>(0.1f)), "0.10000000149011612");
    EXPECT_EQ(repr_float(0.0999755859375), "0.0999755859375");
    EXPECT_EQ(repr_float(0.4000000059604645), "0.4000000059604645");
    EXPECT_EQ(repr_float(-1.0), "-1.0");
    EXPECT_EQ(repr_float(1e30), "1e+30");
    EXPECT_EQ(repr_float(-0.0), "-0.0");
    EXPECT_EQ(repr_float(0.0), "0.0");
    EXPECT_EQ(repr_float(0.1), "0.1");
    EXPECT_EQ(repr_float(1e16), "1e+16");
    EXPECT_EQ(repr_float(123456.0), "123456.0");
    EXPECT_EQ(repr_float(5e-324), "5e-324");
    EXPECT_EQ(repr_float(1.5e-7), "1.5e-07");
    EXPECT_EQ(repr_float(kInf), "inf");
    EXPECT_EQ(repr_float(-kInf), "-inf");
    EXPECT_EQ(repr_float(kNaN), "nan");
    EXPECT_EQ(repr_float(-kNaN), "nan");
    EXPECT_EQ(repr_float(round_f16(0.1)), "0.0999755859375");
    EXPECT_EQ(repr_float(round_bf16(0.4)), "0.400390625");
}

TEST(ReprFloat, RoundTrips) {
    for (int i = 0; i < 200'000; ++i) {
        const double x = random_double(-1022, 1023);
        const std::string s = repr_float(x);
        ASSERT_TRUE(same(std::stod(s), x)) << s;
    }
}

}  // namespace
