// The matrix-product entries and seed 000's programs on hand-computed cases: exact
// integer products, the rounding of the explicit output conversion, the seeds'
// printed results, and explicit memory leaving the result unchanged.
#include <gtest/gtest.h>

#include "entry_runner.h"

using namespace kiln;
using namespace kiln::catalog::testing;

TEST(GemmI8Entry, SmallProductIsExact) {
    // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154]
    auto out = run_entry("gemm_i8", {buffer(Kind::I8, {2, 3}, {1, 2, 3, 4, 5, 6}), buffer(Kind::I8, {3, 2}, {7, 8, 9, 10, 11, 12}),
                                     catalog::output(Kind::I32, {2, 2})});
    EXPECT_EQ(out[0], (std::vector<double>{58, 64, 139, 154}));
}

TEST(GemmI8Entry, ExtremesAccumulateInI32WithoutWrapping) {
    // K = 40 (three 16-deep k tiles, the last ragged): -128 * -128 * 40 = 655360, far
    // outside i8 and i16; 127 * -128 * 40 = -650240.
    const std::int64_t K = 40;
    std::vector<double> a(static_cast<std::size_t>(2 * K)), b(static_cast<std::size_t>(K * 2));
    for (std::int64_t k = 0; k < K; ++k) {
        a[static_cast<std::size_t>(k)] = -128, a[static_cast<std::size_t>(K + k)] = 127;
        b[static_cast<std::size_t>(2 * k)] = -128, b[static_cast<std::size_t>(2 * k + 1)] = 1;
    }
    auto out = run_entry("gemm_i8", {buffer(Kind::I8, {2, K}, a), buffer(Kind::I8, {K, 2}, b), catalog::output(Kind::I32, {2, 2})});
    EXPECT_EQ(out[0], (std::vector<double>{655360, -128 * K, -650240, 127 * K}));
}

TEST(GemmLowPrecisionEntries, OutputConversionRoundsToNearestEven) {
    // Row i of A is [1, d_i], B is a column of ones, so C = 1 + d_i, exact in the f32
    // accumulator. For f16 (ulp 2^-10 at 1) the halfway cases 1 + 2^-11 and
    // 1 + 3*2^-11 round to the even neighbours 1 and 1 + 2^-9; 1 + 2^-12 rounds down.
    std::vector<double> f16_a = {1, 0x1p-11, 1, 0x3p-11, 1, 0x1p-12};
    auto f16_out = run_entry("gemm_f16", {buffer(Kind::F16, {3, 2}, f16_a), buffer(Kind::F16, {2, 1}, {1, 1}), catalog::output(Kind::F16, {3, 1})});
    EXPECT_EQ(f16_out[0], (std::vector<double>{1.0, 1.0 + 0x1p-9, 1.0}));
    // bf16 (ulp 2^-7 at 1): the same pattern one exponent step coarser.
    std::vector<double> bf16_a = {1, 0x1p-8, 1, 0x3p-8, 1, 0x1p-9};
    auto bf16_out =
        run_entry("gemm_bf16", {buffer(Kind::BF16, {3, 2}, bf16_a), buffer(Kind::BF16, {2, 1}, {1, 1}), catalog::output(Kind::BF16, {3, 1})});
    EXPECT_EQ(bf16_out[0], (std::vector<double>{1.0, 1.0 + 0x1p-6, 1.0}));
}

TEST(GemmLowPrecisionEntries, AccumulatesInF32NotInTheInputKind) {
    // 1 + 2^-12 * 16: each small term alone would vanish next to 1 in f16, but the
    // f32 accumulator keeps them, and 1 + 2^-8 is exact in f16.
    const std::int64_t K = 17;
    std::vector<double> a(static_cast<std::size_t>(K), 0x1p-12);
    a[0] = 1;
    auto out = run_entry("gemm_f16", {buffer(Kind::F16, {1, K}, a), buffer(Kind::F16, {K, 1}, std::vector<double>(static_cast<std::size_t>(K), 1.0)),
                                      catalog::output(Kind::F16, {1, 1})});
    EXPECT_EQ(out[0][0], 1.0 + 0x1p-8);
}

TEST(BlockMatmulEntry, SeedZeroSixteenBySixteenExample) {
    // Seed 000: a is all 1.0, b is 2.0 where i % 17 == 0 (the diagonal of a 16x16
    // matrix), so every element of c is 2.0; the seed prints c[0] and c[255].
    std::vector<double> a(256, 1.0), b(256);
    for (int i = 0; i < 256; ++i) b[static_cast<std::size_t>(i)] = i % 17 == 0 ? 2.0 : 0.0;
    auto out = run_entry("block_matmul", {buffer(Kind::F32, {16, 16}, a), buffer(Kind::F32, {16, 16}, b), catalog::output(Kind::F32, {16, 16})});
    EXPECT_EQ(out[0][0], 2.0);
    EXPECT_EQ(out[0][255], 2.0);
    for (double v : out[0]) EXPECT_EQ(v, 2.0);
}

TEST(BlockMatmulEntry, RaggedSizeMatchesIntegerProduct) {
    // N = 12: two 8-blocks per side, the second ragged; small integers keep f32 exact.
    const std::int64_t n = 12;
    std::vector<double> a, b;
    for (std::int64_t k = 0; k < n * n; ++k) {
        a.push_back(static_cast<double>(k % 5) - 2);
        b.push_back(static_cast<double>(k % 7) - 3);
    }
    auto out = run_entry("block_matmul", {buffer(Kind::F32, {n, n}, a), buffer(Kind::F32, {n, n}, b), catalog::output(Kind::F32, {n, n})});
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            double want = 0;
            for (std::int64_t k = 0; k < n; ++k) want += a[static_cast<std::size_t>(i * n + k)] * b[static_cast<std::size_t>(k * n + j)];
            EXPECT_EQ(out[0][static_cast<std::size_t>(i * n + j)], want) << i << "," << j;
        }
}

TEST(VecaddEntry, SeedZeroExample) {
    // Seed 000: a[i] = i, b[i] = 10 i over 8 elements in two programs; it prints 33 and 77.
    std::vector<double> a, b;
    for (int i = 0; i < 8; ++i) a.push_back(i), b.push_back(i * 10);
    auto out = run_entry("vecadd", {buffer(Kind::I64, {8}, a), buffer(Kind::I64, {8}, b), catalog::output(Kind::I64, {8})});
    EXPECT_EQ(out[0][3], 33);
    EXPECT_EQ(out[0][7], 77);
}

TEST(ManualGemmEntry, ExplicitMemoryLeavesTheResultBitIdenticalToGemm) {
    // The layouts place data only: with gemm's blocking (16x16x8) and the same pinned
    // mma order, the two entries must agree bit for bit on a ragged shape.
    const std::int64_t M = 13, N = 10, K = 11;
    std::vector<double> a, b;
    for (std::int64_t k = 0; k < M * K; ++k) a.push_back(std::sin(0.37 * static_cast<double>(k)));
    for (std::int64_t k = 0; k < K * N; ++k) b.push_back(std::cos(0.21 * static_cast<double>(k)));
    auto args = [&] { return std::vector{buffer(Kind::F32, {M, K}, a), buffer(Kind::F32, {K, N}, b), catalog::output(Kind::F32, {M, N})}; };
    EXPECT_EQ(run_entry("manual_gemm", args())[0], run_entry("gemm", args())[0]);
}

TEST(ManualGemmEntry, TracesThePaddedAndColumnMajorLayouts) {
    auto c = catalog::find("manual_gemm")->cases(catalog::Size::small, 1).at(0);
    Tensor<f32> A({16, 8}), B({8, 16}), C({16, 16});
    auto ir = c.kernel.ir(A.view(), B.view(), C.view());
    EXPECT_NE(ir.find("mem_store"), std::string::npos) << ir;
    EXPECT_NE(ir.find("[9,1]"), std::string::npos) << "A tiles: rows padded to block_k + 1\n" << ir;
    EXPECT_NE(ir.find("[1,8]"), std::string::npos) << "B tiles: column-major\n" << ir;
    EXPECT_NE(ir.find("mem_load"), std::string::npos) << ir;
}
