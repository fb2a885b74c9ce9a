// pow(2, y) on the cuda target (src/targets/cuda/scalar_ops.cpp): CUDA's exp2f in
// precision standard (one special-function op, 2 ulp, where powf is a long sequence;
// Triton-style attention writes its exp2 this way), the SFU's ex2.approx in fast, and
// kiln's own pow in exact. Other bases stay pow. The source without a device; the
// values against 2^y in f64 on one.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "tests/unit/cuda_test_util.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

constexpr std::int64_t kBlock = 256;

Kernel power_kernel(float base) {
    return kernel("power_probe", [base](View<const f32, 1> x, View<f32, 1> y) {
        auto n = axis("n", kBlock);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), kBlock))))) {
            auto i0 = nest.index() * kBlock;
            y(coord(i0), shape(n)).store(pow(base, x[coord(i0), shape(n)]));
        }
    });
}

}  // namespace

TEST(CudaPowerOfTwo, TwoToTheYIsExp2ExceptInExact) {
    REQUIRE_NVRTC();
    Tensor<f32> x({4 * kBlock}), y({4 * kBlock});
    const std::vector<detail::Arg> args{detail::to_arg(std::as_const(x).view()), detail::to_arg(y.view())};
    const std::string standard = cuda_text(power_kernel(2.0f), args, Precision::standard, What::source);
    EXPECT_TRUE(contains(standard, "exp2f(")) << standard.substr(standard.size() > 3000 ? standard.size() - 3000 : 0);
    EXPECT_FALSE(contains(standard, "powf("));
    const std::string fast = cuda_text(power_kernel(2.0f), args, Precision::fast, What::source);
    EXPECT_TRUE(contains(fast, "kc::ex2_approx("));
    const std::string exact = cuda_text(power_kernel(2.0f), args, Precision::exact, What::source);
    EXPECT_FALSE(contains(exact, "exp2f("));
    EXPECT_TRUE(contains(exact, "kiln_rt::k_pow(")) << "exact keeps kiln's own pow, bit for bit with the interpreter";
    const std::string three = cuda_text(power_kernel(3.0f), args, Precision::standard, What::source);
    EXPECT_TRUE(contains(three, "powf(")) << "only the base 2 is exp2";
    EXPECT_FALSE(contains(three, "exp2f("));
}

// Every y on a 1/256 grid over the range of normal results, and the special values,
// against 2^y in f64: within 2 ulp in standard (CUDA's exp2f); 2^NaN = NaN,
// 2^-inf = 0, 2^inf = inf, 2^+-0 = 1.
TEST(CudaPowerOfTwoDevice, TwoToTheYIsWithinTwoUlps) {
    REQUIRE_DEVICE();
    std::vector<float> in;
    for (float y = -126.0f; y < 128.0f; y += 0.00390625f) in.push_back(y);
    for (float s : {std::nanf(""), -INFINITY, INFINITY, 0.0f, -0.0f, 1e-30f, -1e-30f}) in.push_back(s);
    while (in.size() % kBlock) in.push_back(0.5f);
    const auto n = static_cast<std::int64_t>(in.size());
    Tensor<f32> x({n}), y({n});
    x.values() = in;
    auto xd = x.to(cuda());
    auto yd = y.to(cuda());
    power_kernel(2.0f).launch(cuda(), Precision::standard, std::as_const(xd).view(), yd.view());
    const std::vector<float> got = yd.to(host()).values();
    for (std::size_t i = 0; i < in.size(); ++i) {
        const float a = in[i], r = got[i];
        if (std::isnan(a)) {
            EXPECT_TRUE(std::isnan(r));
            continue;
        }
        const double want = std::exp2(static_cast<double>(a));
        if (std::isinf(want) || want == 0) {
            EXPECT_EQ(static_cast<double>(r), want) << a;
            continue;
        }
        const double ulp = std::ldexp(1.0, std::ilogb(want) - 23);
        EXPECT_LE(std::abs(static_cast<double>(r) - want), 2 * ulp) << "2^" << a << " = " << r << ", want " << want;
    }
}
