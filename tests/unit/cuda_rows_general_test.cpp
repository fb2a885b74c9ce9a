// The cuda target's row fast path is a layout decision, not a pattern match: row
// kernels the catalog does not have (three parameter vectors, an epilogue with a
// residual, several rows per instance, ragged and wide rows, strided views) keep
// their rows in registers with every vector loaded once per instance as the
// columns of the row, and a kernel that cannot take the fast path gets a plan line
// naming why. Compiled offline by NVRTC (no device); tests/emulated checks values.
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "examples/row_kernels.h"
#include "targets/cuda/nvrtc.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {


bool no_spills(const std::string& plan) { return contains(plan, "stack 0 bytes; spills 0 bytes stored, 0 bytes loaded"); }

// Lines of the plan's values made by op `op`.
std::vector<std::string> value_lines(const std::string& plan, const std::string& op) {
    std::vector<std::string> v;
    for (std::size_t at = plan.find("= " + op + " "); at != std::string::npos; at = plan.find("= " + op + " ", at + 1))
        v.push_back(plan.substr(at, plan.find('\n', at) - at));
    return v;
}

// y = tanh(LayerNorm(x) * w + b) * s + x: three vectors along the row, an epilogue
// reading the input again, `rows` rows per instance.
template <Element T> Kernel gated_norm(std::uint32_t rows) {
    return kernel("gated_norm", [rows](View<const T, 2> x, View<const T, 1> w, View<const T, 1> b, View<const T, 1> s, View<T, 2> y) {
        auto r = axis("r", rows), c = axis("c", x.template extent<1>());
        const float inv_n = 1.0f / static_cast<float>(x.template extent<1>());
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.template extent<0>(), rows))))) {
            auto origin = coord(nest.index() * rows, 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto centred = v - reduce(v, c, add) * inv_n;
            auto inv_std = rsqrt(reduce(centred * centred, c, add) * inv_n + 1e-5f);
            auto affine = centred * inv_std * cast<f32>(w[coord(0), shape(c)]) + cast<f32>(b[coord(0), shape(c)]);
            y(origin, shape(r, c)).store(cast<T>(tanh(affine) * cast<f32>(s[coord(0), shape(c)]) + v));
        }
    });
}

struct Buffers {
    std::vector<std::shared_ptr<void>> keep;
    std::vector<detail::Arg> args;
    template <Element T> void in(std::vector<std::int64_t> e, std::vector<std::int64_t> strides = {}) {
        std::int64_t span = 1;
        if (strides.empty()) strides = detail::row_major_strides(e);
        for (std::size_t d = 0; d < e.size(); ++d) span += (e[d] - 1) * strides[d];
        auto t = std::make_shared<std::vector<T>>(static_cast<std::size_t>(span));
        keep.push_back(t);
        args.push_back(detail::to_arg(HostView<const T>{t->data(), e, strides}));
    }
    template <Element T> void out(std::vector<std::int64_t> e) {
        auto t = std::make_shared<Tensor<T>>(e);
        keep.push_back(t);
        args.push_back(detail::to_arg(t->view()));
    }
};

template <Element T> Buffers gated_args(std::int64_t rows, std::int64_t cols, std::int64_t row_stride = 0) {
    Buffers a;
    if (row_stride) a.in<T>({rows, cols}, {row_stride, 1});
    else a.in<T>({rows, cols});
    for (int v = 0; v < 3; ++v) a.in<T>({cols});
    a.out<T>({rows, cols});
    return a;
}

// The plan of a kernel on the fast path: nothing staged through shared memory, the
// three vectors held as the columns of the row, every broadcast a register move,
// every reduction in registers, no spills.
void expect_fast_path(const std::string& plan) {
    EXPECT_FALSE(contains(plan, "staged")) << plan;
    auto loads = value_lines(plan, "load");
    ASSERT_EQ(loads.size(), 4u) << plan;
    for (std::size_t i = 1; i < loads.size(); ++i) EXPECT_TRUE(contains(loads[i], "the columns of each thread's runs")) << loads[i];
    for (const auto& b : value_lines(plan, "broadcast")) EXPECT_TRUE(contains(b, "in registers, no data movement")) << b;
    for (const auto& r : value_lines(plan, "reduce_add")) EXPECT_TRUE(contains(r, "in registers")) << r;
    EXPECT_TRUE(no_spills(plan)) << plan;
}

}  // namespace

TEST(CudaRowsGeneral, VectorsAndAnEpilogueStayInRegistersAtRaggedWidths) {
    REQUIRE_NVRTC();
    for (std::int64_t cols : {1000, 4000, 5123, 8192}) {
        SCOPED_TRACE(cols);
        std::string plan = cuda_text(gated_norm<bf16>(1), gated_args<bf16>(64, cols).args, Precision::standard, What::plan);
        expect_fast_path(plan);
        // Each vector is loaded once per instance (one load op, in runs), not once per row.
        EXPECT_EQ(value_lines(plan, "load").size(), 4u);
    }
    std::string plan = cuda_text(gated_norm<f32>(1), gated_args<f32>(64, 4000).args, Precision::standard, What::plan);
    expect_fast_path(plan);
}

TEST(CudaRowsGeneral, SeveralRowsPerInstanceShareTheirVectors) {
    REQUIRE_NVRTC();
    // (At 4 x 5123 the kernel holds two f32 copies of its rows, the input for the
    // epilogue and the centred values, beside the vectors: more than any CTA's
    // registers; WideRows... below checks what the plan says then.)
    for (auto [rows, cols] : {std::pair<std::uint32_t, std::int64_t>{4, 1000}, {4, 4000}, {2, 5123}}) {
        SCOPED_TRACE(cols);
        std::string plan = cuda_text(gated_norm<bf16>(rows), gated_args<bf16>(64, cols).args, Precision::standard, What::plan);
        expect_fast_path(plan);
        // The vectors are loaded once for the instance's 4 rows.
        EXPECT_TRUE(contains(value_lines(plan, "load")[1], "the columns of each thread's runs")) << plan;
    }
}

TEST(CudaRowsGeneral, StridedRowsCompileToTheSameFastPath) {
    REQUIRE_NVRTC();
    // Rows 5200 elements apart (a view of every row's first 5123 columns): the layout
    // does not depend on strides: the input's load is held and moved as that of
    // contiguous rows (both launches have an output of misaligned bf16 rows, dealt one
    // element a thread in turn: EmitOptions::coalesced_elements).
    std::string plan = cuda_text(gated_norm<bf16>(1), gated_args<bf16>(64, 5123, 5200).args, Precision::standard, What::plan);
    std::string contiguous = cuda_text(gated_norm<bf16>(1), gated_args<bf16>(64, 5123).args, Precision::standard, What::plan);
    expect_fast_path(plan);
    EXPECT_EQ(value_lines(plan, "load")[0], value_lines(contiguous, "load")[0]) << plan;
}

TEST(CudaRowsGeneral, WideRowsSpanAClusterOfCtas) {
    REQUIRE_NVRTC();
    // 65536 columns: more than one CTA's registers hold (1024 threads at 64 elements
    // each spilled 2 KB a thread). The instance spans a cluster of CTAs instead, each
    // thread holding its share in registers; every reduction combines the cluster's
    // warps through distributed shared memory, and nothing spills.
    for (std::int64_t cols : {65536}) {
        SCOPED_TRACE(cols);
        std::string plan = cuda_text(gated_norm<bf16>(1), gated_args<bf16>(8, cols).args, Precision::standard, What::plan);
        EXPECT_FALSE(contains(plan, "staged")) << plan;
        EXPECT_TRUE(contains(plan, "CTAs (a cluster of ")) << plan;
        for (const auto& r : value_lines(plan, "reduce_add")) EXPECT_TRUE(contains(r, "CTAs through distributed shared memory")) << r;
        EXPECT_TRUE(no_spills(plan)) << plan;
        std::string ptx = cuda_text(gated_norm<bf16>(1), gated_args<bf16>(8, cols).args, Precision::standard, What::ptx);
        EXPECT_TRUE(contains(ptx, ".reqnctapercluster")) << "the cluster's size is the kernel's";
        EXPECT_TRUE(contains(ptx, "barrier.cluster.arrive")) << ptx.substr(0, 3000);
        EXPECT_TRUE(contains(ptx, "mapa.u64"));
    }
    // Such rows load ahead of their instance where the registers allow
    // (EmitOptions::cluster_prefetch): bf16 LayerNorm holds its next row and its two
    // vectors, and its grid is the clusters that fit at once.
    Buffers ln;
    ln.in<bf16>({2048, 65536});
    ln.in<bf16>({65536});
    ln.in<bf16>({65536});
    ln.out<bf16>({2048, 65536});
    const std::string plan = cuda_text(catalog::rows::layernorm_affine<bf16>(), ln.args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "CTAs (a cluster of ")) << plan;
    // Offline the plan cannot count the clusters that fit; on a device it says how many.
    EXPECT_TRUE(contains(plan, "persistent: launched as at most the clusters that fit on the device at once") ||
                (contains(plan, "persistent: launched as ") && contains(plan, " CTAs (clusters of ") && contains(plan, "as many as fit at once: ")))
        << plan;
    EXPECT_TRUE(contains(value_lines(plan, "load")[0], "issued one instance ahead")) << plan;
    EXPECT_TRUE(contains(value_lines(plan, "load")[1], "loaded once, before the first instance")) << plan;
    EXPECT_TRUE(no_spills(plan)) << plan;
    // Exact precision folds a float sum in the contract's order, in one thread of one
    // CTA, from the whole row staged in shared memory: a 65536-column f32 row does not
    // fit, and the error names the line.
    try {
        cuda_text(gated_norm<bf16>(1), gated_args<bf16>(8, 65536).args, Precision::exact, What::plan);
        ADD_FAILURE() << "an exact 65536-column row compiled";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "cuda_rows_general_test.cpp:38: reduce_add: stages 262144 bytes through shared memory on cuda")) << e.what();
    }
}

TEST(CudaRowsGeneral, AClustersCtasMayBeSmallerThanAWholeSm) {
    REQUIRE_NVRTC();
    // EmitOptions::cluster_cta_threads (KILN_CUDA_CLUSTER_CTA): the row's threads are
    // the same, spread over more and smaller CTAs (so that several rows' CTAs share an
    // SM), never more than 8 of them (the portable cluster), and the registers still
    // fit. A 65536-column bf16 softmax spans 2048 threads; gated_norm, with more tiles
    // live at once, 8192 (8 CTAs of 1024 already). 0 is the layout pass's choice.
    const Kernel softmax = catalog::rows::softmax<bf16>();
    Buffers s;
    s.in<bf16>({8, 65536});
    s.out<bf16>({8, 65536});
    for (auto [k, args, row_threads] : {std::tuple{softmax, s.args, 2048}, std::tuple{gated_norm<bf16>(1), gated_args<bf16>(8, 65536).args, 8192}}) {
        SCOPED_TRACE(k.name());
        for (int cta : {0, 1024, 512, 256}) {
            SCOPED_TRACE(cta);
            // A program of its own for each: a process keeps one kernel a program for
            // its (process-wide) knobs.
            auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
            cu::EmitOptions o = cu::emit_options(args, CompileOptions{});
            o.cluster_cta_threads = cta;
            auto c = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
            // 0: the layout pass's choice, 256 for rows of a 16-bit kind.
            const int expected = std::max(cta == 0 ? 256 : cta, row_threads / 8);
            EXPECT_EQ(c->kernel.threads, expected);
            EXPECT_EQ(c->kernel.cluster, row_threads / expected);
            EXPECT_EQ(c->resources.spill_store_bytes, 0);
            EXPECT_EQ(c->resources.stack_bytes, 0);
        }
    }
    // f32 rows keep whole-SM CTAs by default (smaller ones split further and ran slower).
    const Kernel f32_softmax = catalog::rows::softmax<f32>();
    Buffers f;
    f.in<f32>({8, 65536});
    f.out<f32>({8, 65536});
    auto program = detail::specialize(*f32_softmax.shared_impl(), f.args, Loc::here());
    cu::EmitOptions o = cu::emit_options(f.args, CompileOptions{});
    o.cluster_cta_threads = 0;
    auto c = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
    EXPECT_GT(c->kernel.cluster, 1);
    EXPECT_EQ(c->kernel.threads, 1024);
}

TEST(CudaRowsGeneral, ATileOfManyNarrowRowsDoesNotSpanACluster) {
    REQUIRE_NVRTC();
    // 64 rows of 1024 f32 per instance (65536 elements, as many as a 65536-column row):
    // each row is held by 256 threads, not all of a cluster's, so its warps would not
    // be the cluster's first ones; the instance stays in one CTA.
    auto k = kernel("many_rows", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 64), c = axis("c", 1024);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 64))))) {
            auto origin = coord(nest.index() * 64, 0);
            auto v = x[origin, shape(r, c)];
            y(origin, shape(r, c)).store(v - reduce(v, c, maximum));
        }
    });
    Buffers a;
    a.in<f32>({256, 1024});
    a.out<f32>({256, 1024});
    std::string plan = cuda_text(k, a.args, Precision::standard, What::plan);
    EXPECT_FALSE(contains(plan, "CTAs (a cluster of")) << plan;
    EXPECT_TRUE(contains(plan, "1024 threads each")) << plan;
}

TEST(CudaRowsGeneral, APlanSaysWhyAValueLeavesTheFastPath) {
    REQUIRE_NVRTC();
    // A per-row statistic subtracted from a tile and from its transpose: the
    // transpose stages (in padded rows) and so does the broadcast that the transpose
    // turns into neither rows nor columns; the plan says why on each line.
    auto k = kernel("mixed", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 32), c = axis("c", 32);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 32))))) {
            auto origin = coord(nest.index() * 32, 0);
            auto v = x[origin, shape(r, c)];
            auto m = reduce(v, c, maximum);
            y(origin, shape(r, c)).store(v - m + transpose(v - m));
        }
    });
    Buffers a;
    a.in<f32>({64, 32});
    a.out<f32>({64, 32});
    std::string plan = cuda_text(k, a.args, Precision::standard, What::plan);
    // The kernel-wide line: why instances are not packed several per CTA.
    const int line = __LINE__ - 8;  // the store above
    EXPECT_TRUE(contains(plan, "one instance per CTA: permute at cuda_rows_general_test.cpp:" + std::to_string(line) + " stages through shared memory"))
        << plan;
    // The value's line: the transpose in padded rows, and the broadcast that stages, with its reason.
    EXPECT_TRUE(contains(plan, "transposed through shared memory, rows padded to an odd pitch of 33")) << plan;
    EXPECT_TRUE(contains(plan, "staged through shared memory (the operand spans both the rows and the columns of the result)")) << plan;
}

// A cross-entropy whose mask is written iota(c) == label: a [c, r] tile, so the row
// z [r, c] it selects from is broadcast into [c, r], moving only its unit axis. Unit
// axes hold no order (the layout's rows and columns are those of the dims of more
// than one element): z and the [c, r] tiles are one row of c, the broadcast moves no
// register, and the plan is the same as with the mask written label == iota(c).
TEST(CudaRowsGeneral, UnitAxesInAnyOrderKeepARowInRegisters) {
    REQUIRE_NVRTC();
    auto loss_of = [](bool iota_first) {
        return kernel(iota_first ? "ce_iota_first" : "ce_label_first", [iota_first](View<const f32, 2> logits, View<const i64, 1> labels, View<f32, 1> loss) {
            auto r = axis("r", 1), c = axis("c", logits.extent(1));
            for (auto& nest : parallel(shape(axis("rows", logits.extent(0))))) {
                auto z = logits[coord(nest.index(), 0), shape(r, c)];
                auto label = labels[coord(nest.index()), shape(r)];
                auto peak = reduce(z, c, maximum);
                auto hit = iota_first ? iota(c) == label : label == iota(c);
                auto picked = reduce(ite(hit, z, 0.0f), c, add);
                loss(coord(nest.index()), shape(r)).store(log(reduce(exp(z - peak), c, add)) + peak - picked);
            }
        });
    };
    Buffers a;
    a.in<f32>({64, 1000});
    a.in<i64>({64});
    a.out<f32>({64});
    for (bool iota_first : {true, false}) {
        SCOPED_TRACE(iota_first ? "iota(c) == label" : "label == iota(c)");
        const std::string plan = cuda_text(loss_of(iota_first), a.args, Precision::standard, What::plan);
        EXPECT_FALSE(contains(plan, "staged")) << plan;
        EXPECT_FALSE(contains(plan, "operand in shared memory")) << plan;
        for (const auto& r : value_lines(plan, "reduce_add")) EXPECT_TRUE(contains(r, "in registers")) << r;
        for (const auto& r : value_lines(plan, "reduce_max")) EXPECT_TRUE(contains(r, "in registers")) << r;
        if (iota_first) EXPECT_TRUE(contains(plan, "only unit axes move")) << plan;
    }
}

// A column of a matrix as a [c, 1] tile (its last axis a unit one): one row of c for
// the layout, reduced in registers, but read and written element by element, since c
// lies at the view's row stride (tests/emulated/emulated_unit_axes_test.cpp checks
// the values).
TEST(CudaRowsGeneral, ATileWhoseLastAxisIsAUnitOneIsAccessedElementByElement) {
    REQUIRE_NVRTC();
    auto k = kernel("column_scale", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", x.extent(0)), one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("cols", x.extent(1))))) {
            auto origin = coord(0, nest.index());
            auto v = x[origin, shape(c, one)];
            y(origin, shape(c, one)).store(v / reduce(abs(v), c, add));
        }
    });
    Buffers a;
    a.in<f32>({4096, 64});
    a.out<f32>({4096, 64});
    const std::string plan = cuda_text(k, a.args, Precision::standard, What::plan);
    for (const auto& l : value_lines(plan, "load")) EXPECT_TRUE(contains(l, "element by element")) << l;
    for (const auto& r : value_lines(plan, "reduce_add")) EXPECT_TRUE(contains(r, "in registers")) << r;
    EXPECT_FALSE(contains(plan, "staged")) << plan;
}

// argmax and argmin along a row stay in registers (emit_register_reduce.cpp: one 64-bit
// key of the value's order and the index a slot, shuffles, an exchange over warps) for
// values of at most 4 bytes; i64 values keep the staged walk in order, and the plan says
// why (tests/emulated/emulated_register_argmax_test.cpp checks the values).
TEST(CudaRowsGeneral, ArgmaxAlongARowStaysInRegisters) {
    REQUIRE_NVRTC();
    auto extremes = [](auto tag) {
        using T = decltype(tag);
        return kernel("extremes", [](View<const T, 2> x, View<i64, 1> hi, View<i64, 1> lo) {
            auto r = axis("r", 1), c = axis("c", x.extent(1));
            for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
                auto v = x[coord(nest.index(), 0), shape(r, c)];
                hi(coord(nest.index()), shape(r)).store(argmax(v, c));
                lo(coord(nest.index()), shape(r)).store(argmin(v, c));
            }
        });
    };
    Buffers a;
    a.in<f32>({64, 5123});
    a.out<i64>({64});
    a.out<i64>({64});
    const std::string plan = cuda_text(extremes(f32{}), a.args, Precision::standard, What::plan);
    for (const char* op : {"argmax", "argmin"})
        for (const auto& l : value_lines(plan, op)) EXPECT_TRUE(contains(l, "in registers")) << l;
    EXPECT_FALSE(contains(plan, "staged")) << plan;
    Buffers w;
    w.in<i64>({64, 1000});
    w.out<i64>({64});
    w.out<i64>({64});
    const std::string wide = cuda_text(extremes(i64{}), w.args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(wide, "reads elements other threads hold (in registers only over the rows of values of at most 4 bytes)")) << wide;
}
