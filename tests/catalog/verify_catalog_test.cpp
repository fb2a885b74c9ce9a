// Every catalog entry's programs, at the small and medium sizes, pass the verifier:
// the table of rules accepts what the tracer produces for real kernels (the
// negative side is tests/unit/verifier_test.cpp). The large size is left out of the
// suite: its cases fill ~800 MB of input buffers and take a minute (it passed when
// run by hand with this test).
#include <gtest/gtest.h>

#include "catalog.h"
#include "check/verify.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

// The launch arguments of a case as tracing sees them: kinds, extents, strides
// and scalar values (tracing never reads the buffers).
std::vector<detail::Arg> trace_args(const catalog::Case& c) {
    std::vector<detail::Arg> args;
    for (std::size_t k = 0; k < c.args.size(); ++k) {
        detail::Arg a;
        a.kind = c.args[k]->kind;
        a.is_view = !c.args[k]->extents.empty();
        if (a.is_view) {
            a.extents = c.args[k]->extents;
            a.strides = detail::row_major_strides(a.extents);
        } else if (is_float(a.kind)) {
            a.f = c.scalars.at(k);
        } else {
            a.i = static_cast<std::int64_t>(c.scalars.at(k));
        }
        args.push_back(std::move(a));
    }
    return args;
}

}  // namespace

class VerifyCatalog : public ::testing::TestWithParam<std::string> {};

TEST_P(VerifyCatalog, EveryProgramVerifies) {
    const catalog::Entry* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    for (catalog::Size size : {catalog::Size::small, catalog::Size::medium}) {
        for (const catalog::Case& c : e->cases(size, 1)) {
            std::shared_ptr<const ir::Program> p;
            ASSERT_NO_THROW(p = detail::specialize(*c.kernel.shared_impl(), trace_args(c), {})) << c.shape;
            EXPECT_NO_THROW(check::verify(*p)) << e->name << " " << c.shape;
        }
    }
}

static std::vector<std::string> names() {
    std::vector<std::string> v;
    for (auto& e : catalog::entries()) v.push_back(e.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, VerifyCatalog, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
