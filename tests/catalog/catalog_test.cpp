// Every catalog entry, at the small size, on the interpreter: each case (at least
// three shapes, one of them ragged) must match its independent f64 reference.
#include <gtest/gtest.h>

#include "catalog.h"

using namespace kiln;

class CatalogEntry : public ::testing::TestWithParam<std::string> {};

TEST_P(CatalogEntry, MatchesReferenceOnInterpreter) {
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    auto cases = e->cases(catalog::Size::small, 20261130);
    EXPECT_GE(cases.size(), 3u) << "each entry covers at least three shapes";
    for (auto& c : cases) {
        auto r = catalog::run_case(c, interp(), {});
        EXPECT_TRUE(r.ok) << e->name << " " << c.shape << ": " << r.detail << " (error/bound " << r.worst << ")";
    }
}

static std::vector<std::string> names() {
    std::vector<std::string> v;
    for (auto& e : catalog::entries()) v.push_back(e.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, CatalogEntry, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
