// The Hopper GEMM kernel on a device for GEMMs written as users write them
// (tests/unit/gemm_kernels.h): bias vector + relu, residual tile with a scalar
// scale, per-row scale (its vector shorter than the rows: the rest read zero), pre-
// and post-activation outputs, and a weight stored [N, K]. Each against an f64
// reference from the same rounded inputs on a ragged shape (odd row strides too), every element written,
// and the TMA kernel (not the fallback) must have run. Without a device every test skips.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "cuda_test_util.h"
#include "gemm_kernels.h"
#include "targets/cuda/tensor_map_cache.h"

using namespace kiln;
using gemm_test::Epilogue;


namespace {

template <class T> Tensor<T> random_tensor(std::vector<std::int64_t> extents, unsigned seed) {
    Tensor<T> t(extents);
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> d(-1, 1);
    for (auto& x : t.values()) x = T(d(g));
    return t;
}

double rel_l2(const Tensor<bf16>& got, const std::vector<double>& ref, std::int64_t* bad) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        double g = double(got.values()[i]);
        if (!std::isfinite(g)) ++*bad;
        num += (g - ref[i]) * (g - ref[i]);
        den += ref[i] * ref[i];
    }
    return std::sqrt(num / std::max(den, 1e-300));
}

void check(Epilogue e, bool b_nk, std::int64_t M, std::int64_t N, std::int64_t K, const Kernel* kernel = nullptr) {
    const float alpha = 1.5f;
    auto a = random_tensor<bf16>({M, K}, 1), b = random_tensor<bf16>(b_nk ? std::vector<std::int64_t>{N, K} : std::vector<std::int64_t>{K, N}, 2);
    auto bias = random_tensor<bf16>({N}, 3), r = random_tensor<bf16>({M, N}, 4);
    Tensor<bf16> c({M, N}), d({M, N});
    for (auto* t : {&c, &d})
        for (auto& x : t->values()) x = bf16(std::numeric_limits<double>::quiet_NaN());
    const auto ad = a.to(cuda()), bd = b.to(cuda()), biasd = bias.to(cuda()), rd = r.to(cuda());
    auto cd = c.to(cuda()), dd = d.to(cuda());
    // A GEMM launch looks up A's and B's tensor maps (encoded, or found again when
    // a freed buffer's address comes back with the same shape); the fallback does not.
    auto lookups = [] { return cu::tensor_map_cache().counts().encodes + cu::tensor_map_cache().counts().hits; };
    const auto before = lookups();
    (kernel ? *kernel : gemm_test::gemm(e, b_nk)).launch(cuda(), ad.view(), bd.view(), biasd.view(), rd.view(), cd.view(), dd.view(), alpha);
    EXPECT_EQ(lookups(), before + 2) << "the TMA + wgmma kernel did not run";
    auto gc = cd.to(host()), gd = dd.to(host());
    std::vector<double> rc(static_cast<std::size_t>(M * N)), rdv(rc.size());
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (std::int64_t k = 0; k < K; ++k) acc += double(a[i * K + k]) * double(b_nk ? b[j * K + k] : b[k * N + j]);
            double bj = double(bias[j]), out = 0, out2 = 0;
            switch (e) {
                case Epilogue::plain:
                case Epilogue::masked_operands: out = acc; break;
                case Epilogue::bias_relu: out = std::max(acc + bj, 0.0); break;
                case Epilogue::residual_scale: out = acc * alpha + double(r[i * N + j]); break;
                case Epilogue::start_from_residual: out = acc + double(r[i * N + j]); break;
                case Epilogue::two_outputs: out = acc + bj, out2 = std::max(acc + bj, 0.0); break;
                case Epilogue::row_scale: out = acc * (i < N ? double(bias[i]) : 0.0); break;
                default: FAIL() << "not a GEMM of the pattern";
            }
            rc[static_cast<std::size_t>(i * N + j)] = out;
            rdv[static_cast<std::size_t>(i * N + j)] = out2;
        }
    std::int64_t bad = 0;
    EXPECT_LT(rel_l2(gc, rc, &bad), 8e-3) << M << "x" << N << "x" << K;
    if (e == Epilogue::two_outputs) EXPECT_LT(rel_l2(gd, rdv, &bad), 8e-3);
    EXPECT_EQ(bad, 0) << "elements not written or not finite";
}

TEST(CudaGemmEpilogueDevice, BiasAndRelu) {
    REQUIRE_DEVICE();
    check(Epilogue::bias_relu, false, 300, 264, 200);
}

TEST(CudaGemmEpilogueDevice, ResidualTileAndScale) {
    REQUIRE_DEVICE();
    check(Epilogue::residual_scale, false, 300, 264, 200);
}

// Operands masked by k < K (Triton's tl.load mask): the masks hide only the zero fill's
// elements, so the TMA kernel runs them (ragged K: 200 of 4 k steps of 64).
TEST(CudaGemmEpilogueDevice, OperandsMaskedByTheirOwnBounds) {
    REQUIRE_DEVICE();
    check(Epilogue::masked_operands, false, 300, 264, 200);
}

// A Triton port's 1-D grid over the tiles, row- and column-major: the TMA kernel runs
// every tile, in its own order.
TEST(CudaGemmEpilogueDevice, AOneDimensionalGridOverTheTiles) {
    REQUIRE_DEVICE();
    for (bool row_major : {true, false}) {
        const Kernel k = gemm_test::flat_gemm(row_major);
        check(Epilogue::plain, false, 300, 264, 200, &k);
    }
}

// No k loop: one mma over the whole (ragged) k range, run by the TMA kernel in 64-deep steps.
TEST(CudaGemmEpilogueDevice, OneMmaOverTheWholeKRange) {
    REQUIRE_DEVICE();
    const Kernel k = gemm_test::single_step_gemm();
    check(Epilogue::plain, false, 300, 264, 200, &k);
}

// C += A B: the accumulator starts from R, added after the sum in the epilogue.
TEST(CudaGemmEpilogueDevice, AccumulatorStartingFromATile) {
    REQUIRE_DEVICE();
    check(Epilogue::start_from_residual, false, 300, 264, 200);
}

TEST(CudaGemmEpilogueDevice, PerRowScaleShorterThanTheRows) {
    REQUIRE_DEVICE();
    check(Epilogue::row_scale, false, 300, 264, 200);
}

TEST(CudaGemmEpilogueDevice, PreAndPostActivation) {
    REQUIRE_DEVICE();
    check(Epilogue::two_outputs, false, 300, 264, 200);
}

// Odd extents make every row stride odd (201 and 263 bf16: not a multiple of 16
// bytes), which TMA cannot describe: A and B are staged into padded copies
// (gemm_staging.h), and C is written element by element where a pair would be
// misaligned. The TMA kernel must still run, and every element must be right.
TEST(CudaGemmEpilogueDevice, RowStridesTmaCannotDescribe) {
    REQUIRE_DEVICE();
    check(Epilogue::bias_relu, false, 301, 263, 201);
    check(Epilogue::two_outputs, true, 129, 515, 777);
}

TEST(CudaGemmEpilogueDevice, WeightStoredNByK) {
    REQUIRE_DEVICE();
    check(Epilogue::plain, true, 300, 264, 200);
    check(Epilogue::bias_relu, true, 1000, 776, 520);
}

// Too few tiles for the device: each tile's k range is split into shares whose
// partial sums the last share adds (gemm_schedule.h), then the epilogue runs once.
// 40 rows leave a 128-row tile's last 16-row pieces empty and one piece half full;
// two outputs and a weight stored [N, K] take the split path too.
TEST(CudaGemmEpilogueDevice, SplitKAppliesTheEpilogueOnceToTheWholeSum) {
    REQUIRE_DEVICE();
    check(Epilogue::two_outputs, true, 40, 520, 3000);
    check(Epilogue::residual_scale, false, 100, 264, 4000);
}

}  // namespace
