// Every entry's error analysis (Case::error_bound, examples/error_bound.h): it
// restates the kernel's arithmetic, so its exact values must be the reference's, and
// its bounds must be meaningful (no bound so loose that a wrong result would pass).
// And compare() must hold each output element to its bound.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog.h"

using namespace kiln;

namespace {

// The largest bound an output element may have, relative to its size plus the RMS
// of its output: 2^-10 in f32 (about 16,000 u: what the conditioning of a long
// cancelling row allows at the small size), four units of the final rounding in
// f16 and bf16. A bound above it would let real bugs through. (An output that is 0
// throughout, as one-column norms and losses are, has no scale to compare with.)
double loosest_relative_bound(Kind k) {
    switch (k) {
        case Kind::F16: return 4 * 0x1p-11;
        case Kind::BF16: return 4 * 0x1p-8;
        default: return 0x1p-10;
    }
}

std::vector<Kind> output_kinds(const catalog::Case& c) {
    std::vector<Kind> kinds;
    for (const auto& b : c.args)
        if (b->output) kinds.push_back(b->kind);
    return kinds;
}

class EntryAnalysis : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(EntryAnalysis, ComputesTheReferenceValuesWithMeaningfulBounds) {
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    for (auto& c : e->cases(catalog::Size::small, 20261130)) {
        auto kinds = output_kinds(c);
        bool bounded = false;
        for (Kind k : kinds) bounded = bounded || (is_float(k) && !c.exact_integer);
        if (!bounded) continue;
        ASSERT_TRUE(c.error_bound) << e->name << " " << c.shape << ": float outputs need an error bound";
        auto ref = c.reference(c);
        auto bounds = c.error_bound(c);
        ASSERT_EQ(bounds.size(), ref.size()) << e->name << " " << c.shape;
        for (std::size_t o = 0; o < ref.size(); ++o) {
            if (!is_float(kinds[o])) continue;
            ASSERT_EQ(bounds[o].size(), ref[o].size()) << e->name << " " << c.shape << " output " << o;
            double rms = 0;
            for (double v : ref[o]) rms += v * v / static_cast<double>(ref[o].size());
            rms = std::sqrt(rms);
            for (std::size_t i = 0; i < ref[o].size(); ++i) {
                const auto& b = bounds[o][i];
                // The analysis' exact values are the reference's up to f64 rounding,
                // which is 2^-29 of any f32 rounding the bound holds.
                EXPECT_LE(std::abs(b.value - ref[o][i]), 0x1p-20 * b.error)
                    << e->name << " " << c.shape << " output " << o << " element " << i << ": analysis " << b.value << ", reference "
                    << ref[o][i];
                if (rms > 0)
                    EXPECT_LE(b.error, loosest_relative_bound(kinds[o]) * (std::abs(ref[o][i]) + rms))
                    << e->name << " " << c.shape << " output " << o << " element " << i << " (reference " << ref[o][i] << ")";
            }
        }
    }
}

TEST(CatalogCompare, HoldsEachElementToItsBound) {
    auto c = catalog::find("add")->cases(catalog::Size::small, 5).at(0);
    auto out = catalog::run_outputs(c, interp(), {});
    auto ref = c.reference(c);
    EXPECT_TRUE(catalog::compare(c, out, ref).ok);
    // Element 5 moved to the f32 value nearest four bounds away fails, naming it.
    const double bound = c.error_bound(c)[0][5].error;
    out[0].data<float>()[5] = static_cast<float>(ref[0][5] + 4 * bound);
    auto r = catalog::compare(c, out, ref);
    EXPECT_FALSE(r.ok);
    EXPECT_GT(r.worst, 2.0);
    EXPECT_NE(r.detail.find("output 0 element 5"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("exceeds its bound"), std::string::npos) << r.detail;
}

TEST(CatalogCompare, RefusesFloatOutputsWithoutABound) {
    auto c = catalog::find("add")->cases(catalog::Size::small, 5).at(0);
    auto out = catalog::run_outputs(c, interp(), {});
    c.error_bound = nullptr;
    auto r = catalog::compare(c, out, c.reference(c));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.detail.find("states no error bound"), std::string::npos) << r.detail;
}

namespace {
std::vector<std::string> entry_names() {
    std::vector<std::string> v;
    for (auto& e : catalog::entries()) v.push_back(e.name);
    return v;
}
}  // namespace

INSTANTIATE_TEST_SUITE_P(Catalog, EntryAnalysis, ::testing::ValuesIn(entry_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
