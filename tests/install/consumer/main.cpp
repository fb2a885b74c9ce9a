// Uses the stable surface only: eager tiles, a traced kernel, a launch.
#include <kiln/kiln.h>

#include <cmath>
#include <iostream>

using namespace kiln;

int main() {
    Tile<i64> a = arange(2, 3);
    auto c = dot(a, transpose(a));
    std::cout << a << "\n" << sum(c) << "\n";
    auto k = kernel("row_softmax", [=](View<const f32, 2> x, View<f32, 2> y) {
        auto rows = axis("rows", x.extent(0));
        auto r = axis("r", 1), cols = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(rows))) {
            auto v = x[coord(nest.index(), 0), shape(r, cols)];
            auto e = exp(v - reduce(v, cols, maximum));
            y(coord(nest.index(), 0), shape(r, cols)).store(e / reduce(e, cols, add));
        }
    });
    Tensor<f32> x({4, 5}), y({4, 5});
    for (int i = 0; i < 20; ++i) x[i] = static_cast<float>(i % 5);
    k.launch(interp(), std::as_const(x).view(), y.view());
    double s = 0;
    for (int j = 0; j < 5; ++j) s += y[j];
    if (std::abs(s - 1.0) > 1e-6) {
        std::cerr << "softmax row sums to " << s << "\n";
        return 1;
    }
    std::cout << "consumer ok\n";
    return 0;
}
