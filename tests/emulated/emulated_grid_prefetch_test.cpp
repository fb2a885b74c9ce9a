// The grid prefetch (passes/grid_prefetch.h) on the emulated cuda target: a
// persistent grid of three CTAs, each running several instances in turn with the
// rows its previous instance loaded ahead and the vectors it loaded once. Bit for
// bit against the interpreter in exact precision, at row counts that do not divide
// among the CTAs, ragged widths, and several instances per CTA; which loads go
// ahead and why the others do not, in the pass's output.
#include <gtest/gtest.h>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "examples/row_kernels.h"
#include "kiln/detail/identical.h"
#include "passes/lower.h"
#include "targets/common/target_impl.h"
#include "tests/unit/cpu_diff.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;
namespace rows = kiln::catalog::rows;

namespace {

std::vector<detail::Arg> args_of(const std::vector<Buffer>& bufs) {
    std::vector<detail::Arg> a;
    for (const auto& b : bufs) a.push_back(b.arg);
    return a;
}

// The program after the grid_prefetch pass, as `kiln ir --after grid_prefetch` prints it.
std::string prefetch_ir(const Kernel& k, const std::vector<Buffer>& bufs, bool aligned_slots = false) {
    auto program = detail::specialize(*k.shared_impl(), args_of(bufs), Loc::here());
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    o.aligned_slots = aligned_slots;
    return passes::print(passes::lower(*program, o, "grid_prefetch"));
}

std::string plan_of(const Kernel& k, const std::vector<Buffer>& bufs) {
    auto program = detail::specialize(*k.shared_impl(), args_of(bufs), Loc::here());
    return emulated::cuda_emulated().impl().plan(*program, args_of(bufs), {.precision = Precision::exact});
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// y[r] = x[index[r]] * 2: the row to read comes from another load.
Kernel gather_rows() {
    return kernel("gather_rows", [](View<const f32, 2> x, View<const i64, 1> index, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", y.extent<0>())))) {
            auto one = axis("one", 1);
            auto which = sum(index[coord(nest.index()), shape(one)]);
            y(coord(nest.index(), 0), shape(r, c)).store(x[coord(which, 0), shape(r, c)] * 2.0f);
        }
    });
}

// y[r] = x[r] * w[1]: the weight is the second row of a two-row matrix, a vector
// the same for every instance whose start is not 16-byte aligned (1283 bf16
// columns: byte offset 2566).
Kernel scale_by_second_row() {
    return kernel("scale_by_second_row", [](View<const bf16, 2> x, View<const bf16, 2> w, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", y.extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto weight = cast<f32>(w[coord(1, 0), shape(r, c)]);
            y(origin, shape(r, c)).store(cast<bf16>(cast<f32>(x[origin, shape(r, c)]) * weight));
        }
    });
}

}  // namespace

TEST(EmulatedGridPrefetch, WeightedRmsNormAheadAndOnce) {
    // 7 rows on 3 CTAs: two CTAs run three instances, one runs one; 1000 columns: a ragged last run.
    for (std::int64_t cols : {1000, 4096}) {
        SCOPED_TRACE(cols);
        std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {7, cols}, 11), cpu_diff::input(Kind::BF16, {cols}, 12),
                                    cpu_diff::output(Kind::BF16, {7, cols})};
        auto k = rows::rmsnorm_weighted<bf16>();
        expect_interp_bytes(k, bufs);
        std::string ir = prefetch_ir(k, bufs);
        EXPECT_TRUE(contains(ir, "grid prefetch: 1 of 2 loads one instance ahead, 1 loaded once for every instance")) << ir;
        std::string plan = plan_of(k, bufs);
        EXPECT_TRUE(contains(plan, "issued one instance ahead")) << plan;
        EXPECT_TRUE(contains(plan, "loaded once, before the first instance")) << plan;
    }
}

TEST(EmulatedGridPrefetch, SeveralInstancesPerCta) {
    // 128-column rows: several instances side by side in a CTA, each with its own next one.
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {37, 128}, 21), cpu_diff::output(Kind::BF16, {37, 128})};
    auto k = rows::softmax<bf16>();
    expect_interp_bytes(k, bufs);
    EXPECT_TRUE(contains(plan_of(k, bufs), "issued one instance ahead"));
}

TEST(EmulatedGridPrefetch, TwoRowsAheadAndAStore) {
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {23, 2 * 600}, 31), cpu_diff::output(Kind::BF16, {23, 600})};
    expect_interp_bytes(rows::swiglu<bf16>(), bufs);
    std::string ir = prefetch_ir(rows::swiglu<bf16>(), bufs);
    EXPECT_TRUE(contains(ir, "grid prefetch: 2 of 2 loads one instance ahead")) << ir;
}

TEST(EmulatedGridPrefetch, ALoadWhoseOriginIsLoadedGoesInItsTurn) {
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::F32, {9, 256}, 41), cpu_diff::input(Kind::I64, {8}, 42, 0, 9),
                                cpu_diff::output(Kind::F32, {8, 256})};
    auto k = gather_rows();
    expect_interp_bytes(k, bufs);
    std::string ir = prefetch_ir(k, bufs);
    EXPECT_TRUE(contains(ir, "not issued ahead: its origin depends on another load")) << ir;
}

// A vector loaded once for every instance, misaligned: its runs are completed in
// place by shuffles (emit_shifted_runs.h) when the first instance uses them, and
// the CTA's later instances must find them complete, not shift them again (the
// fuzz program 7000248 found the second shift: a scrambled row from the CTA's
// second instance on).
TEST(EmulatedGridPrefetch, AMisalignedVectorLoadedOnceIsShiftedOnce) {
    std::vector<Buffer> bufs = {cpu_diff::input(Kind::BF16, {7, 1283}, 71), cpu_diff::input(Kind::BF16, {2, 1283}, 72),
                                cpu_diff::output(Kind::BF16, {7, 1283})};
    auto k = scale_by_second_row();
    expect_interp_bytes(k, bufs);
    std::string plan = plan_of(k, bufs);
    // Aligned slots (ctest: kiln_emulated_tests_aligned_slots) place the vector's columns
    // where each instance's row starts: it is loaded with each instance instead.
    if (contains(plan, "slots aligned to the 16-byte boundaries")) {
        const std::string ir = prefetch_ir(k, bufs, true);
        // (The rows' load sets the alignment, the vector's the same for every instance does not.)
        EXPECT_TRUE(contains(ir, "grid prefetch: 1 of 2 loads one instance ahead, 0 loaded once")) << ir;
        EXPECT_TRUE(contains(ir, "not issued ahead: its slots follow each instance's row alignment")) << ir;
        return;
    }
    EXPECT_TRUE(contains(plan, "loaded once, before the first instance")) << plan;
    // (By default 16-bit rows are dealt an element a thread instead; ctest's
    // kiln_emulated_tests_shifted_runs runs this with them shifted.)
    const bool dealt = contains(plan, "global load of elements dealt one a thread in turn");
    EXPECT_TRUE(dealt != contains(plan, "misaligned rows as aligned vectors shifted between lanes")) << plan;
}
