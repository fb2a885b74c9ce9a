// The cuda target without a device: kernels are emitted and compiled by NVRTC for
// sm_90a (offline), diagnostics name the user's line, and the PTX has the
// instructions each precision mode promises.
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "targets/cuda/nvrtc.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

bool have_nvrtc() { return !cu::nvrtc_version().empty(); }
#define REQUIRE_NVRTC() \
    if (!have_nvrtc()) GTEST_SKIP() << "no NVRTC: " << [] { std::string w; cu::nvrtc_version(&w); return w; }()

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
    return cuda_text(gemm_kernel<In>(mo), args_of(std::as_const(a).view(), std::as_const(b).view(), c.view()), p, What::ptx);
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
        EXPECT_TRUE(contains(ptx, "bar.sync")) << "reductions stage through shared memory between barriers";
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
    EXPECT_TRUE(contains(plan, "registers: ")) << plan;
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
        EXPECT_TRUE(contains(msg, "permute at cuda_compile_test.cpp:" + std::to_string(line))) << msg;
        EXPECT_TRUE(contains(msg, "stages 262144 bytes through shared memory")) << msg;
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
