// The same load, written with C++23's multi-argument subscript, traces to the same
// program as the C++20 comma form.
#include <gtest/gtest.h>

#include <kiln/kiln.h>

using namespace kiln;

TEST(Cpp23, MultiArgumentSubscriptLoads) {
#if defined(__cpp_multidimensional_subscript)
    auto k = kernel("twice", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& n : parallel(shape(axis("rows", x.extent(0))))) {
            auto v = x[coord(n.index(), 0), shape(r, c)];
            auto w = x[coord(n.index(), 0), shape(r, c), bounds::zero];
            y(coord(n.index(), 0), shape(r, c)).store(v + w);
        }
    });
    Tensor<f32> x({2, 3}, {1, 2, 3, 4, 5, 6}), y({2, 3});
    k.launch(interp(), std::as_const(x).view(), y.view());
    EXPECT_EQ(y.values(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
#else
    GTEST_SKIP() << "this compiler has no multidimensional subscript";
#endif
}
