// Aligned slots (passes/cuda_layout.h, EmitOptions::aligned_slots): an instance's
// row of misaligned f16/bf16 elements held from the 16-byte boundary before its
// first column (kiln_shift), so that its runs move as aligned vectors. On the
// emulated cuda target, bit for bit against the interpreter in exact precision and
// within the catalog's bounds in standard precision: bf16 rows of 5123 columns,
// whose starts take every one of the 8 shifts; vectors (weights, biases) that start
// where the rows do not; padded strides whose bytes between rows keep their fill;
// narrow rows packed several instances a CTA; and the plan that says whether and why
// not. ctest's kiln_emulated_tests_aligned_slots runs these with KILN_CUDA_ALIGNED_SLOTS=1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "catalog.h"
#include "cuda_emulator.h"
#include "examples/row_kernels.h"
#include "interp_bytes.h"
#include "row_test_kernels.h"
#include "targets/common/target_impl.h"
#include "tests/unit/cpu_diff.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::add_one_rows;
using emulated::expect_interp_bytes;
namespace rows = kiln::catalog::rows;

namespace {

#define REQUIRE_ALIGNED_SLOTS()                                                          \
    if (const char* v = std::getenv("KILN_CUDA_ALIGNED_SLOTS"); !v || std::string(v) != "1") \
    GTEST_SKIP() << "KILN_CUDA_ALIGNED_SLOTS=1 runs this (ctest: kiln_emulated_tests_aligned_slots)"

std::string plan_of(const Kernel& k, const std::vector<Buffer>& bufs, Precision precision = Precision::exact) {
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    return emulated::cuda_emulated().impl().plan(*program, args, {.precision = precision});
}

std::string source_of(const Kernel& k, const std::vector<Buffer>& bufs, Precision precision = Precision::exact) {
    std::vector<detail::Arg> args;
    for (const auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    return emulated::cuda_emulated().impl().source(*program, args, {.precision = precision}, false);
}

constexpr const char* kAligned = "slots aligned to the 16-byte boundaries of each instance's row";

// Exact: identical to the interpreter; standard: the generated code is the shifted
// one too (its values are checked against the bounds by the catalog test below).
void expect_aligned(const Kernel& k, const std::vector<Buffer>& bufs) {
    expect_interp_bytes(k, bufs);
    for (Precision p : {Precision::exact, Precision::standard}) {
        const std::string plan = plan_of(k, bufs, p);
        EXPECT_NE(plan.find(kAligned), std::string::npos) << k.name() << "\n" << plan;
        EXPECT_NE(source_of(k, bufs, p).find("kiln_shift"), std::string::npos) << k.name();
    }
}

}  // namespace

TEST(EmulatedAlignedSlots, SevenBf16RowKernelsOver5123Columns) {
    REQUIRE_ALIGNED_SLOTS();
    // 9 rows of 10246 bytes: row starts at byte offsets 0, 6, 12, 2, 8, 14, 4, 10, 0
    // (kiln_shift 0, 3, 6, 1, 4, 7, 2, 5, 0); the vectors start on a boundary.
    const std::vector<std::int64_t> x = {9, 5123};
    expect_aligned(rows::softmax<bf16>(), {cpu_diff::input(Kind::BF16, x, 51), cpu_diff::output(Kind::BF16, x)});
    expect_aligned(rows::log_softmax<bf16>(), {cpu_diff::input(Kind::BF16, x, 52), cpu_diff::output(Kind::BF16, x)});
    expect_aligned(rows::layernorm_affine<bf16>(), {cpu_diff::input(Kind::BF16, x, 53), cpu_diff::input(Kind::BF16, {5123}, 54),
                                                    cpu_diff::input(Kind::BF16, {5123}, 55), cpu_diff::output(Kind::BF16, x)});
    expect_aligned(rows::rmsnorm_weighted<bf16>(),
                   {cpu_diff::input(Kind::BF16, x, 56), cpu_diff::input(Kind::BF16, {5123}, 57), cpu_diff::output(Kind::BF16, x)});
    expect_aligned(rows::residual_layernorm<bf16>(),
                   {cpu_diff::input(Kind::BF16, x, 58), cpu_diff::input(Kind::BF16, x, 59), cpu_diff::input(Kind::BF16, {5123}, 60),
                    cpu_diff::input(Kind::BF16, {5123}, 61), cpu_diff::output(Kind::BF16, x), cpu_diff::output(Kind::BF16, x)});
    // SwiGLU's halves: the second starts 10246 bytes after the first, its own shift.
    expect_aligned(rows::swiglu<bf16>(), {cpu_diff::input(Kind::BF16, {9, 2 * 5123}, 62), cpu_diff::output(Kind::BF16, x)});
    Buffer labels = cpu_diff::input(Kind::I64, {9}, 63, 0, 5122);
    expect_aligned(rows::cross_entropy<bf16>(),
                   {cpu_diff::input(Kind::BF16, x, 64), labels, cpu_diff::output(Kind::F32, {9}), cpu_diff::output(Kind::BF16, x)});
}

TEST(EmulatedAlignedSlots, F16RowsAndNarrowRowsSharingACta) {
    REQUIRE_ALIGNED_SLOTS();
    // 1283 f16 columns: rows at byte offsets 0, 6, 12, 2, 8.
    expect_aligned(rows::layernorm_affine<f16>(), {cpu_diff::input(Kind::F16, {5, 1283}, 71), cpu_diff::input(Kind::F16, {1283}, 72),
                                                   cpu_diff::input(Kind::F16, {1283}, 73), cpu_diff::output(Kind::F16, {5, 1283})});
    // 100 and 37 columns: several instances a CTA, each its own shift.
    expect_aligned(rows::rmsnorm_weighted<bf16>(),
                   {cpu_diff::input(Kind::BF16, {37, 100}, 74), cpu_diff::input(Kind::BF16, {100}, 75), cpu_diff::output(Kind::BF16, {37, 100})});
    expect_aligned(rows::softmax<bf16>(), {cpu_diff::input(Kind::BF16, {23, 37}, 76), cpu_diff::output(Kind::BF16, {23, 37})});
}

TEST(EmulatedAlignedSlots, WidthsAroundTheRunsAndThreadsOfALayout) {
    REQUIRE_ALIGNED_SLOTS();
    // Odd widths (every row start at another shift) on either side of a run of 8, a
    // warp's and a CTA's row of runs: the layouts' extra run for the shift, narrow rows
    // packed several instances a CTA, rows over 512 and 1024 threads.
    for (std::int64_t c : {9, 63, 65, 257, 1023, 2049, 4097, 8191}) {
        SCOPED_TRACE("columns " + std::to_string(c));
        const std::vector<std::int64_t> x = {7, c};
        expect_aligned(rows::softmax<bf16>(), {cpu_diff::input(Kind::BF16, x, 101), cpu_diff::output(Kind::BF16, x)});
        expect_aligned(rows::layernorm_affine<f16>(), {cpu_diff::input(Kind::F16, x, 102), cpu_diff::input(Kind::F16, {c}, 103),
                                                       cpu_diff::input(Kind::F16, {c}, 104), cpu_diff::output(Kind::F16, x)});
    }
}

TEST(EmulatedAlignedSlots, PaddedStridesKeepTheBytesBetweenRows) {
    REQUIRE_ALIGNED_SLOTS();
    // Rows of 4096 bf16 elements 4099 apart: every row but the first is misaligned, and
    // the three elements after each row belong to no one (their fill must stay), nor do
    // those before a row's first column that its first aligned run covers.
    const Buffer x = cpu_diff::input(Kind::BF16, {6, 4096}, 91, -4, 4, false, {4099, 1});
    const Buffer y = emulated::output_like(x);
    expect_aligned(add_one_rows<bf16>(), {x, y});
    expect_aligned(rows::rmsnorm_weighted<bf16>(), {x, cpu_diff::input(Kind::BF16, {4096}, 92), y});
}

TEST(EmulatedAlignedSlots, TheRowKernelsStandardCasesWithinTheirBounds) {
    REQUIRE_ALIGNED_SLOTS();
    // The catalog's medium cases: 1000, 4000 and 5123 columns, f64 references.
    for (const char* name : {"layernorm_affine", "rmsnorm_weighted", "log_softmax", "cross_entropy", "residual_layernorm_bf16", "swiglu"}) {
        const auto* e = catalog::find(name);
        ASSERT_NE(e, nullptr) << name;
        for (auto& c : e->cases(catalog::Size::medium, 20261206)) {
            auto r = catalog::run_case(c, emulated::cuda_emulated(), {.precision = Precision::standard});
            EXPECT_TRUE(r.ok) << name << " " << c.shape << ": " << r.detail << " (error/bound " << r.worst << ")";
        }
    }
}

TEST(EmulatedAlignedSlots, AlignedLaunchesAndRowsOfOtherKindsAreNotShifted) {
    REQUIRE_ALIGNED_SLOTS();
    // Every row on a boundary: the launch asks for nothing.
    std::vector<Buffer> aligned = {cpu_diff::input(Kind::BF16, {3, 5120}, 81), cpu_diff::output(Kind::BF16, {3, 5120})};
    expect_interp_bytes(rows::softmax<bf16>(), aligned);
    EXPECT_EQ(source_of(rows::softmax<bf16>(), aligned).find("kiln_shift"), std::string::npos);
    // f32 rows (4-byte elements) move in narrower vectors instead.
    std::vector<Buffer> wide = {cpu_diff::input(Kind::F32, {9, 5123}, 82), cpu_diff::output(Kind::F32, {9, 5123})};
    expect_interp_bytes(rows::softmax<f32>(), wide);
    EXPECT_EQ(source_of(rows::softmax<f32>(), wide).find("kiln_shift"), std::string::npos);
}

TEST(EmulatedAlignedSlots, APlanSaysWhyTheSlotsAreNotAligned) {
    REQUIRE_ALIGNED_SLOTS();
    // Rows of 3 columns, narrower than their run of 4 (a shift of 3 would put a slot a
    // whole row before column 0): dealt as without the option.
    std::vector<Buffer> narrow = {cpu_diff::input(Kind::BF16, {7, 3}, 84), cpu_diff::output(Kind::BF16, {7, 3})};
    expect_interp_bytes(rows::softmax<bf16>(), narrow);
    const std::string why = plan_of(rows::softmax<bf16>(), narrow);
    EXPECT_NE(why.find("slots not aligned to the rows' 16-byte boundaries: its rows are narrower than a run"), std::string::npos) << why;
    // The column sum's tiles hold many rows: each its own alignment, no one shift.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {200, 5123}, 83), cpu_diff::output(Kind::F32, {5123})};
    expect_interp_bytes(rows::column_sum<bf16>(), bufs);
    const std::string plan = plan_of(rows::column_sum<bf16>(), bufs);
    EXPECT_NE(plan.find("slots not aligned to the rows' 16-byte boundaries: "), std::string::npos) << plan;
    EXPECT_EQ(source_of(rows::column_sum<bf16>(), bufs).find("kiln_shift"), std::string::npos);
}
