// The cuda target without a device: kernels are emitted and compiled by NVRTC for
// sm_90a (offline), diagnostics name the user's line, and the PTX has the
// instructions each precision mode promises.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>

#include "cuda_test_util.h"
#include "examples/typed_gemm.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/nvrtc.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {


Kernel softmax_kernel() {
    return kernel("softmax", [](View<const f32, 2> x, View<f32, 2> y) {
        auto rows = axis("rows", x.extent(0));
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(rows))) {
            auto v = x[coord(nest.index(), 0), shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(coord(nest.index(), 0), shape(r, c)).store(e / reduce(e, c, add));
        }
    });
}

template <Element In> Kernel gemm_kernel(MmaOptions mo = {}) {
    return kernel("gemm", [=](View<const In, 2> A, View<const In, 2> B, View<f32, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 32)), gn = axis("block_n", ceil_div(B.extent(1), 32));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 16));
        auto m = axis("m", 32), n = axis("n", 32), k = axis("k", 16);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 32, n0 = nest.index(gn) * 32;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt))) {
                auto k0 = step.index() * 16;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc, mo);
            }
            C(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
}

template <Element In> std::string gemm_ptx(Precision p, MmaOptions mo = {}) {
    Tensor<In> a({64, 48}), b({48, 40});
    Tensor<f32> c({64, 40});
    // The generic kernel's (an f16/bf16 GEMM also gets the Hopper kernel, which a launch prefers).
    return cuda_test::generic_ptx(gemm_kernel<In>(mo), args_of(std::as_const(a).view(), std::as_const(b).view(), c.view()), p);
}

}  // namespace

TEST(CudaCompile, SoftmaxCompilesInBothModes) {
    REQUIRE_NVRTC();
    Tensor<f32> x({5, 33}), y({5, 33});
    auto args = args_of(std::as_const(x).view(), y.view());
    for (Precision p : {Precision::exact, Precision::standard}) {
        std::string ptx = cuda_text(softmax_kernel(), args, p, What::ptx);
        EXPECT_TRUE(contains(ptx, ".entry kiln_softmax")) << ptx.substr(0, 2000);
        EXPECT_TRUE(contains(ptx, ".target sm_90a"));
        // Exact precision folds the float sum in order through shared memory (between
        // barriers); standard precision keeps each 33-column row in one warp's
        // registers and reduces it with shuffles alone.
        EXPECT_EQ(contains(ptx, "bar.sync"), p == Precision::exact) << ptx.substr(0, 2000);
    }
    // Exact mode: kiln's exp, never an FMA; standard mode: CUDA's expf.
    std::string exact = cuda_text(softmax_kernel(), args, Precision::exact, What::source);
    EXPECT_TRUE(contains(exact, "kiln_rt::k_exp"));
    std::string standard = cuda_text(softmax_kernel(), args, Precision::standard, What::source);
    EXPECT_TRUE(contains(standard, "expf("));
    EXPECT_FALSE(contains(standard, "namespace kd"));  // kmath.h is pasted only when used
}

TEST(CudaCompile, ExactModeHasNoFusedMultiplyAdd) {
    REQUIRE_NVRTC();
    auto k = kernel("axpy", [](View<const f32, 1> x, View<const f32, 1> y, View<f32, 1> out, Scalar<f32> a) {
        auto b = axis("b", 128);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 128))))) {
            auto i = nest.index() * 128;
            out(coord(i), shape(b)).store(x[coord(i), shape(b)] * a + y[coord(i), shape(b)]);
        }
    });
    Tensor<f32> x({300}), y({300}), out({300});
    auto args = args_of(std::as_const(x).view(), std::as_const(y).view(), out.view(), 2.5f);
    std::string exact = cuda_text(k, args, Precision::exact, What::ptx);
    EXPECT_FALSE(contains(exact, "fma.rn.f32")) << exact;
    EXPECT_TRUE(contains(exact, "mul.rn.f32"));
    std::string standard = cuda_text(k, args, Precision::standard, What::ptx);
    EXPECT_TRUE(contains(standard, "fma.rn.f32")) << "standard mode lets NVRTC contract a*b+c";
}

TEST(CudaCompile, F16AndBf16MmaUseTensorCoresInStandardModeOnly) {
    REQUIRE_NVRTC();
    std::string half = gemm_ptx<f16>(Precision::standard);
    EXPECT_TRUE(contains(half, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32")) << half.substr(0, 3000);
    std::string brain = gemm_ptx<bf16>(Precision::standard);
    EXPECT_TRUE(contains(brain, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    // Exact mode keeps the pinned order: no tensor cores.
    EXPECT_FALSE(contains(gemm_ptx<f16>(Precision::exact), "mma.sync"));
    // So does an mma that forbids reassociation, in any mode.
    EXPECT_FALSE(contains(gemm_ptx<f16>(Precision::standard, {.allow_reassociation = false}), "mma.sync"));
}

TEST(CudaCompile, F32MmaUsesTf32OnlyWhenAsked) {
    REQUIRE_NVRTC();
    EXPECT_FALSE(contains(gemm_ptx<f32>(Precision::standard), "mma.sync"));
    EXPECT_TRUE(contains(gemm_ptx<f32>(Precision::standard, {.allow_tf32 = true}), "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
}

TEST(CudaCompile, PlanReportsScheduleResourcesAndTensorCores) {
    REQUIRE_NVRTC();
    Tensor<f16> a({64, 48}), b({48, 40});
    Tensor<f32> c({64, 40});
    auto args = args_of(std::as_const(a).view(), std::as_const(b).view(), c.view());
    std::string plan = cuda_text(gemm_kernel<f16>(), args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "grid: 4 CTAs")) << plan;  // 2 x 2 blocks of 32 x 32
    // The GEMM kernel's registers; the generic kernel (mma.sync, below) is compiled when a
    // launch needs it (views TMA cannot read), and the plan says so.
    EXPECT_TRUE(contains(plan, "registers (GEMM kernel): ")) << plan;
    EXPECT_TRUE(contains(plan, "generic kernel (the fallback of launches the GEMM kernel refuses: views TMA cannot read): not in this module until a launch needs it")) << plan;
    EXPECT_TRUE(contains(plan, "tensor-core instructions: ")) << plan;
    EXPECT_FALSE(contains(plan, "tensor-core instructions: 0")) << plan;
    EXPECT_TRUE(contains(plan, "tensor cores: mma.sync m16n8k16 f16")) << plan;
}

TEST(CudaCompile, BoundsCheckIsRejectedNamingTheLine) {
    auto k = kernel("strict", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("a", 2)))) {
            auto v = x[coord(n.index() * 4), shape(4), bounds::check];  // line checked below
            y(coord(n.index() * 4), shape(4)).store(v);
        }
    });
    int line = __LINE__ - 4;
    Tensor<f32> x({6}), y({8});
    try {
        cuda_text(k, args_of(std::as_const(x).view(), y.view()), Precision::standard, What::source);
        FAIL() << "bounds::check compiled for the GPU";
    } catch (const Error& e) {
        std::string msg = e.what();
        EXPECT_TRUE(contains(msg, "cuda_compile_test.cpp:" + std::to_string(line) + ": load: ")) << msg;
        EXPECT_TRUE(contains(msg, "device code cannot raise: bounds::check is not supported on cuda; use bounds::zero or bounds::assume")) << msg;
    }
}

TEST(CudaCompile, OffsetWidthFollowsTheViewsSpan) {
    REQUIRE_NVRTC();
    auto k = kernel("copy", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", 2);
        for (auto& n : parallel(shape(axis("rows", x.extent(0))))) y(coord(n.index(), 0), shape(r, c)).store(x[coord(n.index(), 0), shape(r, c)]);
    });
    std::vector<float> small(8), out(8);
    auto narrow = args_of(view<const float>(small.data(), {2, 2}), view(out.data(), {2, 2}));
    EXPECT_TRUE(contains(cuda_text(k, narrow, Precision::exact, What::source), "typedef int kiln_idx;"));
    // A view whose reachable span passes 2^31 elements (never dereferenced here).
    auto wide = args_of(view<const float>(small.data(), {2, 2}, {std::int64_t{1} << 32, 1}), view(out.data(), {2, 2}));
    EXPECT_TRUE(contains(cuda_text(k, wide, Precision::exact, What::source), "typedef long long kiln_idx;"));
}

TEST(CudaCompile, DataMovementReductionsAndSortsCompile) {
    REQUIRE_NVRTC();
    auto k = kernel("movers", [](View<const f32, 2> x, View<const i64, 2> idx, View<f32, 2> y, View<i64, 2> yi, View<f32, 2> z) {
        auto r = axis("r", 4), c = axis("c", 24);
        for (auto& n : parallel(shape(axis("blocks", ceil_div(x.extent(0), 4))))) {
            auto row = n.index() * 4;
            auto v = x[coord(row, 0), shape(r, c)];
            auto t = topk(v, c, 5);
            auto s = sort(v, c);
            auto sc = scan(v, c, add);
            auto g = gather(v, reshape(argmax(v, c), shape(r)), c);
            auto gi = idx[coord(row, 0), shape(r, axis("k", 5))];
            y(coord(row, 0), shape(r, c)).store(s.values + sc + transpose(transpose(v)));
            yi(coord(row, 0), shape(r, axis("k", 5))).store(t.indices + gi);
            z(coord(row, 0), shape(r, axis("one", 1))).store(reshape(g + reduce(v, c, minimum), shape(r, axis("one", 1))));
        }
    });
    Tensor<f32> x({9, 24}), y({9, 24}), z({9, 1});
    Tensor<i64> idx({9, 5}), yi({9, 5});
    auto args = args_of(std::as_const(x).view(), std::as_const(idx).view(), y.view(), yi.view(), z.view());
    for (Precision p : {Precision::exact, Precision::standard}) EXPECT_TRUE(contains(cuda_text(k, args, p, What::ptx), ".entry kiln_movers"));
}

TEST(CudaCompile, EveryElementKindLoadsComputesAndStores) {
    REQUIRE_NVRTC();
    auto k = kernel("kinds", [](View<const f16, 1> h, View<const bf16, 1> b, View<const i8, 1> c, View<const i32, 1> d, View<const f64, 1> f,
                                View<f32, 1> out, View<i64, 1> iout) {
        auto e = axis("e", 64);
        for (auto& n : parallel(shape(axis("blocks", ceil_div(h.extent(0), 64))))) {
            auto i = n.index() * 64;
            auto hv = h[coord(i), shape(e)];
            auto bv = b[coord(i), shape(e)];
            auto sum = cast<f32>(hv * hv + cast<f16>(bv)) + cast<f32>(sqrt(bv)) + cast<f32>(tanh(f[coord(i), shape(e)]));
            out(coord(i), shape(e)).store(sum);
            iout(coord(i), shape(e)).store(cast<i64>(c[coord(i), shape(e)] / cast<i8>(d[coord(i), shape(e)])) + cast<i64>(sum));
        }
    });
    Tensor<f16> h({100});
    Tensor<bf16> b({100});
    Tensor<i8> c({100});
    Tensor<i32> d({100});
    Tensor<f64> f({100});
    Tensor<f32> out({100});
    Tensor<i64> iout({100});
    auto args = args_of(std::as_const(h).view(), std::as_const(b).view(), std::as_const(c).view(), std::as_const(d).view(),
                        std::as_const(f).view(), out.view(), iout.view());
    for (Precision p : {Precision::exact, Precision::standard}) EXPECT_TRUE(contains(cuda_text(k, args, p, What::ptx), ".entry kiln_kinds"));
}

TEST(CudaCompile, TooMuchSharedMemoryIsAnErrorNamingTheOp) {
    REQUIRE_NVRTC();
    auto k = kernel("wide", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 128), c = axis("c", 512);
        for (auto& n : parallel(shape(axis("blocks", 1)))) {
            auto v = x[coord(n.index(), 0), shape(r, c)];
            y(coord(n.index(), 0), shape(r, c)).store(transpose(transpose(v)));  // line checked below
        }
    });
    int line = __LINE__ - 3;
    Tensor<f32> x({128, 512}), y({128, 512});
    try {
        cuda_text(k, args_of(std::as_const(x).view(), y.view()), Precision::standard, What::ptx);
        FAIL() << "a 256 KB staging buffer was accepted";
    } catch (const Error& e) {
        std::string msg = e.what();
        // The larger of the two transposes: 512 rows padded to an odd pitch of 129 floats.
        EXPECT_TRUE(contains(msg, "cuda_compile_test.cpp:" + std::to_string(line) + ": permute: stages 264192 bytes through shared memory")) << msg;
    }
}

TEST(CudaCompile, PlanListsEveryValue) {
    REQUIRE_NVRTC();
    Tensor<f32> x({5, 33}), y({5, 33});
    std::string plan = cuda_text(softmax_kernel(), args_of(std::as_const(x).view(), y.view()), Precision::exact, What::plan);
    for (const char* op : {"= load f32", "= reduce_max f32", "= sub f32", "= exp f32", "= reduce_add f32", "= div f32"})
        EXPECT_TRUE(contains(plan, op)) << op << " missing from\n" << plan;
    EXPECT_TRUE(contains(plan, "ordered fold (exact)")) << plan;
    EXPECT_TRUE(contains(plan, "threads each")) << plan;
}

// ---- Row kernels (emit.h's layout): runs of contiguous elements per thread, 16-byte
// global accesses, reductions in registers.

namespace {

// bench/cuda_bench.cpp's softmax: one program per row, bf16 in and out, f32 inside.
Kernel bf16_row_softmax() {
    return kernel("row_softmax", [](View<const bf16, 2> x, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = cast<f32>(x[o, shape(r, c)]);
            auto e = exp(v - reduce(v, c, maximum));
            y(o, shape(r, c)).store(cast<bf16>(e / reduce(e, c, add)));
        }
    });
}

// Several rows per program, f32, every reduction kind.
Kernel f32_row_block(std::int64_t rows) {
    return kernel("row_block", [=](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", rows), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), rows))))) {
            auto o = coord(nest.index() * rows, 0);
            auto v = x[o, shape(r, c)];
            y(o, shape(r, c)).store((v - reduce(v, c, maximum)) * reduce(v, c, add) + reduce(v, c, minimum));
        }
    });
}

std::vector<detail::Arg> row_args(Tensor<bf16>& x, Tensor<bf16>& y) { return args_of(std::as_const(x).view(), y.view()); }

// 128-bit global accesses (any element type: the compiler picks .u32 or .f32 lanes).
bool has_128bit_load(const std::string& ptx) { return contains(ptx, "ld.global.v4.") || contains(ptx, "ld.global.nc.v4."); }
bool has_128bit_store(const std::string& ptx) { return contains(ptx, "st.global.v4."); }

// The number after `key` in `text` (-1 when absent).
long long number_after(const std::string& text, const std::string& key) {
    std::size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size()));
}

// The plan line describing the value made by `op` (the first one).
std::string value_line(const std::string& plan, const std::string& op) {
    std::size_t at = plan.find("= " + op + " ");
    return at == std::string::npos ? "" : plan.substr(at, plan.find('\n', at) - at);
}

}  // namespace

TEST(CudaCompile, RowSoftmaxOverBf16MovesRowsIn16ByteVectors) {
    REQUIRE_NVRTC();
    Tensor<bf16> x({64, 8192}), y({64, 8192});
    auto args = row_args(x, y);
    for (Precision p : {Precision::standard, Precision::exact}) {
        std::string ptx = cuda_text(bf16_row_softmax(), args, p, What::ptx);
        // 8 bf16 per thread and run: one 128-bit load and one 128-bit store per run.
        EXPECT_TRUE(has_128bit_load(ptx)) << ptx.substr(0, 3000);
        EXPECT_TRUE(has_128bit_store(ptx));
        // The element-by-element path for views that do not allow it (decided at run time).
        EXPECT_TRUE(contains(ptx, "ld.global.u16"));
        EXPECT_TRUE(contains(ptx, "st.global.u16"));
        // Nothing in local memory.
        EXPECT_FALSE(contains(ptx, "ld.local")) << "register arrays must stay in registers";
        EXPECT_FALSE(contains(ptx, "st.local"));
        std::string plan = cuda_text(bf16_row_softmax(), args, p, What::plan);
        EXPECT_TRUE(contains(plan, "stack 0 bytes; spills 0 bytes stored, 0 bytes loaded")) << plan;
        std::string load = value_line(plan, "load");
        EXPECT_TRUE(contains(load, "runs of 8 over ")) << plan;
        EXPECT_TRUE(contains(load, "16-byte vectors when the view allows")) << plan;
        // Few enough elements per thread that the row stays in registers.
        long long per_thread = number_after(load.substr(load.find("threads, ")), "threads, ");
        EXPECT_GT(per_thread, 0) << load;
        EXPECT_LE(per_thread, 32) << load;
    }
}

TEST(CudaCompile, RowReductionsStayInRegistersInStandardPrecision) {
    REQUIRE_NVRTC();
    Tensor<bf16> x({64, 8192}), y({64, 8192});
    auto args = row_args(x, y);
    std::string plan = cuda_text(bf16_row_softmax(), args, Precision::standard, What::plan);
    for (const char* op : {"reduce_max", "reduce_add"})
        EXPECT_TRUE(contains(value_line(plan, op), "in registers")) << op << "\n" << plan;
    // The row is never staged: shared memory holds one partial per warp (two areas
    // of at most 32 floats), not the 8192 x 4 bytes of the row.
    long long shared = number_after(plan, "shared memory: ");
    EXPECT_GT(shared, 0) << plan;
    EXPECT_LE(shared, 2 * 32 * 4) << plan;
    // The one-element results are broadcast from every thread's registers.
    EXPECT_TRUE(contains(value_line(plan, "broadcast"), "in registers, no data movement (every thread holds its one element)")) << plan;
    std::string ptx = cuda_text(bf16_row_softmax(), args, Precision::standard, What::ptx);
    EXPECT_TRUE(contains(ptx, "shfl.sync.bfly.b32"));
    // The float maximum is sm_80's max.NaN.f32 (the contract's NaN and signed-zero
    // rules in one instruction), not a chain of compares.
    EXPECT_TRUE(contains(ptx, "max.NaN.f32"));
    // Two reductions, two exchanges: at most three barriers (one more at the
    // program's start, where the previous program may still read).
    EXPECT_LE(count(ptx, "bar.sync"), 3) << "barriers";
}

TEST(CudaCompile, ExactPrecisionKeepsTheOrderedSumButNotAnOrderedMaximum) {
    REQUIRE_NVRTC();
    Tensor<bf16> x({64, 8192}), y({64, 8192});
    std::string plan = cuda_text(bf16_row_softmax(), row_args(x, y), Precision::exact, What::plan);
    // A float sum folds left to right (the contract's order); max gives the same bits in any order.
    EXPECT_TRUE(contains(value_line(plan, "reduce_add"), "ordered fold (exact)")) << plan;
    EXPECT_TRUE(contains(value_line(plan, "reduce_max"), "in registers")) << plan;
}

TEST(CudaCompile, SeveralRowsPerProgramReduceInRegistersAndOtherAxesStage) {
    REQUIRE_NVRTC();
    for (std::int64_t rows : {4, 16}) {
        Tensor<f32> x({64, 256}), y({64, 256});
        auto args = args_of(std::as_const(x).view(), y.view());
        std::string plan = cuda_text(f32_row_block(rows), args, Precision::standard, What::plan);
        for (const char* op : {"reduce_max", "reduce_add", "reduce_min"})
            EXPECT_TRUE(contains(value_line(plan, op), "in registers")) << rows << " rows, " << op << "\n" << plan;
        EXPECT_TRUE(contains(value_line(plan, "load"), "runs of 4 over ")) << plan;  // 4 f32 = 16 bytes
        std::string ptx = cuda_text(f32_row_block(rows), args, Precision::standard, What::ptx);
        EXPECT_TRUE(has_128bit_load(ptx));
        EXPECT_TRUE(has_128bit_store(ptx));
        EXPECT_TRUE(contains(plan, "spills 0 bytes stored, 0 bytes loaded")) << plan;
    }
    // A reduction over the leading axis (column sums) stays in registers too: each
    // thread folds its rows of its columns, the warps' partials meet in shared memory.
    auto cols = kernel("col_sum", [](View<const f32, 2> x, View<f32, 1> y) {
        auto r = axis("r", 32), c = axis("c", 64);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(1), 64))))) {
            y(coord(nest.index() * 64), shape(c)).store(reduce(x[coord(0, nest.index() * 64), shape(r, c)], r, add));
        }
    });
    Tensor<f32> x({32, 128}), y({128});
    std::string plan = cuda_text(cols, args_of(std::as_const(x).view(), y.view()), Precision::standard, What::plan);
    EXPECT_TRUE(contains(value_line(plan, "reduce_add"), "in registers: ")) << plan;
    EXPECT_FALSE(contains(plan, "staged")) << plan;
}

TEST(CudaCompile, RowsThatRunsCannotTileKeepElementAccesses) {
    REQUIRE_NVRTC();
    // 7 columns: a run of 4 and a partial one per row. The whole run moves as a
    // vector where the view allows (rows 16-byte aligned: not these, decided at run
    // time), the partial one element by element; the reductions mask the slots past
    // the row's end.
    Tensor<f32> x({64, 7}), y({64, 7});
    auto args = args_of(std::as_const(x).view(), y.view());
    std::string plan = cuda_text(f32_row_block(4), args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(value_line(plan, "load"), "runs of 4 over ")) << plan;
    EXPECT_TRUE(contains(value_line(plan, "load"), "the last run of a row partial")) << plan;
    EXPECT_TRUE(contains(value_line(plan, "reduce_add"), "in registers")) << plan;
    std::string ptx = cuda_text(f32_row_block(4), args, Precision::standard, What::ptx);
    EXPECT_TRUE(has_128bit_load(ptx));
    EXPECT_TRUE(contains(ptx, "ld.global.u32") || contains(ptx, "ld.global.f32")) << "the partial run element by element";
    EXPECT_TRUE(contains(ptx, ".entry kiln_row_block"));
}

// ---- The Hopper GEMM lowering (emit_gemm.h): the canonical tiled GEMM gets a second
// kernel built on TMA, an mbarrier ring and wgmma; anything else keeps the ordinary one.

namespace {

enum class GemmVariant { plain, scaled_epilogue, op_in_loop, load_in_epilogue };

// These problems are small: a launch would take the kernel at another tile than
// the program's (gemm_schedule.h: launch_tile, tested in CudaGemmSchedule). The tests
// here are about the lowering of the program's tile, so they ask for it
// (KILN_GEMM_RETILE=0).
struct ProgramsTileWidth {
    ProgramsTileWidth() { ::setenv("KILN_GEMM_RETILE", "0", 1); }
    ~ProgramsTileWidth() { ::unsetenv("KILN_GEMM_RETILE"); }
    ProgramsTileWidth(const ProgramsTileWidth&) = delete;
    ProgramsTileWidth& operator=(const ProgramsTileWidth&) = delete;
};

// The canonical GEMM of bench/cuda_bench.cpp with tile bm x bn x bk, and variants
// inside and outside the pattern.
template <Element In, Element Out>
Kernel tiled_gemm(std::int64_t bm, std::int64_t bn, std::int64_t bk, GemmVariant v = GemmVariant::plain, MmaOptions mo = {}) {
    return kernel("tiled_gemm", [=](View<const In, 2> A, View<const In, 2> B, View<Out, 2> C, Scalar<f32> alpha) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm)), gn = axis("block_n", ceil_div(B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 2})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc, mo);
                if (v == GemmVariant::op_in_loop) acc = acc * 0.5f;
            }
            auto out = v == GemmVariant::scaled_epilogue ? acc * alpha + 0.5f : acc;
            if (v == GemmVariant::load_in_epilogue) out = out + cast<f32>(A[coord(m0, 0), shape(m, n)]);
            C(coord(m0, n0), shape(m, n)).store(cast<Out>(out));
        }
    });
}

template <Element In, Element Out> std::vector<detail::Arg> gemm_args(std::int64_t M, std::int64_t N, std::int64_t K) {
    static std::deque<std::shared_ptr<void>> keep;  // the args point into these host tensors
    auto a = std::make_shared<Tensor<In>>(std::vector<std::int64_t>{M, K});
    auto b = std::make_shared<Tensor<In>>(std::vector<std::int64_t>{K, N});
    auto c = std::make_shared<Tensor<Out>>(std::vector<std::int64_t>{M, N});
    keep.insert(keep.end(), {a, b, c});
    return args_of(std::as_const(*a).view(), std::as_const(*b).view(), c->view(), 1.5f);
}

// The text of the GEMM kernel (after its marker) in a module's source.
std::string gemm_part(const std::string& source) {
    std::size_t at = source.find("the Hopper GEMM kernel of this program");
    return at == std::string::npos ? "" : source.substr(at);
}

// The plan's line about the GEMM kernel's registers.
std::string gemm_registers_line(const std::string& plan) {
    std::size_t at = plan.find("registers (GEMM kernel): ");
    return at == std::string::npos ? "" : plan.substr(at, plan.find('\n', at) - at);
}

}  // namespace

TEST(CudaCompile, CanonicalGemmLowersToTmaAndWgmma) {
    REQUIRE_NVRTC();
    const ProgramsTileWidth full_width;
    Tensor<bf16> a({512, 256}), b({256, 512});
    Tensor<bf16> c({512, 512});
    auto args = args_of(std::as_const(a).view(), std::as_const(b).view(), c.view(), 1.0f);
    auto k = tiled_gemm<bf16, bf16>(128, 256, 64);
    std::string ptx = cuda_text(k, args, Precision::standard, What::ptx);
    EXPECT_TRUE(contains(ptx, ".entry kiln_tiled_gemm_sm90")) << ptx.substr(0, 2000);
    EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
    EXPECT_TRUE(contains(ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"));
    EXPECT_TRUE(contains(ptx, "mbarrier.try_wait.parity"));
    EXPECT_TRUE(contains(ptx, "setmaxnreg.inc.sync.aligned.u32"));
    // Four k16 steps per 64-wide k tile, unrolled (NVVM may replicate the whole step).
    int wgmmas = count(ptx, "wgmma.mma_async.sync.aligned");
    EXPECT_TRUE(wgmmas >= 4 && wgmmas % 4 == 0) << wgmmas;
    // The ordinary kernel, for launches whose views TMA cannot take, joins the module
    // only when one needs it: the first compile is of the GEMM kernel alone.
    EXPECT_FALSE(contains(ptx, ".entry kiln_tiled_gemm("));
    const std::string both = cuda_test::generic_ptx(k, args, Precision::standard);
    EXPECT_TRUE(contains(both, ".entry kiln_tiled_gemm(")) << both.substr(0, 2000);
    EXPECT_TRUE(contains(both, ".entry kiln_tiled_gemm_sm90"));
    std::string plan = cuda_text(k, args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "lowering: wgmma pipeline (kiln_tiled_gemm_sm90): tile 128x256x64 (program's 128x256x64), 4 TMA stages"))
        << plan;
    EXPECT_TRUE(contains(plan, "2 consumer warpgroup(s) of wgmma.mma_async m64n256k16 + 1 producer warpgroup, 384 threads")) << plan;
    std::string regs = gemm_registers_line(plan);
    EXPECT_TRUE(contains(regs, "spills 0 bytes stored, 0 bytes loaded")) << plan;
    // The stack is the checked epilogue's copy of the accumulators and nothing more
    // (emit_gemm_sm90.cuh: store_tile_checked): 128 f32 per thread for n256 tiles.
    EXPECT_TRUE(contains(regs, "stack 512 bytes")) << plan;
    EXPECT_FALSE(contains(plan, "tensor-core instructions: 0")) << plan;
}

TEST(CudaCompile, CatalogHalfAndBrainGemmsLowerToWgmma) {
    REQUIRE_NVRTC();
    const ProgramsTileWidth full_width;
    // The catalog's typed GEMM (examples/typed_gemm.h) with its default 16x16x16
    // tile: too small for wgmma, so the kernel computes the same elements with
    // 128x128x64 tiles (reassociation is allowed, the epilogue is elementwise).
    auto check = [](const Kernel& k, const std::vector<detail::Arg>& args, const std::string& instruction) {
        std::string ptx = cuda_text(k, args, Precision::standard, What::ptx);
        EXPECT_TRUE(contains(ptx, instruction)) << ptx.substr(0, 2000);
        EXPECT_TRUE(contains(ptx, "cp.async.bulk.tensor.2d"));
        std::string plan = cuda_text(k, args, Precision::standard, What::plan);
        EXPECT_TRUE(contains(plan, "tile 128x128x64 (program's 16x16x16), 7 TMA stages")) << plan;
        EXPECT_TRUE(contains(gemm_registers_line(plan), "spills 0 bytes stored, 0 bytes loaded")) << plan;
    };
    Tensor<bf16> a({100, 45}), b({45, 70}), c({100, 70});
    check(catalog::make_typed_gemm_kernel<bf16, f32, bf16>("gemm_bf16", {}),
          args_of(std::as_const(a).view(), std::as_const(b).view(), c.view()), "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16");
    Tensor<f16> ha({100, 45}), hb({45, 70}), hc({100, 70});
    check(catalog::make_typed_gemm_kernel<f16, f32, f16>("gemm_f16", {}),
          args_of(std::as_const(ha).view(), std::as_const(hb).view(), hc.view()), "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16");
}

TEST(CudaCompile, GemmOutsideThePatternKeepsTheOrdinaryLowering) {
    REQUIRE_NVRTC();
    auto args = gemm_args<bf16, bf16>(256, 256, 128);
    auto ordinary = [&](const Kernel& k, Precision p, const std::string& why) {
        std::string ptx = cuda_text(k, args, p, What::ptx);
        EXPECT_FALSE(contains(ptx, "wgmma")) << why;
        EXPECT_FALSE(contains(ptx, "cp.async.bulk.tensor")) << why;
        EXPECT_FALSE(contains(cuda_text(k, args, p, What::plan), "lowering: wgmma")) << why;
        return ptx;
    };
    // Exact mode pins the contraction order.
    ordinary(tiled_gemm<bf16, bf16>(128, 128, 64), Precision::exact, "exact precision");
    // So does an mma that forbids reassociation.
    std::string strict = ordinary(tiled_gemm<bf16, bf16>(128, 128, 64, GemmVariant::plain, {.allow_reassociation = false}), Precision::standard,
                                  "no reassociation");
    EXPECT_FALSE(contains(strict, "mma.sync"));
    // An extra op in the k loop, or a load in the epilogue: today's tensor-core path.
    std::string in_loop = ordinary(tiled_gemm<bf16, bf16>(128, 128, 64, GemmVariant::op_in_loop), Precision::standard, "op in the loop");
    EXPECT_TRUE(contains(in_loop, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    ordinary(tiled_gemm<bf16, bf16>(128, 128, 64, GemmVariant::load_in_epilogue), Precision::standard, "load in the epilogue");
    // f32 operands without allow_tf32 (input precision is never narrowed silently).
    auto f32_args = gemm_args<f32, f32>(256, 256, 128);
    auto ordinary_f32 = [&](const Kernel& k, Precision p, const std::string& why) {
        EXPECT_FALSE(contains(cuda_text(k, f32_args, p, What::ptx), "wgmma")) << why;
        EXPECT_FALSE(contains(cuda_text(k, f32_args, p, What::plan), "lowering: wgmma")) << why;
    };
    ordinary_f32(tiled_gemm<f32, f32>(128, 128, 64), Precision::standard, "f32 without allow_tf32");
    // With allow_tf32: wgmma k8 tf32, B [K, N] copied transposed (wgmma reads tf32 K-major only).
    const Kernel tf32_gemm = tiled_gemm<f32, f32>(128, 128, 64, GemmVariant::plain, {.allow_tf32 = true});
    const std::string tf32 = cuda_text(tf32_gemm, f32_args, Precision::standard, What::ptx);
    // (m64nNk8: the launch's tile for this small problem may be narrower than the program's.)
    EXPECT_TRUE(contains(tf32, "k8.f32.tf32.tf32")) << tf32.substr(tf32.find("mma_async") == std::string::npos ? 0 : tf32.find("mma_async"), 300);
    EXPECT_TRUE(contains(tf32, "cp.async.bulk.tensor")) << "TMA";
    const std::string tf32_plan = cuda_text(tf32_gemm, f32_args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(tf32_plan, "k8 tf32 -> f32 (allow_tf32)")) << tf32_plan;
    EXPECT_TRUE(contains(tf32_plan, "B stored [K, N] (copied transposed at each launch: wgmma reads tf32 operands K-major only)")) << tf32_plan;
    // Exact precision keeps the contract's order (tf32 allowed or not).
    ordinary_f32(tf32_gemm, Precision::exact, "exact precision, tf32 allowed");
}

// bf16 tiles widened to f32 before an f32 mma (reassociation allowed) take the Hopper
// GEMM on bf16 wgmma: the widening and each product are exact in f32, so the kernel
// reads the operands as stored and converts nothing.
TEST(CudaCompile, GemmOperandsWidenedToF32AreReadAsStored) {
    REQUIRE_NVRTC();
    const Kernel k = kernel("gemm_widened", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 128), kk = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt))) {
                auto k0 = step.index() * 64;
                acc = mma(cast<f32>(A[coord(m0, k0), shape(m, kk)]), cast<f32>(B[coord(k0, n0), shape(kk, n)]), acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
    Tensor<bf16> a({256, 128}), b({128, 256}), c({256, 256});
    auto args = args_of(std::as_const(a).view(), std::as_const(b).view(), c.view());
    const std::string ptx = cuda_text(k, args, Precision::standard, What::ptx);
    EXPECT_TRUE(contains(ptx, "k16.f32.bf16.bf16")) << "bf16 wgmma";
    const std::string plan = cuda_text(k, args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "lowering: wgmma pipeline")) << plan;
    // f16 widened into a product with a bf16 one: the kinds differ, no Hopper GEMM.
    const Kernel mixed = kernel("gemm_widened_mixed", [](View<const f16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
        auto m = axis("m", 128), n = axis("n", 128), kk = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(mma(cast<f32>(A[coord(m0, 0), shape(m, kk)]), cast<f32>(B[coord(0, n0), shape(kk, n)]),
                                                            zeros<f32>(shape(m, n)))));
        }
    });
    Tensor<f16> ha({256, 64});
    Tensor<bf16> hb({64, 256}), hc({256, 256});
    const std::string mixed_plan =
        cuda_text(mixed, args_of(std::as_const(ha).view(), std::as_const(hb).view(), hc.view()), Precision::standard, What::plan);
    EXPECT_TRUE(contains(mixed_plan, "not the canonical GEMM: the operands are not both f16, both bf16")) << mixed_plan;
}

TEST(CudaCompile, GemmEpilogueAppliesTheProgramsElementwiseOps) {
    REQUIRE_NVRTC();
    const ProgramsTileWidth full_width;
    auto args = gemm_args<f16, f32>(256, 256, 128);
    std::string src = gemm_part(cuda_text(tiled_gemm<f16, f32>(64, 128, 64, GemmVariant::scaled_epilogue), args, Precision::standard,
                                          What::source));
    ASSERT_FALSE(src.empty());
    // acc * alpha (parameter 3) + 0.5, for both elements of a pair, stored as f32 pairs.
    EXPECT_TRUE(contains(src, "x0 * a3")) << src.substr(src.size() > 3000 ? src.size() - 3000 : 0);
    EXPECT_TRUE(contains(src, "0x1p-1f"));
    EXPECT_TRUE(contains(src, "make_float2("));
    std::string plan = cuda_text(tiled_gemm<f16, f32>(64, 128, 64, GemmVariant::scaled_epilogue), args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "tile 64x128x64 (program's 64x128x64)")) << plan;
    EXPECT_TRUE(contains(plan, "1 consumer warpgroup(s) of wgmma.mma_async m64n128k16 + 1 producer warpgroup, 256 threads")) << plan;
}

// ---- int8 tensor cores: i8 x i8 -> i32 on mma.sync m16n8k32 .s8, in both modes
// (integer products are exact and the s32 sums wrap like the contract's, in any order).

namespace {

// The plan's line about the ordinary kernel's registers.
std::string registers_line(const std::string& plan) {
    std::size_t at = plan.find("  registers: ");
    return at == std::string::npos ? "" : plan.substr(at, plan.find('\n', at) - at);
}

}  // namespace

TEST(CudaCompile, CatalogI8GemmUsesInt8TensorCoresInBothModes) {
    REQUIRE_NVRTC();
    // The catalog's gemm_i8 (examples/gemm_i8.cpp): typed GEMM, 16x16x16 tiles, i32 accumulator and output.
    auto k = catalog::make_typed_gemm_kernel<i8, i32, i32>("gemm_i8", {});
    Tensor<i8> a({100, 45}), b({45, 70});
    Tensor<i32> c({100, 70});
    auto args = args_of(std::as_const(a).view(), std::as_const(b).view(), c.view());
    for (Precision p : {Precision::exact, Precision::standard}) {
        SCOPED_TRACE(p == Precision::exact ? "exact" : "standard");
        std::string ptx = cuda_text(k, args, p, What::ptx);
        EXPECT_TRUE(contains(ptx, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")) << ptx.substr(0, 3000);
        EXPECT_FALSE(contains(ptx, "satfinite")) << "the contract wraps i32 sums; saturation would differ";
        // B stored [K, N] takes the Hopper GEMM too, from a copy transposed at each launch
        // (wgmma reads 8-bit operands K-major only); the module holds the mma.sync kernel
        // beside it because A's rows (45 bytes) are not 16-byte multiples apart.
        EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n")) << ptx.substr(0, 3000);
        EXPECT_FALSE(contains(ptx, "_transpose")) << "the transposing kernel is a module of its own (staging_kernels.h)";
        std::string plan = cuda_text(k, args, p, What::plan);
        EXPECT_TRUE(contains(plan, "B stored [K, N] (copied transposed at each launch")) << plan;
        EXPECT_TRUE(contains(plan, "tensor cores: mma.sync m16n8k32 s8 -> s32")) << plan;
        EXPECT_FALSE(contains(plan, "tensor-core instructions: 0")) << plan;
        EXPECT_FALSE(contains(plan, "mma ops on tensor cores: 0")) << plan;
        std::string regs = registers_line(plan);
        EXPECT_TRUE(contains(regs, "spills 0 bytes stored, 0 bytes loaded")) << plan;
    }
}

// An i8 linear layer, X [M, K] against W [N, K], takes the Hopper GEMM kernel on wgmma
// s8 -> s32 in both precisions: integer sums modulo 2^32 are the ordered fold's bits in
// any order, so exact mode takes it too (passes/contraction.cpp: wgmma_ready).
TEST(CudaCompile, I8LinearLayerTakesTheHopperKernelInBothModes) {
    REQUIRE_NVRTC();
    auto k = kernel("linear_i8", [](View<const i8, 2> X, View<const i8, 2> W, View<i32, 2> Y) {
        auto gm = axis("gm", ceil_div(X.extent(0), 128)), gn = axis("gn", ceil_div(W.extent(0), 128)), kt = axis("kt", ceil_div(X.extent(1), 32));
        auto m = axis("m", 128), n = axis("n", 128), kk = axis("k", 32);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<i32>(shape(m, n));
            for (auto& step : nest.serial(shape(kt))) {
                auto k0 = step.index() * 32;
                acc = mma(X[coord(m0, k0), shape(m, kk)], W[coord(n0, k0), shape(n, kk)], acc);
            }
            Y(coord(m0, n0), shape(m, n)).store(acc + 1);
        }
    });
    Tensor<i8> x({256, 512}), w({384, 512});
    Tensor<i32> y({256, 384});
    auto args = args_of(std::as_const(x).view(), std::as_const(w).view(), y.view());
    for (Precision p : {Precision::exact, Precision::standard}) {
        SCOPED_TRACE(p == Precision::exact ? "exact" : "standard");
        const std::string ptx = cuda_text(k, args, p, What::ptx);
        EXPECT_TRUE(contains(ptx, "k32.s32.s8.s8")) << "wgmma m64nNk32: a 32-wide k step of 32 bytes";
        EXPECT_FALSE(contains(ptx, "satfinite")) << "the contract wraps i32 sums";
        const std::string plan = cuda_text(k, args, p, What::plan);
        EXPECT_TRUE(contains(plan, "k32 s8 -> s32")) << plan;
        // (The launch's tile for this small problem may be narrower; the k step is a 128-byte box row.)
        EXPECT_TRUE(contains(plan, "x128 (program's 128x128x32)")) << plan;
    }
}

TEST(CudaCompile, I8MmaIntoAnI8AccumulatorKeepsTheOrderedLoop) {
    REQUIRE_NVRTC();
    // i8 x i8 -> i8 wraps every product and sum to 8 bits; s8 tensor cores accumulate
    // in 32 bits, so they would not give the contract's bits.
    auto k = kernel("gemm_i8_i8", [](View<const i8, 2> A, View<const i8, 2> B, View<i8, 2> C) {
        auto m = axis("m", 16), n = axis("n", 16), kk = axis("k", 32);
        C(coord(0, 0), shape(m, n)).store(mma(A[coord(0, 0), shape(m, kk)], B[coord(0, 0), shape(kk, n)], zeros<i8>(shape(m, n))));
    });
    Tensor<i8> a({16, 32}), b({32, 16}), c({16, 16});
    auto args = args_of(std::as_const(a).view(), std::as_const(b).view(), c.view());
    for (Precision p : {Precision::exact, Precision::standard}) {
        EXPECT_FALSE(contains(cuda_text(k, args, p, What::ptx), "mma.sync"));
        EXPECT_TRUE(contains(cuda_text(k, args, p, What::plan), "ordered k-loop (contract order)"));
    }
}

// ---- attention on tensor cores: bf16 q, k, v with f32 scores and accumulator (the
// FlashAttention-2 structure of lib/ and examples/, typed for the tensor cores).

namespace {

Kernel bf16_attention(std::int64_t block) {
    return kernel("bf16_attention", [=](View<const bf16, 2> q, View<const bf16, 2> k, View<const bf16, 2> v, View<bf16, 2> out) {
        auto m = axis("query", block), s = axis("key", block);
        auto d = axis("channel", q.extent(1)), dv = axis("value_channel", v.extent(1));
        for (auto& nest : parallel(shape(axis("query_blocks", ceil_div(q.extent(0), block))))) {
            auto q0 = nest.index() * block;
            auto query = q[coord(q0, 0), shape(m, d)];
            auto row_max = full<f32>(shape(m), -1e30f);
            auto row_sum = zeros<f32>(shape(m));
            auto acc = zeros<f32>(shape(m, dv));
            for (auto& step : nest.pipeline(shape(axis("key_blocks", ceil_div(k.extent(0), block))))) {
                auto k0 = step.index() * block;
                auto score = mma(query, k[coord(k0, 0), shape(s, d)], zeros<f32>(shape(m, s)));
                auto masked = ite(iota(s) + k0 < k.extent(0), score, -1e30f);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto probability = exp(masked - next_max);
                row_sum = row_sum * alpha + reduce(probability, s, add);
                acc = mma(cast<bf16>(probability), v[coord(k0, 0), shape(s, dv)], acc * alpha);
                row_max = next_max;
            }
            out(coord(q0, 0), shape(m, dv)).store(cast<bf16>(acc / row_sum));
        }
    });
}

}  // namespace

// 32 channels and 32-row blocks: the FlashAttention kernel pads the channels to one
// 64-channel box (passes::attention_kernel_head_dim); the generic kernel beside it, the
// fallback of launches that kernel refuses, puts both products on mma.sync.
TEST(CudaCompile, Bf16AttentionRunsBothProductsOnTensorCoresWithoutSpills) {
    REQUIRE_NVRTC();
    Tensor<bf16> q({200, 32}), k({200, 32}), v({200, 32}), out({200, 32});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), out.view());
    EXPECT_GE(count(generic_ptx(bf16_attention(32), args, Precision::standard), "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 2);
    std::string plan = cuda_text(bf16_attention(32), args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "head dims 32/32 (computed as 64/64")) << plan;
    EXPECT_FALSE(contains(plan, "tensor-core instructions: 0")) << plan;
    EXPECT_TRUE(contains(plan, "spills 0 bytes stored, 0 bytes loaded")) << plan;
    // Exact precision keeps both products in the pinned order: no tensor cores.
    EXPECT_FALSE(contains(cuda_text(bf16_attention(32), args, Precision::exact, What::ptx), "mma.sync"));
    // With 64 channels the program takes the FlashAttention kernel (its row maximum
    // starts finite, so on the kernel's own 128-key blocks); the generic kernel beside
    // it, the fallback of launches that kernel refuses, keeps both products on mma.sync.
    Tensor<bf16> q64({200, 64}), k64({200, 64}), v64({200, 64}), out64({200, 64});
    auto args64 = args_of(std::as_const(q64).view(), std::as_const(k64).view(), std::as_const(v64).view(), out64.view());
    EXPECT_TRUE(contains(cuda_text(bf16_attention(32), args64, Precision::standard, What::plan), "(the program's blocks have 32 keys"));
    EXPECT_GE(count(generic_ptx(bf16_attention(32), args64, Precision::standard), "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), 2);
}

// A constant tile holding an infinity or a NaN becomes a __device__ table of the
// elements' bits: NVRTC accepts no non-constant initializer there (fuzz seed 1000119
// was rejected with "dynamic initialization is not supported").
template <Element T> Kernel nonfinite_table_kernel(bool finite = false) {
    return kernel("nonfinite_table", [=](View<T, 2> y) {
        const double inf = finite ? 5.0 : std::numeric_limits<double>::infinity(), nan = finite ? 7.0 : std::numeric_limits<double>::quiet_NaN();
        auto c = from_vec<T>({T(1.5), T(inf), T(-inf), T(nan), T(-0.0), T(2), T(3), T(0.25)}, 2, 4);
        for (auto& nest : parallel(shape(axis("one", 1)))) y(coord(nest.index(), 0), shape(2, 4)).store(c);
    });
}

TEST(CudaCompile, NonFiniteConstantTablesCompileAsBits) {
    REQUIRE_NVRTC();
    Tensor<f32> y32({2, 4});
    Tensor<f64> y64({2, 4});
    std::string s32 = cuda_text(nonfinite_table_kernel<f32>(), args_of(y32.view()), Precision::exact, What::source);
    EXPECT_TRUE(contains(s32, "__device__ const unsigned kiln_const_")) << s32.substr(s32.size() > 3000 ? s32.size() - 3000 : 0);
    // 1.5, +inf, -inf, canonical NaN as f32 bits.
    EXPECT_TRUE(contains(s32, "0x3fc00000u, 0x7f800000u, 0xff800000u, 0x7fc00000u"));
    EXPECT_TRUE(contains(s32, "= __uint_as_float(kiln_const_"));
    std::string s64 = cuda_text(nonfinite_table_kernel<f64>(), args_of(y64.view()), Precision::exact, What::source);
    EXPECT_TRUE(contains(s64, "__device__ const unsigned long long kiln_const_"));
    EXPECT_TRUE(contains(s64, "0x7ff0000000000000ULL"));
    EXPECT_TRUE(contains(s64, "__longlong_as_double((long long)kiln_const_"));
    for (Precision p : {Precision::exact, Precision::standard}) {
        EXPECT_TRUE(contains(cuda_text(nonfinite_table_kernel<f32>(), args_of(y32.view()), p, What::ptx), ".entry kiln_nonfinite_table"));
        EXPECT_TRUE(contains(cuda_text(nonfinite_table_kernel<f64>(), args_of(y64.view()), p, What::ptx), ".entry kiln_nonfinite_table"));
    }
    // A finite table keeps its literals.
    std::string fin = cuda_text(nonfinite_table_kernel<f32>(true), args_of(y32.view()), Precision::exact, What::source);
    EXPECT_TRUE(contains(fin, "__device__ const float kiln_const_"));
    EXPECT_TRUE(contains(fin, "0x1.8p+0f, 0x1.4p+2f"));
}

// KILN_CUDA_SOURCE_DIR (targets/cuda/source_override.h): an edited dump of a kernel
// compiles in place of its generated source, the plan names the file, and a file
// without the entry point the launch calls is refused by name.
TEST(CudaCompile, KilnCudaPtxasOptionsReachPtxasAndARejectedOneNamesTheKnob) {
    REQUIRE_NVRTC();
    const auto has = [](const std::vector<std::string>& options, const std::string& o) {
        return std::find(options.begin(), options.end(), o) != options.end();
    };
    ::setenv("KILN_CUDA_PTXAS_OPTIONS", "-O1", 1);
    EXPECT_TRUE(has(cu::nvrtc_options(cu::EmitOptions{}, "sm_90a"), "--ptxas-options=-O1"));
    // A shape no other test compiles: neither cache holds its kernel, so ptxas runs.
    Tensor<f32> x({7, 45}), y({7, 45});
    auto args = args_of(std::as_const(x).view(), y.view());
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, Precision::exact, What::ptx), ".entry kiln_softmax"));
    ::setenv("KILN_CUDA_PTXAS_OPTIONS", "--no-such-ptxas-option", 1);
    Tensor<f32> x2({7, 46}), y2({7, 46});
    try {
        cuda_text(softmax_kernel(), args_of(std::as_const(x2).view(), y2.view()), Precision::exact, What::ptx);
        ADD_FAILURE() << "ptxas accepted an option it does not have";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "cuda: NVRTC failed with KILN_CUDA_PTXAS_OPTIONS=--no-such-ptxas-option")) << e.what();
    }
    ::unsetenv("KILN_CUDA_PTXAS_OPTIONS");
    EXPECT_FALSE(has(cu::nvrtc_options(cu::EmitOptions{}, "sm_90a"), "--ptxas-options=--no-such-ptxas-option"));
}

// KILN_CUDA_FAST_COMPILE (nvrtc.h): NVRTC's -Ofast-compile at the level named, part of
// the cache key through the options; another value is an error naming the variable and
// its choices.
TEST(CudaCompile, KilnCudaFastCompileReachesNvrtcAndAnUnknownLevelNamesTheKnob) {
    REQUIRE_NVRTC();
    const auto fast_compile = [](const std::vector<std::string>& options) {
        return std::count_if(options.begin(), options.end(), [](const std::string& o) { return o.starts_with("--Ofast-compile"); });
    };
    ::setenv("KILN_CUDA_FAST_COMPILE", "min", 1);
    const auto options = cu::nvrtc_options(cu::EmitOptions{}, "sm_90a");
    EXPECT_EQ(std::count(options.begin(), options.end(), "--Ofast-compile=min"), 1);
    // A shape no other test compiles, so NVRTC runs with the option.
    Tensor<f32> x({7, 47}), y({7, 47});
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args_of(std::as_const(x).view(), y.view()), Precision::exact, What::ptx), ".entry kiln_softmax"));
    ::setenv("KILN_CUDA_FAST_COMPILE", "fastest", 1);
    try {
        (void)cu::nvrtc_options(cu::EmitOptions{}, "sm_90a");
        ADD_FAILURE() << "an unknown level was taken";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "KILN_CUDA_FAST_COMPILE='fastest' is not one of: min, mid, max")) << e.what();
    }
    ::unsetenv("KILN_CUDA_FAST_COMPILE");
    EXPECT_EQ(fast_compile(cu::nvrtc_options(cu::EmitOptions{}, "sm_90a")), 0);
}

TEST(CudaCompile, AnEditedSourceFromKilnCudaSourceDirReplacesTheGeneratedOne) {
    REQUIRE_NVRTC();
    Tensor<f32> x({5, 33}), y({5, 33});
    auto args = args_of(std::as_const(x).view(), y.view());
    const std::string generated = cuda_text(softmax_kernel(), args, Precision::standard, What::source);
    ASSERT_TRUE(contains(generated, " kiln_softmax("));
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kiln-source-dir-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::filesystem::path file = dir / "softmax.cu";
    std::ofstream(file) << generated << "\n__device__ int kiln_edited_marker;\n";
    ::setenv("KILN_CUDA_SOURCE_DIR", dir.c_str(), 1);
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, Precision::standard, What::ptx), "kiln_edited_marker"));
    EXPECT_TRUE(contains(cuda_text(softmax_kernel(), args, Precision::standard, What::plan),
                         "  source: " + file.string() + ", in place of the generated one (KILN_CUDA_SOURCE_DIR)"));
    // Another kernel's name: no file, the generated source.
    EXPECT_FALSE(contains(gemm_ptx<f16>(Precision::standard), "kiln_edited_marker"));
    std::string renamed = generated;
    renamed.replace(renamed.find(" kiln_softmax("), 14, " kiln_other(");
    std::ofstream(file, std::ios::trunc) << renamed;
    try {
        cuda_text(softmax_kernel(), args, Precision::standard, What::ptx);
        ADD_FAILURE() << "an edited source without the kernel's entry point compiled";
    } catch (const Error& e) {
        EXPECT_TRUE(contains(e.what(), "KILN_CUDA_SOURCE_DIR: " + file.string() + " has no kernel kiln_softmax, which the launch calls")) << e.what();
    }
    ::unsetenv("KILN_CUDA_SOURCE_DIR");
    std::filesystem::remove_all(dir);
    EXPECT_FALSE(contains(cuda_text(softmax_kernel(), args, Precision::standard, What::ptx), "kiln_edited_marker"));
}
