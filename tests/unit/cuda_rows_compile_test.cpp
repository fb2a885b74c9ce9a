// Row kernels on the cuda target, compiled offline by NVRTC for sm_90a: the layouts
// the cuda_layout pass chooses (passes/cuda_layout.h) and what they buy in the PTX.
// A weight vector broadcast over the row lives in registers as the columns of each
// thread's runs, loaded with 16-byte vectors; ragged widths keep their runs; narrow
// rows run several instances per CTA with no barrier; column sums and row
// statistics stay in registers. Whether the kernels compute the right values is
// checked on the emulated target (tests/emulated) and on the device.
#include <gtest/gtest.h>
#include <algorithm>

#include "cuda_test_util.h"
#include "examples/row_kernels.h"
#include "passes/lower.h"
#include "targets/cuda/nvrtc.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using namespace kiln::cuda_test;
namespace rows = kiln::catalog::rows;

namespace {


// The plan line describing the value made by `op` (the n-th one).
std::string value_line(const std::string& plan, const std::string& op, int nth = 0) {
    std::size_t at = 0;
    for (int i = 0; i <= nth; ++i) {
        at = plan.find("= " + op + " ", i == 0 ? 0 : at + 1);
        if (at == std::string::npos) return "";
    }
    return plan.substr(at, plan.find('\n', at) - at);
}

long long number_after(const std::string& text, const std::string& key) {
    std::size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size()));
}

bool has_128bit_load(const std::string& ptx) { return contains(ptx, "ld.global.v4.") || contains(ptx, "ld.global.nc.v4."); }
bool no_spills(const std::string& plan) { return contains(plan, "stack 0 bytes; spills 0 bytes stored, 0 bytes loaded"); }

// Device-free arguments: host tensors kept alive for the duration of the test.
struct RowArgs {
    std::vector<std::shared_ptr<void>> keep;
    std::vector<detail::Arg> args;
    template <Element T> void in(std::vector<std::int64_t> e) {
        auto t = std::make_shared<Tensor<T>>(e);
        keep.push_back(t);
        args.push_back(detail::to_arg(std::as_const(*t).view()));
    }
    template <Element T> void out(std::vector<std::int64_t> e) {
        auto t = std::make_shared<Tensor<T>>(e);
        keep.push_back(t);
        args.push_back(detail::to_arg(t->view()));
    }
    // r rows of c elements, `pitch` elements apart (a padded matrix's first c columns).
    template <class T> void rows(std::int64_t r, std::int64_t c, std::int64_t pitch) {
        auto t = std::make_shared<std::vector<std::remove_const_t<T>>>(static_cast<std::size_t>((r - 1) * pitch + c));
        keep.push_back(t);
        args.push_back(detail::to_arg(HostView<T>{t->data(), {r, c}, {pitch, 1}}));
    }
};

RowArgs rmsnorm_args(std::int64_t r, std::int64_t c) {
    RowArgs a;
    a.in<bf16>({r, c});
    a.in<bf16>({c});
    a.out<bf16>({r, c});
    return a;
}

RowArgs layernorm_args(std::int64_t r, std::int64_t c) {
    RowArgs a;
    a.in<bf16>({r, c});
    a.in<bf16>({c});
    a.in<bf16>({c});
    a.out<bf16>({r, c});
    return a;
}

RowArgs softmax_args(std::int64_t r, std::int64_t c) {
    RowArgs a;
    a.in<bf16>({r, c});
    a.out<bf16>({r, c});
    return a;
}

// x, residual [r, c], weight, bias [c], h, y [r, c], all bf16.
RowArgs residual_layernorm_args(std::int64_t r, std::int64_t c) {
    RowArgs a;
    a.in<bf16>({r, c});
    a.in<bf16>({r, c});
    a.in<bf16>({c});
    a.in<bf16>({c});
    a.out<bf16>({r, c});
    a.out<bf16>({r, c});
    return a;
}

// bf16 logits [r, c], i64 labels [r], f32 loss [r], bf16 gradient [r, c].
RowArgs cross_entropy_args(std::int64_t r, std::int64_t c) {
    RowArgs a;
    a.in<bf16>({r, c});
    a.in<i64>({r});
    a.out<f32>({r});
    a.out<bf16>({r, c});
    return a;
}

// The program's text after cuda_layout (what `kiln ir NAME --target cuda --after cuda_layout` prints).
std::string layout_ir(const Kernel& k, const std::vector<detail::Arg>& args) {
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    return passes::print(passes::lower(*program, o, "cuda_layout"));
}

}  // namespace

TEST(CudaRows, WeightedRmsNormHoldsTheWeightInRegisters) {
    REQUIRE_NVRTC();
    auto a = rmsnorm_args(64, 8192);
    std::string plan = cuda_text(rows::rmsnorm_weighted<bf16>(), a.args, Precision::standard, What::plan);
    // The weight is loaded as the columns of each thread's runs, in 16-byte vectors, and
    // its broadcast over the row moves nothing.
    std::string weight = value_line(plan, "load", 1);
    EXPECT_TRUE(contains(weight, "the columns of each thread's runs")) << plan;
    EXPECT_TRUE(contains(weight, "global load in runs of 8 of the tile's columns (16-byte vectors")) << plan;
    EXPECT_TRUE(contains(value_line(plan, "broadcast"), "in registers, no data movement")) << plan;
    EXPECT_FALSE(contains(plan, "staged")) << plan;
    EXPECT_TRUE(contains(value_line(plan, "reduce_add"), "in registers")) << plan;
    // Shared memory holds the sum's partials per warp only, not a staged row.
    long long shared = number_after(plan, "shared memory: ");
    EXPECT_LE(shared, 2 * 32 * 4) << plan;
    EXPECT_TRUE(no_spills(plan)) << plan;
    std::string ptx = cuda_text(rows::rmsnorm_weighted<bf16>(), a.args, Precision::standard, What::ptx);
    EXPECT_TRUE(has_128bit_load(ptx));
    EXPECT_FALSE(contains(ptx, "ld.local")) << "register arrays must stay in registers";
    // One reduction over several warps: its exchange, and the barrier at the instance's start.
    EXPECT_LE(count(ptx, "bar.sync"), 2) << ptx.substr(0, 2000);
    // The pass's annotations say the same (kiln ir --after cuda_layout).
    std::string ir = layout_ir(rows::rmsnorm_weighted<bf16>(), a.args);
    EXPECT_TRUE(contains(ir, "broadcast in registers (the operand holds the result's projection)")) << ir;
}

TEST(CudaRows, NarrowRowsPackInstancesAndNeedNoBarrier) {
    REQUIRE_NVRTC();
    for (std::int64_t cols : {128, 1000}) {
        SCOPED_TRACE(cols);
        auto a = softmax_args(4096, cols);
        std::string plan = cuda_text(rows::softmax<bf16>(), a.args, Precision::standard, What::plan);
        EXPECT_TRUE(contains(plan, "program instances of [rows] each")) << plan;
        long long per_instance = number_after(plan, "each, ");
        EXPECT_GT(per_instance, 0) << plan;
        EXPECT_LE(per_instance, 32) << "one warp or fewer lanes per row\n" << plan;
        EXPECT_TRUE(contains(value_line(plan, "reduce_max"), "no shared memory")) << plan;
        EXPECT_TRUE(no_spills(plan)) << plan;
        std::string ptx = cuda_text(rows::softmax<bf16>(), a.args, Precision::standard, What::ptx);
        EXPECT_FALSE(contains(ptx, "bar.sync")) << "rows within a warp reduce with shuffles alone";
        EXPECT_TRUE(has_128bit_load(ptx));
    }
    // 128 bf16 columns: 16 runs of 8, a few lanes per row, lanes of other rows in the
    // same warp: shuffles name the instance's lanes only.
    std::string src = cuda_text(rows::softmax<bf16>(), softmax_args(4096, 128).args, Precision::standard, What::source);
    EXPECT_TRUE(contains(src, "__shfl_xor_sync(kiln_mask")) << src.substr(src.size() > 4000 ? src.size() - 4000 : 0);
}

TEST(CudaRows, RaggedWidthsKeepTheirVectorRuns) {
    REQUIRE_NVRTC();
    // 5123 columns of rows 5128 apart (16-byte aligned): 640 whole runs of 8 bf16 and a
    // partial one; 4000: no CTA-wide round of runs divides the row. Both reduce in
    // registers and keep 16-byte loads for the body.
    for (std::int64_t cols : {5123, 4000}) {
        SCOPED_TRACE(cols);
        RowArgs a = layernorm_args(64, cols);
        if (cols == 5123) {
            a = RowArgs{};
            a.rows<const bf16>(64, cols, 5128);
            a.in<bf16>({cols});
            a.in<bf16>({cols});
            a.rows<bf16>(64, cols, 5128);
        }
        std::string plan = cuda_text(rows::layernorm_affine<bf16>(), a.args, Precision::standard, What::plan);
        std::string load = value_line(plan, "load");
        EXPECT_TRUE(contains(load, "runs of 8 over ")) << plan;
        if (cols == 5123) EXPECT_TRUE(contains(load, "the last run of a row partial")) << plan;
        for (const char* op : {"reduce_add"}) EXPECT_TRUE(contains(value_line(plan, op), "in registers")) << plan;
        EXPECT_FALSE(contains(plan, "staged")) << plan;
        EXPECT_TRUE(no_spills(plan)) << plan;
        std::string ptx = cuda_text(rows::layernorm_affine<bf16>(), a.args, Precision::standard, What::ptx);
        EXPECT_TRUE(has_128bit_load(ptx));
        EXPECT_TRUE(contains(ptx, "ld.global.u16")) << "the partial run and misaligned rows go element by element";
    }
}

// bf16 rows that start off 16-byte boundaries (5123 columns, contiguous) are dealt one
// element a thread in turn from the start (EmitOptions::coalesced_elements 2, the
// default for 16-bit rows), not moved as shifted vectors; where the loads ahead of the
// instance then spill, each thread holds half its share to keep them.
TEST(CudaRows, MisalignedSixteenBitRowsAreDealtFromTheStart) {
    REQUIRE_NVRTC();
    auto a = layernorm_args(64, 5123);
    const cu::EmitOptions o = cu::emit_options(a.args, CompileOptions{.precision = Precision::standard});
    EXPECT_EQ(o.coalesced_elements, 2);
    EXPECT_FALSE(o.misaligned_rows) << "no shifted runs for 16-bit rows dealt from the start";
    const std::string plan = cuda_text(rows::layernorm_affine<bf16>(), a.args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(value_line(plan, "load"), "global load of elements dealt one a thread in turn")) << plan;
    EXPECT_FALSE(contains(plan, "shifted")) << plan;
    EXPECT_TRUE(contains(plan, "persistent:")) << "the row ahead is kept\n" << plan;
    if (contains(plan, "fitted to the registers by recompiling:"))
        EXPECT_TRUE(contains(plan, "keeping the loads ahead of their instance (")) << plan;
    EXPECT_TRUE(no_spills(plan)) << plan;
    // f32 rows 5123 apart keep their runs (moved in narrower vectors where misaligned),
    // and aligned bf16 rows are not dealt.
    RowArgs f;
    f.in<f32>({64, 5123});
    f.out<f32>({64, 5123});
    const cu::EmitOptions of = cu::emit_options(f.args, CompileOptions{.precision = Precision::standard});
    EXPECT_EQ(of.coalesced_elements, 0);
    EXPECT_TRUE(of.misaligned_rows);
    EXPECT_EQ(cu::emit_options(layernorm_args(64, 4000).args, CompileOptions{}).coalesced_elements, 0);
}

// The plan says which views' rows start off 16-byte boundaries, why, and the row
// pitch that would align them: the user's lever where the values' lines say the rows
// move element by element.
TEST(CudaRows, ThePlanNamesViewsWhoseRowsStartOff16ByteBoundaries) {
    RowArgs a = layernorm_args(64, 5123);  // x [64, 5123], weight [5123], bias [5123], y [64, 5123]
    const std::vector<detail::ParamSig> params = detail::specialize(*rows::layernorm_affine<bf16>().shared_impl(), a.args, Loc::here())->params;
    std::vector<std::string> notes = cu::misaligned_row_notes(a.args, params);
    ASSERT_EQ(notes.size(), 2u) << "x and y; the parameter vectors have no rows and start aligned";
    EXPECT_EQ(notes[0], "argument 0 (View<const bf16, 2>): its rows are 10246 bytes apart, not a multiple of 16 (a pitch of 5128 elements, "
                        "10256 bytes, would start every row on a 16-byte boundary)");
    EXPECT_EQ(notes[1].substr(0, 30), "argument 3 (View<bf16, 2>): it");
    EXPECT_TRUE(cu::misaligned_row_notes(layernorm_args(64, 4000).args, params).empty()) << "rows 8000 bytes apart";
    // A view of a matrix's columns 1..: aligned rows, a base 2 bytes (one bf16) past a boundary.
    RowArgs shifted;
    auto m = std::make_shared<std::vector<bf16>>(64 * 4096);
    shifted.keep.push_back(m);
    shifted.args.push_back(detail::to_arg(HostView<const bf16>{m->data() + 1, {64, 4000}, {4096, 1}}));
    notes = cu::misaligned_row_notes(shifted.args, {});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "argument 0: its data starts 2 bytes past a 16-byte boundary");
    // A 3-D view whose leading dimension's step is off: named by its dimension.
    RowArgs cube;
    auto c = std::make_shared<std::vector<float>>(4 * 1001 * 8);
    cube.keep.push_back(c);
    cube.args.push_back(detail::to_arg(HostView<const f32>{c->data(), {4, 8, 8}, {1001 * 2, 8, 1}}));
    notes = cu::misaligned_row_notes(cube.args, {});
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "argument 0: the steps of its dimension 0 are 8008 bytes apart, not a multiple of 16 (a step of 2004 elements, 8016 bytes, "
                        "would start every row on a 16-byte boundary)");
    // And the plan carries them.
    REQUIRE_NVRTC();
    const std::string plan = cuda_text(rows::layernorm_affine<bf16>(), a.args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "\n  rows off 16-byte boundaries: argument 0 (View<const bf16, 2>): its rows are 10246 bytes apart")) << plan;
    EXPECT_FALSE(contains(cuda_text(rows::layernorm_affine<bf16>(), layernorm_args(64, 4000).args, Precision::standard, What::plan), "rows off"));
}

// LowerOptions::max_run 1 (EmitOptions::coalesced_elements, for misaligned rows moved
// element by element): each thread holds single elements dealt in turn, so that slot
// j of thread t is element j T + t of the row and a warp's loads cover one span.
TEST(CudaRows, ALongestRunOfOneDealsElementsInTurn) {
    auto a = softmax_args(64, 5123);
    auto program = detail::specialize(*rows::softmax<bf16>().shared_impl(), a.args, Loc::here());
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    const passes::Lowered natural = passes::lower(*program, o, "cuda_layout");
    o.max_run = 1;
    const passes::Lowered dealt = passes::lower(*program, o, "cuda_layout");
    const ir::Node* load = nullptr;
    ir::walk(program->grid ? *program->grid->body : program->body, [&](const ir::Node& n) {
        if (!load && n.op == ir::OpCode::load) load = &n;
    });
    ASSERT_NE(load, nullptr);
    EXPECT_EQ(natural.layouts->of(load).vec, 8);
    const passes::CudaLayout l = dealt.layouts->of(load);
    ASSERT_EQ(l.vec, 1);
    // Runs of one: issued together, and loads ahead of their instance may take them.
    EXPECT_EQ(dealt.layouts->decision(load).how, passes::CudaLowering::vector_access);
    for (int t : {0, 1, 31, l.threads - 1})
        for (std::int64_t j : {std::int64_t{0}, std::int64_t{1}, l.slots() - 1}) {
            const auto e = l.element(t, j);
            const std::int64_t col = j * l.threads + t;
            if (col < 5123) EXPECT_EQ(e, col) << "thread " << t << " slot " << j;
            else EXPECT_FALSE(e.has_value()) << "thread " << t << " slot " << j;
        }
    EXPECT_TRUE(contains(passes::print(dealt), "cyclic over")) << passes::print(dealt);
}

// LowerOptions::aligned_slots (EmitOptions::aligned_slots, for misaligned f16/bf16 rows):
// every value of the softmax is one row, so each layout is shifted, with runs enough
// for the row's 5123 columns after any shift; for each shift the slots hold every
// column once, in runs that start kiln_shift columns before a multiple of 8 (the
// row's 16-byte boundaries); the rows' load sets the shift.
TEST(CudaRows, AlignedSlotsHoldEveryColumnOnceAtEveryShift) {
    auto a = softmax_args(64, 5123);
    auto program = detail::specialize(*rows::softmax<bf16>().shared_impl(), a.args, Loc::here());
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    o.aligned_slots = true;
    const passes::Lowered aligned = passes::lower(*program, o, "cuda_layout");
    const ir::Node* load = nullptr;
    ir::walk(program->grid ? *program->grid->body : program->body, [&](const ir::Node& n) {
        if (!load && n.op == ir::OpCode::load) load = &n;
    });
    ASSERT_NE(load, nullptr);
    EXPECT_EQ(aligned.layouts->aligned_to, load) << aligned.layouts->aligned_why;
    const passes::CudaLayout l = aligned.layouts->of(load);
    ASSERT_TRUE(l.shifted);
    ASSERT_EQ(l.vec, 8);
    EXPECT_GE(l.row_runs * l.group * l.vec, 5123 + 7);
    for (int shift = 0; shift < 8; ++shift) {
        std::vector<int> held(5123, 0);
        for (int t = 0; t < l.threads; ++t)
            for (std::int64_t j = 0; j < l.slots(); ++j) {
                const auto e = l.element(t, j, shift);
                if (!e) continue;
                ASSERT_TRUE(*e >= 0 && *e < 5123) << *e;
                ++held[static_cast<std::size_t>(*e)];
                // The run's first slot lies on a boundary: column + shift a multiple of 8.
                if (j % 8 == 0) EXPECT_EQ((*e + shift) % 8, 0) << "thread " << t << " slot " << j << " shift " << shift;
            }
        EXPECT_EQ(std::count(held.begin(), held.end(), 1), 5123) << "shift " << shift;
    }
    EXPECT_TRUE(contains(passes::print(aligned), "slots aligned to the 16-byte boundaries of each instance's row")) << passes::print(aligned);
    // Without the option (the default), nothing is shifted.
    o.aligned_slots = false;
    EXPECT_FALSE(passes::lower(*program, o, "cuda_layout").layouts->of(load).shifted);
}

// EmitOptions::coalesced_elements (KILN_CUDA_COALESCED_ELEMENTS=1): where the spill
// feedback gives the shifted runs up (bf16 SwiGLU at 5123 columns: its two halves and
// their shifted vectors spill under 64 registers), the rows moved element by element are
// dealt one element a thread in turn, and the step says so; without it they keep runs of 8.
TEST(CudaRows, MisalignedRowsGivenUpAreDealtAnElementAThread) {
    REQUIRE_NVRTC();
    RowArgs a;
    a.in<bf16>({64, 2 * 5123});
    a.out<bf16>({64, 5123});
    auto program = detail::specialize(*rows::swiglu<bf16>().shared_impl(), a.args, Loc::here());
    cu::EmitOptions o = cu::emit_options(a.args, CompileOptions{.precision = Precision::standard});
    o.misaligned_rows = true;  // (the default deals 16-bit rows from the start: the test above)
    const std::string gave_up = "misaligned rows moved element by element, not as shifted aligned vectors, whose code spilled";
    o.coalesced_elements = 0;
    const auto runs = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
    if (runs->spill_feedback.empty() || !contains(runs->spill_feedback.front(), gave_up))
        GTEST_SKIP() << "this NVRTC's ptxas fits the shifted runs";
    EXPECT_FALSE(contains(runs->spill_feedback.front(), "one element at a time in turn")) << runs->spill_feedback.front();
    o.coalesced_elements = 1;
    const auto dealt = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
    ASSERT_FALSE(dealt->spill_feedback.empty());
    EXPECT_TRUE(contains(dealt->spill_feedback.front(), gave_up + " (")) << dealt->spill_feedback.front();
    EXPECT_TRUE(contains(dealt->spill_feedback.front(), "and dealt to the threads one element at a time in turn")) << dealt->spill_feedback.front();
    EXPECT_EQ(dealt->resources.spill_store_bytes + dealt->resources.spill_load_bytes, 0);
    EXPECT_NE(runs->key, dealt->key);
}

TEST(CudaRows, ColumnSumsReduceInRegisters) {
    REQUIRE_NVRTC();
    RowArgs a;
    a.in<bf16>({1000, 4096});
    a.out<f32>({4096});
    std::string plan = cuda_text(rows::column_sum<bf16>(), a.args, Precision::standard, What::plan);
    // 512 threads (the accumulator and the tile added to it are live at once: 16 elements
    // a thread), 64 rows at a time: 2 rows of the 128 per thread and column.
    EXPECT_TRUE(contains(value_line(plan, "reduce_add"), "in registers: 2 rows per thread and column")) << plan;
    EXPECT_FALSE(contains(plan, "staged")) << plan;
    // The 128 x 64 tile is never staged: the exchange holds one partial per warp and column.
    EXPECT_LE(number_after(plan, "shared memory: "), 2 * 16 * 64 * 4) << plan;
    EXPECT_TRUE(no_spills(plan)) << plan;
    // Exact precision folds the float sum in the contract's order instead.
    std::string exact = cuda_text(rows::column_sum<bf16>(), a.args, Precision::exact, What::plan);
    EXPECT_TRUE(contains(value_line(exact, "reduce_add"), "ordered fold")) << exact;
}

// The division by the row's sum is the IEEE division, one per quotient: on an H200 it
// is faster than a reciprocal shared by the row and three operations per quotient
// (softmax bf16 32768x8192: 377 against 404 us, bit-identical results;
// bench/results/gpu-20261202/softmax-ab).
TEST(CudaRows, SoftmaxDividesByTheRowSumAndPacksBf16Pairs) {
    REQUIRE_NVRTC();
    auto a = softmax_args(64, 8192);
    std::string src = cuda_text(rows::softmax<bf16>(), a.args, Precision::standard, What::source);
    EXPECT_FALSE(contains(src, "kiln_rt::divide(")) << src.substr(src.size() > 4000 ? src.size() - 4000 : 0);
    std::string ptx = cuda_text(rows::softmax<bf16>(), a.args, Precision::standard, What::ptx);
    EXPECT_TRUE(contains(ptx, "cvt.rn.bf16x2.f32")) << "stores convert pairs";
    // 256 threads of 32 elements (the row held ahead of its instance spilled and was
    // given up: ASpillHalvesTheShareBeforeTheShiftedRunsAloneAreGivenUp).
    EXPECT_EQ(count(ptx, "div.rn.f32"), 32) << "one IEEE division per quotient slot (32 per thread)";
}

// No spill beyond the few bytes EmitOptions::layout_spill_tolerance keeps rather
// than change the layout (bf16 cross-entropy and SwiGLU at 1000 columns: 8 + 8).
TEST(CudaRows, CatalogRowKernelsCompileWithoutSpills) {
    REQUIRE_NVRTC();
    for (std::int64_t cols : {8192, 1000}) {
        SCOPED_TRACE(cols);
        const RowArgs ce = cross_entropy_args(64, cols);
        const RowArgs res = residual_layernorm_args(64, cols);
        RowArgs sw;
        sw.in<bf16>({64, 2 * cols});
        sw.out<bf16>({64, cols});
        std::vector<std::pair<Kernel, std::vector<detail::Arg>>> kernels = {
            {rows::layernorm_affine<bf16>(), layernorm_args(64, cols).args}, {rows::log_softmax<bf16>(), softmax_args(64, cols).args},
            {rows::cross_entropy<bf16>(), ce.args}, {rows::residual_layernorm<bf16>(), res.args}, {rows::swiglu<bf16>(), sw.args}};
        for (auto& [k, args] : kernels) {
            std::string plan = cuda_text(k, args, Precision::standard, What::plan);
            EXPECT_TRUE(no_spills(plan) || contains(plan, "not worth a change of layout: within EmitOptions::layout_spill_tolerance (16 bytes")) << plan;
            EXPECT_FALSE(contains(plan, "staged")) << plan;
            // Wide rows stream through registers: 1024 threads resident per SM (64
            // registers each) keep enough bytes in flight. swiglu and cross_entropy hold
            // two rows at once and get twice the threads for it (at one row's share per
            // thread swiglu took 248 registers: one CTA of 256 threads per SM).
            if (cols == 8192) EXPECT_LE(number_after(plan, "registers: "), 64) << plan;
        }
    }
}

TEST(CudaRows, TransposeStagesInPaddedRows) {
    REQUIRE_NVRTC();
    auto k = kernel("transpose64", [](View<const f32, 2> x, View<f32, 2> y) {
        auto m = axis("m", 64), n = axis("n", 64);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 64))))) {
            auto m0 = nest.index() * 64;
            y(coord(0, m0), shape(n, m)).store(transpose(x[coord(m0, 0), shape(m, n)]));
        }
    });
    RowArgs a;
    a.in<f32>({256, 64});
    a.out<f32>({64, 256});
    std::string plan = cuda_text(k, a.args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(value_line(plan, "permute"), "rows padded to an odd pitch of 65")) << plan;
    // 64 rows of 65 floats.
    EXPECT_EQ(number_after(plan, "shared memory: "), 64 * 65 * 4) << plan;
}

// A kernel whose registers overflow is compiled again giving something up
// (kernel_cache.cpp's spill feedback); the plan says what. Rows 5123 bf16 apart are
// not 16-byte aligned: asked for the shifted-vector code (EmitOptions::misaligned_rows,
// which 16-bit rows take at KILN_CUDA_COALESCED_ELEMENTS=0 or 1), where that code
// spilled the kernel moves those rows element by element: the plan must then say so,
// never drop it silently. Aligned rows (4000 columns) ask for none of it.
TEST(CudaRows, ThePlanSaysWhatTheSpillFeedbackGaveUp) {
    REQUIRE_NVRTC();
    const std::string shifted = "misaligned rows as aligned vectors shifted between lanes";
    const std::string gave_up = "misaligned rows moved element by element, not as shifted aligned vectors, whose code spilled";
    for (std::int64_t cols : {5123, 4000}) {
        RowArgs a;
        a.in<bf16>({64, cols});
        a.in<bf16>({cols});
        a.in<bf16>({cols});
        a.out<bf16>({64, cols});
        const std::string plan = cuda_text(rows::layernorm_affine<bf16>(), a.args, Precision::standard, What::plan);
        if (cols == 5123) {
            const auto k = compiled_with(rows::layernorm_affine<bf16>(), a.args, Precision::standard, [](cu::EmitOptions& o) {
                o.misaligned_rows = true;
                o.coalesced_elements = 0;
            });
            const std::string text = ladder_and_values(*k);
            EXPECT_TRUE(contains(text, shifted) != contains(text, gave_up)) << text;
            if (contains(text, gave_up)) EXPECT_FALSE(k->spill_feedback.empty()) << text;
            EXPECT_EQ(k->resources.spill_store_bytes + k->resources.spill_load_bytes, 0) << text;
        } else {
            EXPECT_FALSE(contains(plan, shifted)) << plan;
            EXPECT_FALSE(contains(plan, gave_up)) << plan;
        }
        EXPECT_TRUE(no_spills(plan)) << plan;
    }
}

// Where the first compile spills under the register cap and giving up the shifted runs
// of misaligned rows alone makes it fit, the kernel is compiled once more with them and
// each thread holding half its share of the row (twice the threads an instance), and
// keeps that where it fits (kernel_cache.cpp); the plan says so. The bf16 LayerNorm's
// 5123-column rows, which start off 16-byte boundaries, spilled with the shifted runs'
// code at the whole share. Where loads ahead of the instance are at stake (bf16
// softmax, log-softmax, cross-entropy and SwiGLU at 8192 columns spilled 24-120 bytes
// holding the next row ahead), the loads ahead are given up at once: halving the share
// to keep them lost as often as it won on an H200 (bench/results/gpu-20261205-s24/).
TEST(CudaRows, ASpillHalvesTheShareBeforeTheShiftedRunsAloneAreGivenUp) {
    REQUIRE_NVRTC();
    const RowArgs ce = cross_entropy_args(64, 8192);
    RowArgs sw;
    sw.in<bf16>({64, 2 * 8192});
    sw.out<bf16>({64, 8192});
    // The cross-entropy's label compare in 32 bits (EmitOptions::narrow_index_compares)
    // leaves it a spill of a few bytes (4 + 4 with NVRTC 13.0), kept within the layout
    // tolerance rather than half the share.
    struct Case {
        Kernel kernel;
        std::vector<detail::Arg> args;
        bool small_spill_kept;
    };
    std::vector<Case> kernels = {{rows::softmax<bf16>(), softmax_args(64, 8192).args, false},
                                 {rows::log_softmax<bf16>(), softmax_args(64, 8192).args, false},
                                 {rows::cross_entropy<bf16>(), ce.args, true},
                                 {rows::swiglu<bf16>(), sw.args, false}};
    for (auto& [k, args, small_spill_kept] : kernels) {
        const std::string plan = cuda_text(k, args, Precision::standard, What::plan);
        EXPECT_FALSE(contains(plan, "each thread holds 1/2 of its share of the rows")) << plan;
        EXPECT_TRUE(contains(plan, "no loads ahead of their instance or iteration (grid_prefetch, loop_prefetch): holding them spilled (")) << plan;
        EXPECT_FALSE(contains(plan, "issued one instance ahead")) << plan;
        if (small_spill_kept && !no_spills(plan)) EXPECT_TRUE(contains(plan, "not worth a change of layout: within EmitOptions::layout_spill_tolerance")) << plan;
        else EXPECT_TRUE(no_spills(plan)) << plan;
    }
    // (The shifted runs of 16-bit rows, which the default deals instead: EmitOptions::coalesced_elements.)
    RowArgs ln = layernorm_args(64, 5123);
    const auto k = compiled_with(rows::layernorm_affine<bf16>(), ln.args, Precision::standard, [](cu::EmitOptions& o) {
        o.misaligned_rows = true;
        o.coalesced_elements = 0;
    });
    const std::string text = ladder_and_values(*k);
    EXPECT_TRUE(contains(text, "each thread holds 1/2 of its share of the rows, keeping the shifted runs of misaligned rows, which spilled at the whole share (")) << text;
    EXPECT_TRUE(contains(text, "misaligned rows as aligned vectors shifted between lanes")) << text;
    EXPECT_EQ(k->resources.spill_store_bytes + k->resources.spill_load_bytes, 0) << text;
}

// EmitOptions::spill_tolerance (KILN_CUDA_SPILL_TOLERANCE, 0 by default): a spill of
// at most that many bytes is kept rather than what the ladder gives up for it. The bf16
// softmax at 8192 columns spills holding the next row ahead (the test above): with a
// tolerance above that spill it keeps its loads ahead, the spill stays, and the plan
// says it was kept (not "not register-resident"); with none it gives up the NaN
// minimum beside them (EmitOptions::nan_by_minimum_ahead), then them.
TEST(CudaRows, ASpillWithinTheToleranceIsKept) {
    REQUIRE_NVRTC();
    const RowArgs a = softmax_args(64, 8192);
    auto program = detail::specialize(*rows::softmax<bf16>().shared_impl(), a.args, Loc::here());
    cu::EmitOptions o = cu::emit_options(a.args, CompileOptions{.precision = Precision::standard});
    o.spill_tolerance = 0;
    const auto strict = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
    ASSERT_EQ(strict->spill_feedback.size(), 2u);
    EXPECT_TRUE(contains(strict->spill_feedback.front(), "not by the 16-bit minimum, which spilled beside the loads ahead")) << strict->spill_feedback.front();
    EXPECT_TRUE(contains(strict->spill_feedback.back(), "no loads ahead of their instance")) << strict->spill_feedback.back();
    EXPECT_FALSE(strict->kept_spills());
    EXPECT_EQ(strict->resources.spill_store_bytes + strict->resources.spill_load_bytes, 0);
    o.spill_tolerance = 1024;
    const auto tolerant = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
    ASSERT_EQ(tolerant->spill_feedback.size(), 1u);
    EXPECT_TRUE(tolerant->kept_spills()) << tolerant->spill_feedback.front();
    EXPECT_GT(tolerant->resources.spill_store_bytes + tolerant->resources.spill_load_bytes, 0);
    EXPECT_TRUE(contains(tolerant->kernel.source, "issued one instance ahead"));
}

// EmitOptions::layout_spill_tolerance (16 bytes by default): after the loads ahead
// go, a spill within it is kept rather than change the layout for it. The bf16 SwiGLU
// at 1000 columns spills a few bytes once its loads ahead are given up (8 + 8 with
// this NVRTC; on an H100 0.91 of copy so, 0.55 at half the share): with no tolerance
// it gives up the NaN minimum and then half each thread's share; with a generous one
// it keeps both, and its loads ahead still go (they go for any spill, after the NaN
// minimum beside them).
TEST(CudaRows, ASmallSpillIsKeptRatherThanHalveTheShare) {
    REQUIRE_NVRTC();
    RowArgs sw;
    sw.in<bf16>({64, 2 * 1000});
    sw.out<bf16>({64, 1000});
    auto program = detail::specialize(*rows::swiglu<bf16>().shared_impl(), sw.args, Loc::here());
    cu::EmitOptions o = cu::emit_options(sw.args, CompileOptions{.precision = Precision::standard});
    o.spill_tolerance = 0;
    o.layout_spill_tolerance = 0;
    const auto strict = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
    auto said = [](const cu::CompiledKernel& k, const std::string& what) {
        return std::any_of(k.spill_feedback.begin(), k.spill_feedback.end(), [&](const std::string& s) { return contains(s, what); });
    };
    ASSERT_FALSE(strict->spill_feedback.empty());
    EXPECT_TRUE(said(*strict, "no loads ahead of their instance")) << strict->spill_feedback.front();
    EXPECT_TRUE(said(*strict, "each thread holds 1/2 of its share of the rows")) << strict->spill_feedback.back();
    EXPECT_FALSE(strict->kept_spills());
    o.layout_spill_tolerance = 1024;
    const auto tolerant = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
    // The NaN minimum beside the loads ahead, then the loads ahead, then the spill kept.
    ASSERT_EQ(tolerant->spill_feedback.size(), 3u);
    EXPECT_TRUE(contains(tolerant->spill_feedback.front(), "spilled beside the loads ahead")) << tolerant->spill_feedback.front();
    EXPECT_TRUE(contains(tolerant->spill_feedback[1], "no loads ahead of their instance")) << tolerant->spill_feedback[1];
    EXPECT_TRUE(tolerant->kept_spills()) << tolerant->spill_feedback.back();
    EXPECT_TRUE(contains(tolerant->spill_feedback.back(), "not worth a change of layout")) << tolerant->spill_feedback.back();
    EXPECT_FALSE(said(*tolerant, "of its share of the rows"));
    // The whole share: half the threads an instance that the strict ladder gave it.
    EXPECT_EQ(2 * tolerant->kernel.threads / tolerant->kernel.instances_per_cta, strict->kernel.threads / strict->kernel.instances_per_cta);
    EXPECT_FALSE(contains(tolerant->kernel.source, "issued one instance ahead"));
}

// Stores of bf16 pairs canonicalise NaNs with one 16-bit minimum (min.s16x2) where
// the registers allow it, in kernels holding loads ahead of their instance too
// (EmitOptions::nan_by_minimum_ahead), and not where the minimum itself spilled (the
// plan then says so).
TEST(CudaRows, PairNansCanonicaliseByAMinimumWhereTheRegistersAllow) {
    REQUIRE_NVRTC();
    const std::string by_tests = "NaNs of f16/bf16 pairs canonicalised by tests, not by the 16-bit minimum, which spilled";
    // An f32 row goes ahead of its instance only when asked (grid_prefetch.h), so this
    // softmax holds nothing ahead and stores bf16 pairs.
    auto softmax_to_bf16 = kernel("softmax_f32_to_bf16", [](View<const f32, 2> x, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = x[origin, shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(origin, shape(r, c)).store(cast<bf16>(e / reduce(e, c, add)));
        }
    });
    RowArgs a;
    a.in<f32>({64, 8192});
    a.out<bf16>({64, 8192});
    const std::string plan = cuda_text(softmax_to_bf16, a.args, Precision::standard, What::plan);
    const std::string ptx = cuda_text(softmax_to_bf16, a.args, Precision::standard, What::ptx);
    EXPECT_FALSE(contains(plan, "issued one instance ahead")) << plan;
    EXPECT_TRUE(contains(ptx, "min.s16x2") != contains(plan, by_tests)) << plan;
    EXPECT_TRUE(no_spills(plan)) << plan;

    RowArgs w;
    w.in<bf16>({64, 8192});
    w.in<bf16>({8192});
    w.out<bf16>({64, 8192});
    const std::string weighted = cuda_text(rows::rmsnorm_weighted<bf16>(), w.args, Precision::standard, What::plan);
    ASSERT_TRUE(contains(weighted, "loaded once, before the first instance")) << weighted;
    EXPECT_TRUE(contains(cuda_text(rows::rmsnorm_weighted<bf16>(), w.args, Precision::standard, What::ptx), "min.s16x2") != contains(weighted, by_tests))
        << weighted;
    EXPECT_TRUE(no_spills(weighted)) << weighted;
}

// EmitOptions::nan_by_minimum_ahead (on; KILN_CUDA_NAN_MINIMUM_AHEAD=0 turns it off): kernels holding
// loads ahead canonicalise pair NaNs with the 16-bit minimum too, and where that
// spills the ladder gives the minimum up before the loads ahead. Both cases in
// precision fast, bf16 at the rows benchmark's widths: cross-entropy at 8192 columns
// keeps both; residual LayerNorm at 4000 spills with the minimum and keeps its loads
// ahead without it. Off, neither kernel holding loads ahead uses it.
TEST(CudaRows, PairNanMinimumBesideLoadsAheadGoesFirstWhereItSpills) {
    REQUIRE_NVRTC();
    const std::string gave_up = "NaNs of f16/bf16 pairs canonicalised by tests, not by the 16-bit minimum, which spilled beside the loads ahead";
    const RowArgs ce = cross_entropy_args(64, 8192);
    const RowArgs rl = residual_layernorm_args(64, 4000);
    struct Case {
        Kernel kernel;
        const std::vector<detail::Arg>& args;
        bool minimum_fits;
    };
    for (const Case& c : {Case{rows::cross_entropy<bf16>(), ce.args, true}, Case{rows::residual_layernorm<bf16>(), rl.args, false}}) {
        SCOPED_TRACE(c.kernel.name());
        for (bool ahead : {false, true}) {
            const auto k = compiled_with(c.kernel, c.args, Precision::fast, [&](cu::EmitOptions& o) { o.nan_by_minimum_ahead = ahead; });
            const std::string text = ladder_and_values(*k);
            EXPECT_TRUE(contains(k->kernel.source, "issued one instance ahead")) << text;
            EXPECT_EQ(k->resources.spill_store_bytes + k->resources.spill_load_bytes, 0) << text;
            const bool minimum = contains(k->kernel.source, "= kc::f2b2_min(");
            EXPECT_EQ(minimum, ahead && c.minimum_fits) << text;
            EXPECT_EQ(k->kernel.nan_by_minimum, minimum);
            EXPECT_EQ(contains(text, gave_up), ahead && !c.minimum_fits) << text;
        }
    }
}

// EmitOptions::narrow_index_compares (on; KILN_CUDA_NARROW_INDEX_COMPARES=0 turns it off): the
// cross-entropy's `label == iota(c)` in 32 bits, the label clamped once, without the
// thread-index fact; a kernel with no such compare (softmax) is the same source either
// way. The values are the interpreter's on the emulated target
// (emulated_index_compare_test.cpp, under the index facts that include this).
TEST(CudaRows, NarrowIndexComparesChangeOnlyKernelsComparingAnIota) {
    REQUIRE_NVRTC();
    const RowArgs ce = cross_entropy_args(64, 8192);
    const RowArgs sm = softmax_args(64, 8192);
    std::string softmax_source[2];
    for (bool narrow : {false, true}) {
        auto set = [&](cu::EmitOptions& o) {
            o.index_facts = false;
            o.narrow_index_compares = narrow;
        };
        const auto k = compiled_with(rows::cross_entropy<bf16>(), ce.args, Precision::fast, set);
        EXPECT_EQ(contains(k->kernel.source, "(kc::clamp_to_index(v"), narrow) << k->kernel.source;
        EXPECT_FALSE(contains(k->kernel.source, "kc::assume(tid"));
        EXPECT_EQ(k->resources.spill_store_bytes + k->resources.spill_load_bytes, 0) << ladder_and_values(*k);
        softmax_source[narrow] = compiled_with(rows::softmax<bf16>(), sm.args, Precision::fast, set)->kernel.source;
    }
    EXPECT_EQ(softmax_source[0], softmax_source[1]);
}
