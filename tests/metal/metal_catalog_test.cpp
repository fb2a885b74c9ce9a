// Every catalog entry at the small size on the metal target, which here runs
// the generated MSL through kiln's C++ shim: in exact precision (the per-thread
// lowering) each case's outputs are byte-identical to the interpreter's; in
// standard precision (the simdgroup lowering where an mma allows it) they match
// the entry's f64 reference within its error bound and, since the shim computes
// each 8x8 block in the interpreter's order, the interpreter's bytes too.
// The lowering is checked against the emitted MSL, and every mma that does not
// take the matrix units says why in `kiln plan`.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "catalog.h"
#include "ir/ir.h"
#include "kiln/detail/identical.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"
#include "targets/metal/emit_msl.h"

using namespace kiln;

namespace {

std::string first_difference(const catalog::Buffer& want, const catalog::Buffer& got) {
    if (want.bytes.size() != got.bytes.size()) return "sizes differ";
    const long long e = detail::first_non_identical(want.kind, want.bytes.data(), got.bytes.data(), want.bytes.size());
    if (e < 0) return "";
    return "element " + std::to_string(e) + ": interp " + std::to_string(want.get(e)) + ", metal " + std::to_string(got.get(e));
}

// Host views over the case's buffers (as tools/case_args.cpp makes them).
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
        args.push_back(std::move(a));
    }
    return args;
}

class MetalCatalog : public ::testing::TestWithParam<std::string> {};

TEST_P(MetalCatalog, BitExactWithInterpreterThroughTheShim) {
    if (!metal().available()) GTEST_SKIP() << metal().unavailable_reason();
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    for (auto& c : e->cases(catalog::Size::small, 20261201)) {
        auto want = catalog::run_outputs(c, interp(), {});
        for (Precision p : {Precision::exact, Precision::standard}) {
            const char* mode = p == Precision::exact ? "exact" : "standard";
            auto got = catalog::run_outputs(c, metal(), {.precision = p});
            ASSERT_EQ(want.size(), got.size());
            for (std::size_t o = 0; o < want.size(); ++o)
                EXPECT_EQ(first_difference(want[o], got[o]), "") << e->name << " " << c.shape << " " << mode << ", output " << o;
        }
        auto r = catalog::run_case(c, metal(), {.precision = Precision::standard});
        EXPECT_TRUE(r.ok) << e->name << " " << c.shape << " standard: " << r.detail << " (error/bound " << r.worst << ")";
    }
}

TEST_P(MetalCatalog, LoweringIsInTheMslAndThePlanSaysWhy) {
    const auto* e = catalog::find(GetParam());
    ASSERT_NE(e, nullptr);
    auto cases = e->cases(catalog::Size::small, 1);
    catalog::Case& c = cases.front();
    const auto args = host_args(c);
    auto program = detail::specialize(*c.kernel.shared_impl(), args, Loc::here());
    bool has_mma = false;
    ir::walk(program->body, [&](const ir::Node& n) { has_mma = has_mma || n.op == detail::OpCode::mma; });
    for (Precision p : {Precision::exact, Precision::standard}) {
        const mtl::Emitted m = mtl::emit_msl(*program, {.exact = p == Precision::exact});
        const bool matrix_units = m.source.find("simdgroup_multiply_accumulate(") != std::string::npos;
        EXPECT_EQ(m.simdgroup, matrix_units) << m.lowering;
        if (p == Precision::exact) EXPECT_FALSE(m.simdgroup) << "exact precision keeps the per-thread lowering";
        const std::string plan = metal().impl().plan(*program, args, {.precision = p});
        EXPECT_NE(plan.find(m.lowering), std::string::npos) << plan;
        if (!m.simdgroup) EXPECT_NE(m.lowering.find("not simdgroup: "), std::string::npos) << m.lowering;
        if (has_mma) EXPECT_NE(plan.find("contractions:"), std::string::npos) << plan;
    }
}

std::vector<std::string> entry_names() {
    std::vector<std::string> v;
    for (auto& e : catalog::entries()) v.push_back(e.name);
    return v;
}

INSTANTIATE_TEST_SUITE_P(Catalog, MetalCatalog, ::testing::ValuesIn(entry_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// The 8x8 products of the catalog take the matrix units in standard precision.
TEST(MetalLowering, TheCatalogsEightByEightProductsTakeSimdgroupMatrices) {
    for (const char* name : {"gemm", "gemm_f16", "block_matmul", "attention", "causal_attention"}) {
        auto cases = catalog::find(name)->cases(catalog::Size::small, 1);
        const auto args = host_args(cases.front());
        auto program = detail::specialize(*cases.front().kernel.shared_impl(), args, Loc::here());
        const mtl::Emitted m = mtl::emit_msl(*program, {});
        EXPECT_TRUE(m.simdgroup) << name << ": " << m.lowering;
        EXPECT_NE(m.source.find("simdgroup_float8x8"), std::string::npos) << name;
        // causal_attention's q k^T takes k as [n, k], loaded transposed.
        if (std::string(name) == "causal_attention") EXPECT_NE(m.source.find("ulong2(0, 0), true);"), std::string::npos);
    }
}

}  // namespace
