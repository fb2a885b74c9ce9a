// kiln_cpu::exp32, the vectorisable f32 exp of the cpu target's generated code
// (cpu_prelude.h): whenever it does not flag its result as in doubt, the result
// must be the interpreter's, r32(kiln_rt::k_exp(x)), bit for bit; it may flag
// only a tiny fraction of inputs (each costs a scalar recomputation), and must
// flag every NaN. Checked here on a stride through all 2^32 float patterns and
// on the edges of its range.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <kiln/detail/kround.h>
#include <kiln/detail/kmath.h>

#include "targets/cpu/cpu_abi.h"
#include "targets/cpu/cpu_prelude.h"

namespace {

// The interpreter's f32 exp: f64 k_exp rounded once (NaN canonical).
float reference(float x) { return static_cast<float>(kiln_rt::round_f32(kiln_rt::k_exp(static_cast<double>(x)))); }

struct Tally {
    std::int64_t checked = 0, nans = 0, in_doubt = 0, wrong = 0;
    std::string first_wrong;
};

void check(float x, Tally& t) {
    unsigned in_doubt = 0;
    const float got = kiln_cpu::exp32(x, in_doubt);
    ++t.checked;
    if (std::isnan(x)) {
        ++t.nans;
        if (!in_doubt) ++t.wrong, t.first_wrong = "a NaN input was not flagged";
        return;
    }
    if (in_doubt) {
        ++t.in_doubt;
        return;
    }
    const float want = reference(x);
    if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want)) {
        if (!t.wrong) t.first_wrong = "x = " + std::to_string(x) + " (0x" + std::to_string(std::bit_cast<std::uint32_t>(x)) + "): exp32 " + std::to_string(got) +
                                      ", interpreter " + std::to_string(want);
        ++t.wrong;
    }
}

TEST(CpuExp32, MatchesTheInterpretersExpOnAStrideThroughEveryFloat) {
    Tally t;
    // 977 is prime, so the stride visits every exponent and sign with varied mantissas.
    for (std::uint64_t u = 0; u <= 0xffffffffu; u += 977) check(std::bit_cast<float>(static_cast<std::uint32_t>(u)), t);
    EXPECT_EQ(t.wrong, 0) << t.first_wrong;
    // The rounding test leaves about one input in 2^21 in doubt; allow 2^-16.
    EXPECT_LT(t.in_doubt, (t.checked - t.nans) / 65536 + 2) << t.in_doubt << " of " << t.checked - t.nans << " non-NaN inputs in doubt";
}

// Every float in the intervals where results go from f32-normal to subnormal to
// zero and where they overflow, the clamp's limits, and powers of two down to
// the smallest subnormal input (results next to 1).
TEST(CpuExp32, MatchesAtTheEdgesOfTheRange) {
    Tally t;
    auto sweep = [&](float lo, float hi) {
        for (float x = lo; x <= hi; x = std::nextafter(x, std::numeric_limits<float>::infinity())) check(x, t);
    };
    sweep(-104.0f, -103.0f);  // the last subnormal results round to 0 here
    sweep(-87.5f, -87.25f);   // normal to subnormal
    sweep(88.5f, 88.75f);     // FLT_MAX, then +inf
    for (int e = -149; e <= 7; ++e)  // powers of two and their neighbours, both signs, subnormals included
        for (float s : {1.0f, -1.0f}) {
            const float p = s * std::ldexp(1.0f, e);
            check(p, t), check(std::nextafter(p, 0.0f), t), check(std::nextafter(p, 2 * p), t);
        }
    for (float x : {-110.0f, -109.99999f, -110.00001f, 110.0f, 110.00001f, -1e30f, 1e30f, -std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::max(), -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(), std::bit_cast<float>(0x7f800001u)})
        check(x, t);
    EXPECT_EQ(t.wrong, 0) << t.first_wrong;
    EXPECT_LT(t.in_doubt, 64) << t.in_doubt << " of " << t.checked << " in doubt";
}

// What the generated code relies on for the in-doubt rerun: the flag only ever
// turns on (it accumulates over a loop) and NaN always turns it on.
TEST(CpuExp32, TheFlagAccumulates) {
    unsigned in_doubt = 0;
    kiln_cpu::exp32(1.0f, in_doubt);
    EXPECT_EQ(in_doubt, 0u);
    kiln_cpu::exp32(std::numeric_limits<float>::quiet_NaN(), in_doubt);
    EXPECT_EQ(in_doubt, 1u);
    kiln_cpu::exp32(1.0f, in_doubt);
    EXPECT_EQ(in_doubt, 1u);
}

}  // namespace
