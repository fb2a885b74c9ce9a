// The Hopper GEMM kernel for GEMMs written as users write them: epilogues that
// read memory (a bias vector, a residual tile, a per-row scale), two outputs, and
// a weight stored [N, K]. Compiled by NVRTC for sm_90a (no device needed): each
// must get the TMA + wgmma kernel, without spills, with the epilogue's loads in it.
#include <gtest/gtest.h>

#include <deque>

#include "cuda_test_util.h"
#include "gemm_kernels.h"
#include "targets/cuda/nvrtc.h"

namespace kiln {
namespace {

using namespace cuda_test;
using gemm_test::Epilogue;


std::vector<detail::Arg> args_for(bool b_nk) {
    static std::deque<std::shared_ptr<void>> keep;
    auto a = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{512, 256});
    auto b = std::make_shared<Tensor<bf16>>(b_nk ? std::vector<std::int64_t>{384, 256} : std::vector<std::int64_t>{256, 384});
    auto bias = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{384});
    auto r = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{512, 384});
    auto c = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{512, 384});
    auto d = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{512, 384});
    keep.insert(keep.end(), {a, b, bias, r, c, d});
    return args_of(std::as_const(*a).view(), std::as_const(*b).view(), std::as_const(*bias).view(), std::as_const(*r).view(), c->view(),
                   d->view(), 1.5f);
}

// The GEMM kernel's part of a module's source.
std::string gemm_part(const std::string& source) {
    std::size_t at = source.find("the Hopper GEMM kernel of this program");
    return at == std::string::npos ? "" : source.substr(at);
}

void expect_wgmma_kernel(Epilogue e, bool b_nk, const std::vector<std::string>& in_source, const std::string& in_plan) {
    auto k = gemm_test::gemm(e, b_nk);
    auto args = args_for(b_nk);
    std::string ptx = cuda_text(k, args, Precision::standard, What::ptx);
    EXPECT_TRUE(contains(ptx, ".entry kiln_gemm_sm90")) << ptx.substr(0, 1500);
    // (The kernel the launch runs: 512 x 384 on the program's 128x128 tiles would
    // leave the device idle, so it runs narrower ones, gemm_schedule.h.)
    EXPECT_TRUE(contains(ptx, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16"));
    EXPECT_TRUE(contains(ptx, "cp.async.bulk.tensor.2d"));
    std::string src = gemm_part(cuda_text(k, args, Precision::standard, What::source));
    for (const auto& part : in_source) EXPECT_TRUE(contains(src, part)) << part << "\n" << src.substr(src.size() > 4000 ? src.size() - 4000 : 0);
    std::string plan = cuda_text(k, args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, in_plan)) << plan;
    std::size_t at = plan.find("registers (GEMM kernel): ");
    ASSERT_NE(at, std::string::npos) << plan;
    EXPECT_TRUE(contains(plan.substr(at, plan.find('\n', at) - at), "spills 0 bytes stored, 0 bytes loaded")) << plan;
}

TEST(CudaGemmEpilogue, BiasVectorAndReluFuseIntoTheWgmmaKernel) {
    REQUIRE_NVRTC();
    // The bias (argument 2) is read at the output's column, masked by its extent
    // except in tiles inside it (and inside the output, whose pairs are then stored
    // without checks).
    expect_wgmma_kernel(Epilogue::bias_relu, false,
                        {"(kiln_in || (c < a2_e0)) ? kc::b2f(a2[c * a2_s0])", "(kiln_in || ((c + 1) < a2_e0))",
                         "return re <= kiln_rows && ce <= kiln_cols && ce <= a2_e0 && re <= a4_e0 && ce <= a4_e1 && a4_pairs;",
                         "if constexpr (kiln_in) {\n            unsigned short* const p = a4 + r * a4_s0 + c;"},
                        "1 load(s) fused into the epilogue");
}

TEST(CudaGemmEpilogue, ResidualTileAndScalarParameter) {
    REQUIRE_NVRTC();
    expect_wgmma_kernel(Epilogue::residual_scale, false, {"(kiln_in || (r < a3_e0 && c < a3_e1))", "re <= a3_e0 && ce <= a3_e1", "x0 * a6"}, "1 load(s) fused into the epilogue");
}

// C += A B: the residual the accumulator starts from is read at the output's element
// and added to the sum from zero.
TEST(CudaGemmEpilogue, AnAccumulatorStartingFromATileAddsItAfterTheSum) {
    REQUIRE_NVRTC();
    expect_wgmma_kernel(Epilogue::start_from_residual, false, {"(kiln_in || (r < a3_e0 && c < a3_e1))", "(x0 + e1_0)", "(x1 + e1_1)"},
                        "1 load(s) fused into the epilogue");
}

// A column value (the bias along n) added to a fill of a constant: the fill, the
// same for every element, is computed where the column values are too. Once as the
// accumulator's start (zeros + bias), once in the epilogue (0.5 + bias): NVRTC
// rejected both while the fill was computed in the element functor only.
TEST(CudaGemmEpilogue, AConstantFillBesideAColumnVectorCompiles) {
    REQUIRE_NVRTC();
    for (bool as_start : {true, false}) {
        SCOPED_TRACE(as_start);
        auto k = kernel("gemm_fill_and_bias", [as_start](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias, View<const bf16, 2>,
                                                         View<bf16, 2> C, View<bf16, 2>, Scalar<f32>) {
            auto gm = axis("block_m", ceil_div(A.extent(0), 128)), gn = axis("block_n", ceil_div(B.extent(1), 128));
            auto kt = axis("k_tiles", ceil_div(A.extent(1), 64));
            auto m = axis("m", 128), n = axis("n", 128), kk = axis("k", 64);
            for (auto& nest : parallel(shape(gm, gn))) {
                auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
                auto b = cast<f32>(bias[coord(n0), shape(n)]);
                auto acc = as_start ? zeros<f32>(shape(m, n)) + b : zeros<f32>(shape(m, n));
                for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                    auto k0 = step.index() * 64;
                    acc = mma(A[coord(m0, k0), shape(m, kk)], B[coord(k0, n0), shape(kk, n)], acc);
                }
                C(coord(m0, n0), shape(m, n)).store(cast<bf16>(as_start ? acc : acc + (full<f32>(shape(m, n), 0.5f) + b)));
            }
        });
        auto args = args_for(false);
        std::string ptx = cuda_text(k, args, Precision::standard, What::ptx);
        EXPECT_TRUE(contains(ptx, ".entry kiln_gemm_fill_and_bias_sm90")) << ptx.substr(0, 1500);
    }
}

TEST(CudaGemmEpilogue, PerRowScaleIsReadOncePerRow) {
    REQUIRE_NVRTC();
    expect_wgmma_kernel(Epilogue::row_scale, false, {"(kiln_in || (r < a2_e0)) ? kc::b2f(a2[r * a2_s0])", "&& re <= a2_e0 &&"}, "1 load(s) fused into the epilogue");
}

TEST(CudaGemmEpilogue, PreAndPostActivationStoreToTwoOutputs) {
    REQUIRE_NVRTC();
    // Both outputs bf16: inside the bounds, each through the quad transpose in whole
    // 16-byte chunks when both have 16-byte rows; the pair stores otherwise.
    expect_wgmma_kernel(Epilogue::two_outputs, false,
                        {"a4 + r * a4_s0 + c", "a5 + r * a5_s0 + c", "if (o == 0) *reinterpret_cast<uint4*>(a4 + r * a4_s0 + c) = v;",
                         "if (o == 1) *reinterpret_cast<uint4*>(a5 + r * a5_s0 + c) = v;", "a4_rows16 && a5_rows16)",
                         "kg::make_quad_stores<2>("},
                        "output stores in whole 16-byte chunks");
}

TEST(CudaGemmEpilogue, TwoByteOutputsStoreWholeSixteenByteChunks) {
    REQUIRE_NVRTC();
    // The quad transpose's shuffles and the 16-byte stores are in the kernel.
    auto args = args_for(false);
    std::string ptx = cuda_text(gemm_test::gemm(Epilogue::bias_relu, false), args, Precision::standard, What::ptx);
    std::string gemm = ptx.substr(ptx.find(".entry kiln_gemm_sm90"));
    EXPECT_TRUE(contains(gemm, "shfl.sync.bfly.b32")) << gemm.substr(0, 2000);
    EXPECT_TRUE(contains(gemm, "st.global.v4.b32") || contains(gemm, "st.global.v4.u32")) << gemm.substr(0, 2000);
    // An f32 output keeps the pair stores (8 bytes a pair), and the plan says so.
    Kernel f32_out = kernel("gemm_f32_out", [](View<const bf16, 2> A, View<const bf16, 2> B, View<f32, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 128)), gn = axis("block_n", ceil_div(B.extent(1), 128));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt))) acc = mma(A[coord(m0, step.index() * 64), shape(m, k)], B[coord(step.index() * 64, n0), shape(k, n)], acc);
            C(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
    Tensor<bf16> a({512, 256}), b({256, 384});
    Tensor<f32> c({512, 384});
    auto f32_args = args_of(std::as_const(a).view(), std::as_const(b).view(), c.view());
    std::string plan = cuda_text(f32_out, f32_args, Precision::standard, What::plan);
    EXPECT_TRUE(contains(plan, "wgmma pipeline")) << plan;
    EXPECT_TRUE(contains(plan, "output stores in pairs of elements (an output of 4-byte elements")) << plan;
    EXPECT_FALSE(contains(gemm_part(cuda_text(f32_out, f32_args, Precision::standard, What::source)), "kg::make_quad_stores<"));
}

TEST(CudaGemmEpilogue, WeightStoredNByKRunsKMajorOnWgmma) {
    REQUIRE_NVRTC();
    expect_wgmma_kernel(Epilogue::bias_relu, true, {"kg::gemm_sm90<128, 64, 64, 8, false, true, false, 1, 0, kg::Wgmma>"}, "B stored [N, K] (K-major)");
    auto args = args_for(true);
    std::string ptx = cuda_text(gemm_test::gemm(Epilogue::bias_relu, true), args, Precision::standard, What::ptx);
    // imm-trans-b = 0: B is read K-major, like A.
    EXPECT_TRUE(contains(ptx, "p, 1, 1, 0, 0;")) << ptx.substr(0, 1000);
}

// A stored [K, M] (a gradient's X^T dY), written as `mma` contracting the shared axis
// of an At[k0, m0] tile of [k, m], or as transpose() of it: the kernel loads A in
// boxes of [bk][64 m] and the wgmma reads it transposed (imm-trans-a = 1); with B
// stored [N, K] too, both flags flip.
TEST(CudaGemmEpilogue, AStoredKByMRunsMMajorOnWgmma) {
    REQUIRE_NVRTC();
    auto make = [](bool spelled_transpose, bool b_nk) {
        return kernel("gemm_at", [spelled_transpose, b_nk](View<const bf16, 2> At, View<const bf16, 2> B, View<bf16, 2> C) {
            auto M = At.extent(1), K = At.extent(0), N = C.extent(1);
            auto gm = axis("gm", ceil_div(M, 128)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 64));
            auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
            for (auto& nest : parallel(shape(gm, gn))) {
                auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
                auto acc = zeros<f32>(shape(m, n));
                for (auto& step : nest.pipeline(shape(kt))) {
                    auto k0 = step.index() * 64;
                    auto b = b_nk ? B[coord(n0, k0), shape(n, k)] : B[coord(k0, n0), shape(k, n)];
                    if (spelled_transpose) acc = mma(transpose(At[coord(k0, m0), shape(k, m)]), b, acc);
                    else acc = mma(At[coord(k0, m0), shape(k, m)], b, acc);
                }
                C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
            }
        });
    };
    Tensor<bf16> at({320, 512}), b({320, 384}), bt({384, 320}), c({512, 384});
    for (bool b_nk : {false, true})
        for (bool spelled_transpose : {false, true}) {
            SCOPED_TRACE(std::string(spelled_transpose ? "transpose(At tile)" : "At tile") + (b_nk ? ", B [N, K]" : ""));
            auto args = args_of(std::as_const(at).view(), std::as_const(b_nk ? bt : b).view(), c.view());
            const Kernel k = make(spelled_transpose, b_nk);
            const std::string plan = cuda_text(k, args, Precision::standard, What::plan);
            EXPECT_TRUE(contains(plan, "A stored [K, M] (M-major)")) << plan;
            EXPECT_EQ(contains(plan, "B stored [N, K] (K-major)"), b_nk) << plan;
            const std::string src = gemm_part(cuda_text(k, args, Precision::standard, What::source));
            // <bm, bn, bk, stages, A_MMAJOR, B_KMAJOR, SPLIT_K, CLUSTER, CP_ASYNC, Mma>
            EXPECT_TRUE(contains(src, std::string(", true, ") + (b_nk ? "true" : "false") + ", false, 1, 0, kg::Wgmma>("))
                << src.substr(src.find("kg::gemm_sm90<") == std::string::npos ? 0 : src.find("kg::gemm_sm90<"), 200);
            EXPECT_FALSE(contains(src, "permute")) << "the kernel reads the tile transposed";
            const std::string ptx = cuda_text(k, args, Precision::standard, What::ptx);
            EXPECT_TRUE(contains(ptx, b_nk ? "p, 1, 1, 1, 0;" : "p, 1, 1, 1, 1;")) << "imm-trans-a = 1";
        }
}

}  // namespace
}  // namespace kiln
