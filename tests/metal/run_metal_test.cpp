// Seed 000's Metal handler (run_metal): its two programs print what the seed
// prints through the metal target (the shim here), the matrix-unit kernel takes
// the simdgroup lowering, and what is outside the contract is an error that
// says so, never a host fallback.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

#include "targets/metal/emit_msl.h"
#include "trace/closure_trace.h"

using namespace kiln;

namespace {

// The seed's kernels, templates over the instance id so that run_metal can trace them.
template <class Pid> void double_kernel(const Pid& pid, std::vector<i64>& v) {
    auto t = load_or(v, pid * 4, 1, 4, 0);
    store_clipped(v, pid * 4, scale(t, 2));
}

template <class Pid> void block_kernel(const Pid& pid, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c) {
    auto ti = pid / 2, tj = pid % 2;
    auto r = to_f32(filled(8, 8, 0));
    for (std::int64_t k = 0; k < 2; ++k) {
        auto ta = to_f32(load_rows(a, (ti * 8) * 16 + k * 8, 16, 8, 8, 0.0));
        auto tb = to_f32(load_rows(b, (k * 8) * 16 + tj * 8, 16, 8, 8, 0.0));
        r = add(r, dot(ta, tb));
    }
    store_rows(c, (ti * 8) * 16 + tj * 8, 16, r);
}

void skip_without_engine() {
    if (!metal().available()) GTEST_SKIP() << metal().unavailable_reason();
}

}  // namespace

TEST(RunMetal, TheSeedsDoubleKernelThroughAHandler) {
    skip_without_engine();
    std::vector<i64> v;
    for (int i = 0; i < 10; ++i) v.push_back(i + 1);
    {
        auto h = handle_launch([](LaunchRequest& req, const Next&) { run_metal(req.instances, req.closure); });
        launch(3, [&](auto pid) { double_kernel(pid, v); });
    }
    EXPECT_EQ(v[9], 20);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(v[static_cast<std::size_t>(i)], 2 * (i + 1)) << i;
}

TEST(RunMetal, TheSeedsBlockMatmulOnSimdgroupMatrices) {
    skip_without_engine();
    std::vector<double> a, b, c;
    for (int i = 0; i < 256; ++i) {
        a.push_back(1.0);
        b.push_back(i % 17 == 0 ? 2.0 : 0.0);
        c.push_back(0.0);
    }
    run_metal(4, [&](auto pid) { block_kernel(pid, a, b, c); });
    EXPECT_EQ(repr(c[0]), "2.0");
    EXPECT_EQ(repr(c[255]), "2.0");
    // Every element against the f64 product (exact here: small integers).
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            double s = 0;
            for (int k = 0; k < 16; ++k) s += a[static_cast<std::size_t>(i * 16 + k)] * b[static_cast<std::size_t>(k * 16 + j)];
            EXPECT_EQ(c[static_cast<std::size_t>(i * 16 + j)], s) << i << ", " << j;
        }
    // The 8x8 dots take the matrix units.
    const auto traced = detail::trace_closure(4, [&](const Scalar<i64>& pid) { block_kernel(pid, a, b, c); }, Loc::here());
    const mtl::Emitted e = mtl::emit_msl(*traced.program, {});
    EXPECT_TRUE(e.simdgroup) << e.lowering;
    EXPECT_NE(e.source.find("simdgroup_multiply_accumulate"), std::string::npos);
    EXPECT_NE(e.source.find("simdgroup_float8x8"), std::string::npos);
    // The knob and exact precision keep one instance per thread, with no matrix units.
    const mtl::Emitted thread = mtl::emit_msl(*traced.program, {.thread_only = true});
    EXPECT_FALSE(thread.simdgroup);
    EXPECT_EQ(thread.source.find("simdgroup_multiply_accumulate"), std::string::npos);
    EXPECT_NE(thread.lowering.find("KILN_METAL_LOWERING=thread"), std::string::npos) << thread.lowering;
    EXPECT_FALSE(mtl::emit_msl(*traced.program, {.exact = true}).simdgroup);
}

TEST(RunMetal, AStrictLoadIsAnErrorNamingTheMaskedForm) {
    std::vector<i64> v(8, 1);
    try {
        run_metal(2, [&](auto pid) { (void)load(v, pid * 4, 1, 4); });
        FAIL() << "a strict load must be refused";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("load_or"), std::string::npos) << m;
        EXPECT_NE(m.find("run_metal_test.cpp"), std::string::npos) << m;
    }
    EXPECT_EQ(v, std::vector<i64>(8, 1));
}

TEST(RunMetal, AClosureOverAPlainIntegerIsRefusedNotRunOnTheHost) {
    std::vector<i64> v(8, 1);
    try {
        run_metal(2, [&](std::int64_t pid) { store(v, pid * 4, filled(1, 4, std::int64_t{7})); });
        FAIL() << "a closure over std::int64_t must be refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not the canonical launch idiom"), std::string::npos) << e.what();
    }
    EXPECT_EQ(v, std::vector<i64>(8, 1));  // never a host fallback
}
