// Control for the must-not-compile harness: the surface of DESIGN.md, used the way
// the must-fail cases use it but correctly, compiles without a warning.
#include <kiln/kiln.h>
using namespace kiln;

void eager() {
    auto a = zeros<f32>(shape(2, 2));
    auto b = zeros<f32>(shape(2, 2));
    auto c = maximum(a + b * 2.0, 0.5f);
    auto i = arange(2, 2) + 3;
    auto e = exp(c);
    auto r = ite(c > 0.0f, c, e);
    (void)i;
    (void)r;
}

auto k = kernel("surface", [](View<const f32, 2> x, View<f32, 2> y, Scalar<f32> alpha) {
    auto rows = axis("rows", x.extent(0));
    auto r = axis("r", 1), c = axis("c", x.extent<1>());
    for (auto& nest : parallel(shape(rows))) {
        auto v = x[coord(nest.index(), 0), shape(r, c)];
        auto m = reduce(v, c, maximum);
        y(coord(nest.index(), 0), shape(r, c)).store(exp(v - m) * alpha);
    }
});
