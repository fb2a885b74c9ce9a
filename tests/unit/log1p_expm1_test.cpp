// log1p and expm1: ops added through the ops table alone (ops.def, math.def); their
// semantics are kiln math's k_log1p / k_expm1 (kmath.h). Eager values, the
// interpreter, the cpu target (bit for bit with the interpreter in exact
// precision) and the cuda target's source all follow from the table.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "cpu_diff.h"
#include "cuda_test_util.h"
#include "kiln/detail/kmath.h"
#include "targets/cuda/nvrtc.h"

namespace kiln {
namespace {

TEST(Log1pExpm1, EagerValuesAreKilnMathRoundedOnce) {
    for (double x : {1e-300, -1e-17, 3e-10, -0.25, 0.5, 7.0, -0.9999999, 700.0}) {
        auto t = from_vec(std::vector<double>{x}, 1, 1);
        EXPECT_EQ(std::bit_cast<std::uint64_t>(log1p(t).to_vector()[0]), std::bit_cast<std::uint64_t>(kiln_rt::k_log1p(x))) << x;
        EXPECT_EQ(std::bit_cast<std::uint64_t>(expm1(t).to_vector()[0]), std::bit_cast<std::uint64_t>(kiln_rt::k_expm1(x))) << x;
        auto f = to_f32(t);
        EXPECT_EQ(log1p(f).to_vector()[0], static_cast<float>(kiln_rt::round_f32(kiln_rt::k_log1p(double(f.to_vector()[0]))))) << x;
    }
}

TEST(Log1pExpm1, AccurateWhereLogAndExpCancel) {
    // The reason for the ops: log(1 + x) and exp(x) - 1 lose every digit at 1e-12.
    for (double x : {1e-12, -3e-9, 2.5e-5}) {
        auto t = from_vec(std::vector<double>{x}, 1, 1);
        EXPECT_NEAR(log1p(t).to_vector()[0], std::log1p(x), 2e-16 * std::abs(x)) << x;
        EXPECT_NEAR(expm1(t).to_vector()[0], std::expm1(x), 2e-16 * std::abs(x)) << x;
    }
}

Kernel log1p_expm1_kernel(Kind k) {
    auto body = [](auto x, auto y) {
        using T = typename decltype(x)::element_type;
        auto blocks = axis("blocks", ceil_div(x.extent(0), 64));
        auto b = axis("b", 64);
        for (auto& nest : parallel(shape(blocks))) {
            auto i0 = nest.index() * 64;
            auto v = x[coord(i0), shape(b)];
            y(coord(i0), shape(b)).store(log1p(v) + expm1(v * T(0.5)));
        }
    };
    if (k == Kind::F32) return kernel("log1p_expm1_f32", [body](View<const f32, 1> x, View<f32, 1> y) { body(x, y); });
    return kernel("log1p_expm1_f64", [body](View<const f64, 1> x, View<f64, 1> y) { body(x, y); });
}

TEST(Log1pExpm1, CpuMatchesTheInterpreterBitForBit) {
    for (Kind k : {Kind::F32, Kind::F64})
        for (bool specials : {false, true})
            cpu_diff::expect_same(log1p_expm1_kernel(k), {cpu_diff::input(k, {1000}, 5, -0.99, 4, specials), cpu_diff::output(k, {1000})},
                                  {.precision = Precision::exact});
}

TEST(Log1pExpm1, CudaSourceCallsKilnMathInExactAndTheDeviceLibraryInStandard) {
    if (cu::nvrtc_version().empty()) GTEST_SKIP() << "no NVRTC";
    Tensor<f32> x({1000}), y({1000});
    auto args = cuda_test::args_of(std::as_const(x).view(), y.view());
    auto k = log1p_expm1_kernel(Kind::F32);
    std::string exact = cuda_test::cuda_text(k, args, Precision::exact, cuda_test::What::source);
    EXPECT_TRUE(cuda_test::contains(exact, "kiln_rt::k_log1p(")) << exact;
    EXPECT_TRUE(cuda_test::contains(exact, "kiln_rt::k_expm1("));
    std::string standard = cuda_test::cuda_text(k, args, Precision::standard, cuda_test::What::ptx);
    EXPECT_FALSE(standard.empty());
    EXPECT_TRUE(cuda_test::contains(cuda_test::cuda_text(k, args, Precision::standard, cuda_test::What::source), "log1pf("));
}

}  // namespace
}  // namespace kiln
