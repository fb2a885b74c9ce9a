// Every catalog entry on the cuda target. Without a device: each case's kernel is
// emitted and compiled by NVRTC for sm_90a in both precision modes. With one: the
// outputs equal the interpreter's bit for bit in exact mode, and match the f64
// reference within the entry's error bound in standard mode. Small sizes unless
// $KILN_CUDA_TEST_SIZE says medium or large.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "kiln/detail/identical.h"
#include "catalog.h"
#include "targets/cuda/nvrtc.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

// Host launch arguments for a case (compiling needs only kinds, extents, strides).
std::vector<detail::Arg> host_args(const catalog::Case& c) {
    std::vector<detail::Arg> args;
    for (std::size_t k = 0; k < c.args.size(); ++k) {
        const catalog::Buffer& b = *c.args[k];
        detail::Arg a;
        a.kind = b.kind;
        if (b.extents.empty()) {
            a.is_view = false;
            if (is_float(b.kind)) a.f = c.scalars.at(k);
            else a.i = static_cast<std::int64_t>(c.scalars.at(k));
        } else {
            a.extents = b.extents;
            a.strides = detail::row_major_strides(b.extents);
            a.read_only = !b.output;
            a.data = const_cast<std::byte*>(b.bytes.data());
        }
        args.push_back(a);
    }
    return args;
}

// Identical outputs (kiln/detail/identical.h); otherwise `where` names the first difference.
bool same_bits(const catalog::Buffer& a, const catalog::Buffer& b, std::string& where) {
    const long long i = detail::first_non_identical(a.kind, a.bytes.data(), b.bytes.data(), a.bytes.size());
    if (i < 0) return true;
    where = "element " + std::to_string(i) + ": cuda " + std::to_string(a.get(i)) + ", interp " + std::to_string(b.get(i));
    return false;
}

// The size to run: small, or $KILN_CUDA_TEST_SIZE (medium, large) for longer device runs.
catalog::Size test_size() {
    const char* s = std::getenv("KILN_CUDA_TEST_SIZE");
    std::string v = s ? s : "";
    return v == "medium" ? catalog::Size::medium : v == "large" ? catalog::Size::large : catalog::Size::small;
}

}  // namespace

class CudaCatalogEntry : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaCatalogEntry, CompilesForSm90aInBothModes) {
    std::string why;
    if (cu::nvrtc_version(&why).empty()) GTEST_SKIP() << why;
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    for (auto& c : e->cases(test_size(), 20261130)) {
        auto args = host_args(c);
        auto program = detail::specialize(*c.kernel.shared_impl(), args, Loc::here());
        for (Precision p : {Precision::exact, Precision::standard}) {
            std::string ptx;
            try {
                ptx = cuda().impl().source(*program, args, {.precision = p}, true);
            } catch (const std::exception& x) {
                ADD_FAILURE() << e->name << " " << c.shape << (p == Precision::exact ? " exact: " : " standard: ") << x.what();
                continue;
            }
            EXPECT_NE(ptx.find(".entry kiln_"), std::string::npos) << e->name << " " << c.shape;
            EXPECT_NE(ptx.find(".target sm_90a"), std::string::npos) << e->name << " " << c.shape;
        }
    }
}

TEST_P(CudaCatalogEntry, MatchesInterpreterOnDevice) {
    if (!cuda().available()) GTEST_SKIP() << "no CUDA device: " << cuda().unavailable_reason();
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    for (auto& c : e->cases(test_size(), 20261130)) {
        auto want = catalog::run_outputs(c, interp(), {});
        auto got = catalog::run_outputs(c, cuda(), {.precision = Precision::exact});
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t o = 0; o < got.size(); ++o) {
            std::string where;
            EXPECT_TRUE(same_bits(got[o], want[o], where)) << e->name << " " << c.shape << " exact, output " << o << ": " << where;
        }
        auto r = catalog::run_case(c, cuda(), {.precision = Precision::standard});
        EXPECT_TRUE(r.ok) << e->name << " " << c.shape << " standard: " << r.detail << " (error/bound " << r.worst << ")";
    }
}

static std::vector<std::string> names() {
    std::vector<std::string> v;
    for (auto& e : catalog::entries()) v.push_back(e.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, CudaCatalogEntry, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
