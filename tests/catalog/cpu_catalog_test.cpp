// Every catalog entry at the small size on the cpu target: each case's outputs
// must be byte-identical to the interpreter's (the semantics contract), whatever
// entries the catalog holds when the test runs.
#include <gtest/gtest.h>

#include <cstring>

#include "catalog.h"

using namespace kiln;

namespace {

std::string first_difference(const catalog::Buffer& want, const catalog::Buffer& got) {
    const std::size_t w = static_cast<std::size_t>(kind_bytes(want.kind));
    for (std::size_t e = 0; e * w < want.bytes.size(); ++e)
        if (std::memcmp(&want.bytes[e * w], &got.bytes[e * w], w) != 0)
            return "element " + std::to_string(e) + ": interp " + std::to_string(want.get(static_cast<std::int64_t>(e))) + ", cpu " +
                   std::to_string(got.get(static_cast<std::int64_t>(e)));
    return "sizes differ";
}

class CpuCatalog : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuCatalog, BitExactWithInterpreter) {
    if (!cpu().available()) GTEST_SKIP() << cpu().unavailable_reason();
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    for (auto& c : e->cases(catalog::Size::small, 20261130)) {
        auto want = catalog::run_outputs(c, interp(), {});
        auto got = catalog::run_outputs(c, cpu(), {});
        ASSERT_EQ(want.size(), got.size());
        for (std::size_t o = 0; o < want.size(); ++o)
            EXPECT_TRUE(want[o].bytes == got[o].bytes) << e->name << " " << c.shape << " output " << o << ": " << first_difference(want[o], got[o]);
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
