// The Hopper GEMM lowering (src/targets/cuda/emit_gemm.h) on a device: results
// against an f64 reference computed from the same rounded inputs, on shapes the
// TMA kernel takes (ragged M, N and K included), on the catalog's small tile
// (which the kernel re-tiles), with the program's epilogue, on views TMA cannot
// read in place (staged into padded copies first), and across launches that reuse the encoded
// tensor maps. Without a device every test skips.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "cuda_test_util.h"
#include "examples/typed_gemm.h"
#include "targets/cuda/gemm_staging.h"
#include "targets/cuda/tensor_map_cache.h"

using namespace kiln;
using namespace kiln::cuda_test;


namespace {

// C = cast<Out>(acc * alpha + shift) with tile bm x bn x bk (shift 0 and alpha 1: a plain GEMM).
template <Element In, Element Out> Kernel scaled_gemm(std::int64_t bm, std::int64_t bn, std::int64_t bk, float shift) {
    return kernel("scaled_gemm", [=](View<const In, 2> A, View<const In, 2> B, View<Out, 2> C, Scalar<f32> alpha) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm)), gn = axis("block_n", ceil_div(B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 2})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<Out>(acc * alpha + shift));
        }
    });
}

template <class T> Tensor<T> random_tensor(std::int64_t rows, std::int64_t cols, unsigned seed) {
    Tensor<T> t({rows, cols});
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> d(-1, 1);
    for (auto& x : t.values()) x = T(d(g));
    return t;
}

// Launches k on A [M, K] and B [K, N] held in device buffers with row strides lda
// and ldb (elements; >= the extents) starting `offset` elements in, and checks C
// against alpha * A B + shift in f64, relative L2 within `tol`, every element
// written (C starts as NaN) and finite.
template <Element In, Element Out>
void check(const Kernel& k, std::int64_t M, std::int64_t N, std::int64_t K, float alpha, float shift, double tol, std::int64_t lda = 0,
           std::int64_t ldb = 0, std::int64_t offset = 0, bool with_alpha = true) {
    lda = lda ? lda : K;
    ldb = ldb ? ldb : N;
    auto a = random_tensor<In>(M * lda + offset, 1, static_cast<unsigned>(M * 7 + K));
    auto b = random_tensor<In>(K * ldb + offset, 1, static_cast<unsigned>(N * 5 + K));
    Tensor<Out> c({M, N});
    for (auto& x : c.values()) x = Out(std::numeric_limits<double>::quiet_NaN());
    const auto ad = a.to(cuda()), bd = b.to(cuda());
    auto cd = c.to(cuda());
    HostView<const In> A{ad.data() + offset, {M, K}, {lda, 1}, Device::cuda};
    HostView<const In> B{bd.data() + offset, {K, N}, {ldb, 1}, Device::cuda};
    if (with_alpha) k.launch(cuda(), A, B, cd.view(), alpha);
    else k.launch(cuda(), A, B, cd.view());
    auto got = cd.to(host());
    double num = 0, den = 0;
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
            double ref = 0;
            for (std::int64_t kk = 0; kk < K; ++kk) ref += double(a[offset + i * lda + kk]) * double(b[offset + kk * ldb + j]);
            ref = alpha * ref + shift;
            double g = double(got[i * N + j]);
            if (!std::isfinite(g)) ++bad;
            num += (g - ref) * (g - ref);
            den += ref * ref;
        }
    EXPECT_EQ(bad, 0) << M << "x" << N << "x" << K << ": elements not written or not finite";
    EXPECT_LT(std::sqrt(num / den), tol) << M << "x" << N << "x" << K;
}

}  // namespace

TEST(CudaGemmDevice, TmaKernelMatchesF64OnAlignedAndRaggedShapes) {
    REQUIRE_DEVICE();
    // The bench's tile: M, N, K multiples of the tile, then ragged in all three
    // (row strides stay multiples of 16 bytes, so TMA takes them).
    auto k = scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f);
    check<bf16, bf16>(k, 512, 768, 320, 1.0f, 0.0f, 8e-3);
    check<bf16, bf16>(k, 1000, 1000, 520, 1.0f, 0.0f, 8e-3);
    check<bf16, bf16>(k, 136, 264, 72, 1.0f, 0.0f, 8e-3);
    // Output rows of 1004 bf16 (2008 bytes: pairs aligned, 16-byte chunks not): the
    // tiles inside the bounds take the checked epilogue, not the whole-chunk stores.
    check<bf16, bf16>(k, 520, 1004, 136, 1.0f, 0.0f, 8e-3);
    // One consumer warpgroup, f16 inputs, an f32 output and an epilogue of the program's ops.
    check<f16, f32>(scaled_gemm<f16, f32>(64, 128, 64, 0.25f), 200, 136, 72, -1.5f, 0.25f, 1e-5);
}

// Shapes whose 128x256 tiles leave most multiprocessors idle and whose k range is
// too short to split run the kernel at half the tile width (gemm_schedule.h: the
// plan test shows the choice); aligned, then ragged in all three dims, with an epilogue.
TEST(CudaGemmDevice, HalfWidthTilesMatchF64) {
    REQUIRE_DEVICE();
    check<bf16, bf16>(scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f), 128, 14336, 256, 1.0f, 0.0f, 8e-3);
    check<bf16, f32>(scaled_gemm<bf16, f32>(128, 256, 64, 0.5f), 100, 14000, 200, 2.0f, 0.5f, 1e-5);
}

// Outputs of at most 64 rows run on 64-row tiles (gemm_schedule.h: launch_tile;
// the plan test shows the choice), split or not: decode-like shapes, then ragged
// in all three dims with an epilogue and an f32 output.
TEST(CudaGemmDevice, SixtyFourRowTilesMatchF64) {
    REQUIRE_DEVICE();
    check<bf16, bf16>(scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f), 16, 4096, 2048, 1.0f, 0.0f, 8e-3);
    check<bf16, bf16>(scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f), 64, 8192, 1024, 1.0f, 0.0f, 8e-3);
    check<bf16, f32>(scaled_gemm<bf16, f32>(128, 256, 64, 0.5f), 37, 1000, 520, 2.0f, 0.5f, 1e-5);
    check<bf16, f32>(scaled_gemm<bf16, f32>(64, 128, 64, 0.5f), 1, 1000, 4100, 2.0f, 0.5f, 1e-5);
}

TEST(CudaGemmDevice, CatalogTileIsRetiled) {
    REQUIRE_DEVICE();
    // The catalog's typed GEMM at its 16x16x16 tile runs as 128x128x64 tiles.
    auto k = catalog::make_typed_gemm_kernel<bf16, f32, bf16>("gemm_bf16", {});
    check<bf16, bf16>(k, 264, 200, 96, 1.0f, 0.0f, 8e-3, 0, 0, 0, false);
    auto h = catalog::make_typed_gemm_kernel<f16, f32, f16>("gemm_f16", {});
    check<f16, f16>(h, 2048, 64, 2048, 1.0f, 0.0f, 1e-3, 0, 0, 0, false);
}

// Views TMA cannot read in place are staged into padded copies (gemm_staging.h):
// the TMA kernel still runs (it looks up two maps) and the results are right.
TEST(CudaGemmDevice, ViewsTmaCannotReadInPlaceAreStaged) {
    REQUIRE_DEVICE();
    auto k = scaled_gemm<bf16, bf16>(128, 128, 64, 0.0f);
    auto lookups = [] { return cu::tensor_map_cache().counts().encodes + cu::tensor_map_cache().counts().hits; };
    auto before = lookups();
    // Row strides of 90 and 140 bytes: not multiples of 16.
    check<bf16, bf16>(k, 100, 70, 45, 2.0f, 0.0f, 8e-3);
    EXPECT_EQ(lookups(), before + 2) << "the TMA kernel did not run on staged copies";
    // Aligned strides but a base 2 bytes past a 16-byte boundary.
    check<bf16, bf16>(k, 130, 136, 72, 1.0f, 0.0f, 8e-3, 72, 136, 1);
    EXPECT_EQ(lookups(), before + 4);
    // Padded rows (row stride > extent), aligned: TMA reads these in place.
    check<bf16, bf16>(k, 130, 136, 72, 1.0f, 0.0f, 8e-3, 80, 144, 0);
    EXPECT_EQ(lookups(), before + 6);
}

// Operands whose rows straddle 128-byte lines (TMA reads them in place, at more
// L2 traffic) are packed by the module's kernel where that pays (gemm_staging.h);
// KILN_GEMM_PACK=2 packs them at any size, 0 never. Row strides of 2000 and 528
// bytes (16-byte multiples, not 128-byte ones), ragged shapes; then element-aligned
// rows (the packing kernel's element path), which are always staged.
TEST(CudaGemmDevice, RowsAcrossLinesArePackedWhereItPays) {
    REQUIRE_DEVICE();
    auto k = scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f);
    auto packed = [] { return cu::staging_counts().packed; };
    const auto start = packed();
    check<bf16, bf16>(k, 200, 264, 1000, 1.0f, 0.0f, 8e-3);
    EXPECT_EQ(packed(), start) << "a GEMM of 0.1 GFLOP does not pay for copying its operands";
    ::setenv("KILN_GEMM_PACK", "2", 1);
    check<bf16, bf16>(k, 200, 264, 1000, 1.0f, 0.0f, 8e-3);
    EXPECT_EQ(packed(), start + 2);
    check<bf16, f32>(scaled_gemm<bf16, f32>(64, 128, 64, 0.5f), 37, 1000, 520, 2.0f, 0.5f, 1e-5, 520, 1000);
    EXPECT_EQ(packed(), start + 4);
    ::setenv("KILN_GEMM_PACK", "0", 1);
    check<bf16, bf16>(k, 200, 264, 1000, 1.0f, 0.0f, 8e-3);
    EXPECT_EQ(packed(), start + 4);
    ::unsetenv("KILN_GEMM_PACK");
    // Rows 2 bytes past 16-byte boundaries and strides of 90 and 140 bytes.
    check<bf16, bf16>(k, 130, 70, 45, 1.0f, 0.0f, 8e-3, 45, 70, 1);
    EXPECT_EQ(packed(), start + 6);
    // Large enough to pay (the copy of B pays from about 1900 rows of A, and A's
    // from about 1900 columns of B, whatever K): rows of 208 and 3856 bytes.
    check<bf16, bf16>(k, 1900, 1928, 104, 1.0f, 0.0f, 8e-3);
    EXPECT_EQ(packed(), start + 8);
}

// With KILN_GEMM_CPASYNC=1 operands whose rows straddle 128-byte lines are copied
// by the kernel's producer threads (cp.async into TMA's swizzled layout, zero-filled
// past the edges; gemm_staging.h): nothing is packed and the results are right, on
// ragged shapes in all three dims, one consumer warpgroup, padded row strides and an
// f32 output with an epilogue. (Written in session 26 without a device: its first
// run is the next device's.)
TEST(CudaGemmDevice, RowsAcrossLinesCopiedByCpAsyncMatchF64) {
    REQUIRE_DEVICE();
    ::setenv("KILN_GEMM_CPASYNC", "1", 1);
    auto packed = [] { return cu::staging_counts().packed; };
    const auto start = packed();
    check<bf16, bf16>(scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f), 200, 264, 1000, 1.0f, 0.0f, 8e-3);
    check<bf16, bf16>(scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f), 1000, 1000, 1000, 1.0f, 0.0f, 8e-3);
    check<bf16, f32>(scaled_gemm<bf16, f32>(64, 128, 64, 0.5f), 37, 1000, 520, 2.0f, 0.5f, 1e-5, 520, 1000);
    check<bf16, bf16>(scaled_gemm<bf16, bf16>(128, 128, 64, 0.0f), 130, 136, 72, 1.0f, 0.0f, 8e-3, 80, 152, 0);
    check<f16, f16>(scaled_gemm<f16, f16>(128, 256, 64, 0.0f), 3000, 1000, 1400, 1.0f, 0.0f, 1e-3);
    ::unsetenv("KILN_GEMM_CPASYNC");
    EXPECT_EQ(packed(), start) << "read in place";
}

TEST(CudaGemmDevice, RepeatedLaunchesReuseTensorMapsAndNeverAStaleOne) {
    REQUIRE_DEVICE();
    // Launches over the same buffers encode nothing; another B gets its own map. A
    // stale map for B would read B1 in the third launch: C would be A B1, not A B2.
    auto k = scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f);
    const std::int64_t M = 256, N = 512, K = 192;
    auto a = random_tensor<bf16>(M, K, 11), b1 = random_tensor<bf16>(K, N, 12), b2 = random_tensor<bf16>(K, N, 13);
    const auto ad = a.to(cuda()), b1d = b1.to(cuda()), b2d = b2.to(cuda());
    Tensor<bf16> c({M, N});
    auto cd = c.to(cuda());
    auto run = [&](const Tensor<bf16>& b, const Tensor<bf16>& bd) {
        for (auto& x : c.values()) x = bf16(std::numeric_limits<double>::quiet_NaN());
        cd = c.to(cuda());
        k.launch(cuda(), ad.view(), bd.view(), cd.view(), 1.0f);
        auto got = cd.to(host());
        double num = 0, den = 0;
        for (std::int64_t i = 0; i < M; ++i)
            for (std::int64_t j = 0; j < N; ++j) {
                double ref = 0;
                for (std::int64_t kk = 0; kk < K; ++kk) ref += double(a[i * K + kk]) * double(b[kk * N + j]);
                double g = double(got[i * N + j]);
                num += (g - ref) * (g - ref);
                den += ref * ref;
            }
        return std::sqrt(num / den);
    };
    const cu::TensorMapCache& maps = cu::tensor_map_cache();
    auto encodes = [&] { return maps.counts().encodes; };
    const auto start = encodes();
    EXPECT_LT(run(b1, b1d), 8e-3);
    EXPECT_EQ(encodes(), start + 2) << "the first launch encodes A and B";
    EXPECT_LT(run(b1, b1d), 8e-3);
    EXPECT_EQ(encodes(), start + 2) << "the same buffers again: no encode";
    EXPECT_LT(run(b2, b2d), 8e-3) << "another B must not reuse B1's map";
    EXPECT_EQ(encodes(), start + 3) << "only B's map is new";
    EXPECT_LT(run(b1, b1d), 8e-3);
    EXPECT_EQ(encodes(), start + 3);
}

// Split-K (gemm_schedule.h): a decode-shaped GEMM, 16 rows on the bench's 128x256x64
// tile, has 4 tiles; its 128 k steps are shared out among more CTAs. The
// shares' partial sums are added in a fixed order whichever finishes last, so
// repeated launches give the same bits; the plan says how the launch divided the work.
TEST(CudaGemmDevice, SplitKIsRightAndRepeatsBitForBit) {
    REQUIRE_DEVICE();
    auto k = scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f);
    check<bf16, bf16>(k, 16, 1024, 8192, 1.0f, 0.0f, 8e-3);
    check<bf16, bf16>(k, 1, 264, 2048, 1.0f, 0.0f, 8e-3);  // one row, ragged columns
    check<f16, f32>(scaled_gemm<f16, f32>(64, 128, 64, 0.25f), 77, 200, 5000, -1.5f, 0.25f, 1e-5);  // one consumer warpgroup
    const std::int64_t M = 16, N = 1024, K = 8192;
    auto a = random_tensor<bf16>(M, K, 21), b = random_tensor<bf16>(K, N, 22);
    const auto ad = a.to(cuda()), bd = b.to(cuda());
    Tensor<bf16> c({M, N});
    auto cd = c.to(cuda());
    std::vector<std::uint16_t> first;
    for (int run = 0; run < 5; ++run) {
        k.launch(cuda(), ad.view(), bd.view(), cd.view(), 1.0f);
        auto got = cd.to(host());
        std::vector<std::uint16_t> bits;
        for (auto x : got.values()) bits.push_back(x.bits);
        if (run == 0) first = bits;
        else ASSERT_EQ(bits, first) << "launch " << run << " differs from the first";
    }
    const std::string plan = cuda_text(k, args_of(ad.view(), bd.view(), cd.view(), 1.0f), Precision::standard, What::plan);
    EXPECT_NE(plan.find("k split "), std::string::npos) << plan;
}

// Clusters of 2 CTAs sharing B by TMA multicast (emit_gemm_sm90.cuh: CLUSTER),
// forced: an odd number of m-tiles (the last pair's second tile lies past the
// output: zeros read, nothing stored), ragged M, N and K, one consumer warpgroup;
// against f64, and bit for bit against the same launches on lone CTAs (a pair
// computes each tile in the same order as one CTA does).
// Disabled while clusters are withdrawn: it fails (bench/results/gpu-20261203-s14);
// run it with --gtest_also_run_disabled_tests when working on the fault.
TEST(CudaGemmDevice, DISABLED_ClusterPairsMatchF64AndLoneCtasBitForBit) {
    REQUIRE_DEVICE();
    auto k = scaled_gemm<bf16, bf16>(128, 256, 64, 0.0f);
    // Withdrawn for this fault (gemm_schedule.cpp: clusters_withdrawn): the faulty
    // kernel only with the debug override. This test is how its fix will be checked.
    ::setenv("KILN_GEMM_CLUSTER_DEBUG", "1", 1);
    ::setenv("KILN_GEMM_CLUSTER", "2", 1);
    check<bf16, bf16>(k, 384, 768, 320, 1.0f, 0.0f, 8e-3);
    check<bf16, bf16>(k, 1000, 1000, 520, 1.0f, 0.0f, 8e-3);
    check<f16, f32>(scaled_gemm<f16, f32>(64, 128, 64, 0.25f), 200, 1000, 4100, -1.5f, 0.25f, 1e-5);
    const std::int64_t M = 1160, N = 1800, K = 2000;  // 10 m-tiles, ragged
    auto a = random_tensor<bf16>(M, K, 31), b = random_tensor<bf16>(K, N, 32);
    const auto ad = a.to(cuda()), bd = b.to(cuda());
    Tensor<bf16> c({M, N});
    auto cd = c.to(cuda());
    const std::string plan = cuda_text(k, args_of(ad.view(), bd.view(), cd.view(), 1.0f), Precision::standard, What::plan);
    EXPECT_NE(plan.find("in clusters of 2"), std::string::npos) << plan;
    std::vector<std::uint16_t> bits[2];
    // Each launch into a fresh output of all-ones bits (a NaN no product gives), so
    // an element a launch leaves unwritten shows.
    for (auto& x : c.values()) x.bits = 0xffff;
    for (int cluster : {2, 1}) {
        ::setenv("KILN_GEMM_CLUSTER", cluster == 2 ? "2" : "1", 1);
        auto fresh = c.to(cuda());
        k.launch(cuda(), ad.view(), bd.view(), fresh.view(), 1.0f);
        for (auto x : fresh.to(host()).values()) bits[cluster - 1].push_back(x.bits);
    }
    ::unsetenv("KILN_GEMM_CLUSTER");
    ::unsetenv("KILN_GEMM_CLUSTER_DEBUG");
    ASSERT_EQ(bits[1].size(), bits[0].size());
    std::string where;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < bits[0].size(); ++i)
        if (bits[1][i] != bits[0][i] && differ++ < 12) where += " (" + std::to_string(i / N) + ", " + std::to_string(i % N) + ")";
    EXPECT_EQ(differ, 0u) << "clusters of 2 and lone CTAs differ at " << differ << " elements, among them (row, column):" << where;
}
