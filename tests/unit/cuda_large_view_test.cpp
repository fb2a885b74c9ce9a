// Views past 2^31 elements take the 64-bit index path: the plan says so, and on a
// device every element is computed (the tail beyond 2^31 included).
#include <gtest/gtest.h>

#include "cuda_test_util.h"

using namespace kiln;

namespace {
Kernel increment() {
    return kernel("increment_i8", [](View<const i8, 1> x, View<i8, 1> y) {
        auto b = axis("b", 1024);
        for (auto& n : parallel(shape(axis("blocks", ceil_div(x.extent(0), 1024))))) {
            auto o = coord(n.index() * 1024);
            y(o, shape(b)).store(x[o, shape(b)] + 1);
        }
    });
}
}  // namespace

TEST(CudaLargeView, PlanUses64BitOffsetsPast2To31Elements) {
    // The index width is chosen from the arguments' spans: no memory is touched.
    const std::int64_t n = (std::int64_t{1} << 31) + 4099;
    i8 dummy = 0;
    auto x = view(static_cast<const i8*>(&dummy), {n}, {1});
    auto y = view(&dummy, {n}, {1});
    auto small_x = view(static_cast<const i8*>(&dummy), {4099}, {1});
    auto small_y = view(&dummy, {4099}, {1});
    auto big = cuda_test::cuda_text(increment(), cuda_test::args_of(x, y), Precision::standard, cuda_test::What::source);
    auto small = cuda_test::cuda_text(increment(), cuda_test::args_of(small_x, small_y), Precision::standard, cuda_test::What::source);
    EXPECT_NE(big, small) << "the 64-bit variant must differ from the 32-bit one";
}

TEST(CudaLargeView, MoreThan2To31ElementsRunCorrectly) {
    if (!cuda().available()) GTEST_SKIP() << "no CUDA device: " << cuda().unavailable_reason();
    const std::int64_t n = (std::int64_t{1} << 31) + 4099;  // a ragged tail past 2^31
    Tensor<i8> x({n});
    for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<i8>(i * 7);
    const auto xd = x.to(cuda());
    Tensor<i8> y({n});
    auto yd = y.to(cuda());
    increment().launch(cuda(), xd, yd);
    auto out = yd.to(host());
    std::int64_t bad = 0, first_bad = -1;
    for (std::int64_t i = 0; i < n; ++i)
        if (out[i] != static_cast<i8>(static_cast<i8>(i * 7) + 1)) {
            if (first_bad < 0) first_bad = i;
            ++bad;
        }
    EXPECT_EQ(bad, 0) << "first wrong element " << first_bad;
}
