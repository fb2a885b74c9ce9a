// What cross-engine comparisons count as identical (kiln/detail/identical.h): the
// same bytes, or two f32/f64 NaNs of any sign and payload; nothing else.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kiln/detail/identical.h"

using kiln::Kind;
using kiln::detail::first_non_identical;
using kiln::detail::identical_elements;

namespace {

template <class T> bool same(Kind k, T a, T b) {
    unsigned char x[sizeof(T)], y[sizeof(T)];
    std::memcpy(x, &a, sizeof(T));
    std::memcpy(y, &b, sizeof(T));
    return identical_elements(k, x, y);
}

TEST(Identical, FloatNaNsOfAnySignAndPayloadMatch) {
    const float qnan = std::numeric_limits<float>::quiet_NaN();
    float payload;
    const unsigned bits = 0xffc00123u;  // negative quiet NaN with a payload
    std::memcpy(&payload, &bits, 4);
    EXPECT_TRUE(same(Kind::F32, qnan, -qnan));
    EXPECT_TRUE(same(Kind::F32, qnan, payload));
    const double dnan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(same(Kind::F64, dnan, -dnan));
}

TEST(Identical, EverythingElseComparesByBits) {
    EXPECT_FALSE(same(Kind::F32, 0.0f, -0.0f));  // signed zeros are in the contract
    EXPECT_FALSE(same(Kind::F32, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()));
    EXPECT_FALSE(same(Kind::F64, std::numeric_limits<double>::quiet_NaN(), 1.0));
    EXPECT_TRUE(same(Kind::F64, 1.5, 1.5));
    // An f16/bf16 NaN is always kiln's canonical one: other patterns are differences.
    EXPECT_FALSE(same<unsigned short>(Kind::F16, 0x7e00, 0xfe00));
    EXPECT_FALSE(same<unsigned short>(Kind::BF16, 0x7fc0, 0x7fc1));
    // Integers of the same width as a float NaN pattern are plain integers.
    EXPECT_FALSE(same<int>(Kind::I32, 0x7fc00000, 0x7fc00001));
}

TEST(Identical, FirstNonIdenticalIndex) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    float a[4] = {1.0f, nan, 3.0f, 4.0f}, b[4] = {1.0f, -nan, 3.0f, 5.0f};
    auto* pa = reinterpret_cast<const unsigned char*>(a);
    auto* pb = reinterpret_cast<const unsigned char*>(b);
    EXPECT_EQ(first_non_identical(Kind::F32, pa, pb, sizeof a), 3);
    EXPECT_EQ(first_non_identical(Kind::F32, pa, pb, 3 * sizeof(float)), -1);
}

}  // namespace
