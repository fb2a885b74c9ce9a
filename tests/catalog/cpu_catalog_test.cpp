// Every catalog entry at the small size on the cpu target: in exact precision each
// case's outputs must be byte-identical to the interpreter's (the semantics
// contract); in standard precision (which may reassociate float sums) they must
// match the entry's f64 reference within its error bound. Whatever entries the
// catalog holds when the test runs.
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/detail/identical.h"
#include "catalog.h"

using namespace kiln;

namespace {

// "" when the outputs are identical (kiln/detail/identical.h), else the first difference.
std::string first_difference(const catalog::Buffer& want, const catalog::Buffer& got) {
    if (want.bytes.size() != got.bytes.size()) return "sizes differ";
    const long long e = detail::first_non_identical(want.kind, want.bytes.data(), got.bytes.data(), want.bytes.size());
    if (e < 0) return "";
    return "element " + std::to_string(e) + ": interp " + std::to_string(want.get(e)) + ", cpu " + std::to_string(got.get(e));
}

class CpuCatalog : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuCatalog, BitExactWithInterpreter) {
    if (!cpu().available()) GTEST_SKIP() << cpu().unavailable_reason();
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    for (auto& c : e->cases(catalog::Size::small, 20261130)) {
        auto want = catalog::run_outputs(c, interp(), {});
        auto got = catalog::run_outputs(c, cpu(), {.precision = Precision::exact});
        ASSERT_EQ(want.size(), got.size());
        for (std::size_t o = 0; o < want.size(); ++o)
            EXPECT_EQ(first_difference(want[o], got[o]), "") << e->name << " " << c.shape << " exact, output " << o;
        auto r = catalog::run_case(c, cpu(), {.precision = Precision::standard});
        EXPECT_TRUE(r.ok) << e->name << " " << c.shape << " standard: " << r.detail << " (error/bound " << r.worst << ")";
    }
}

std::vector<std::string> entry_names() {
    std::vector<std::string> v;
    for (auto& e : catalog::entries()) v.push_back(e.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, CpuCatalog, ::testing::ValuesIn(entry_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
