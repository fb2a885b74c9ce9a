// sobel_median: per pixel, the Sobel gradients and the 3x3 median of a zero-padded
// window (seed 004, section 10). The Sobel weights are built from iota; the median
// sorts the nine taps with the same sort the Top-K library uses and gathers the middle
// one: no median-specific primitive.
#include <algorithm>
#include <array>
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::int64_t kTapCount = 9;

Kernel make_kernel() {
    return kernel("sobel_median", [](View<const f32, 2> source, View<f32, 2> gradient_x, View<f32, 2> gradient_y,
                                     View<f32, 2> median) {
        auto y = axis("y", source.extent<0>());
        auto x = axis("x", source.extent<1>());
        auto fy = axis("filter_y", 3);
        auto fx = axis("filter_x", 3);
        auto tap = axis("tap", kTapCount);
        auto oy = axis("local_y", 1);
        auto ox = axis("local_x", 1);
        for (auto& nest : parallel(shape(y, x))) {
            auto window = source[coord(nest.index(y) - 1, nest.index(x) - 1), shape(fy, fx)];
            auto dy = iota(fy) - 1;
            auto dx = iota(fx) - 1;
            auto weight_x = cast<f32>(dx * ite(dy == 0, i64{2}, i64{1}));
            auto weight_y = cast<f32>(dy * ite(dx == 0, i64{2}, i64{1}));
            auto gx = reduce(window * weight_x, shape(fy, fx), add);
            auto gy = reduce(window * weight_y, shape(fy, fx), add);
            auto ordered = sort(reshape(window, shape(tap)), tap);
            auto middle = gather(ordered.values, full<i64>(IndexSpace{}, kTapCount / 2), tap);
            auto destination = coord(nest.index(y), nest.index(x));
            gradient_x(destination, shape(oy, ox)).store(gx);
            gradient_y(destination, shape(oy, ox)).store(gy);
            median(destination, shape(oy, ox)).store(middle);
        }
    });
}

Entry make_sobel_median() {
    Entry e;
    e.name = "sobel_median";
    e.description = "f32 3x3 Sobel gradients and median filter, zero-padded borders, median by sort + gather";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{6, 7}, {1, 5}, {9, 4}}; break;
            case Size::medium: shapes = {{64, 64}, {100, 37}, {3, 257}}; break;
            case Size::large: shapes = {{1024, 1024}, {1080, 1920}, {4097, 255}}; break;
        }
        std::vector<Case> cases;
        for (auto [H, W] : shapes) {
            Case c;
            c.shape = std::to_string(H) + "x" + std::to_string(W);
            c.kernel = make_kernel();
            // Small integers (0..7): windows have repeated values, so the median sorts ties.
            auto level = uniform(seed, 0, 8);
            c.args = {input(Kind::F32, {H, W}, [level](std::int64_t i) { return std::floor(level(i)); }), output(Kind::F32, {H, W}),
                      output(Kind::F32, {H, W}), output(Kind::F32, {H, W})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [H, W](const Case& c) {
                auto src = values(*c.args[0]);
                auto at = [&](std::int64_t i, std::int64_t j) { return i < 0 || i >= H || j < 0 || j >= W ? 0.0 : src[i * W + j]; };
                std::vector<double> gx(src.size()), gy(src.size()), med(src.size());
                for (std::int64_t i = 0; i < H; ++i)
                    for (std::int64_t j = 0; j < W; ++j) {
                        // The textbook Sobel pair: [-1 0 1; -2 0 2; -1 0 1] and its transpose.
                        gx[i * W + j] = (at(i - 1, j + 1) + 2 * at(i, j + 1) + at(i + 1, j + 1)) - (at(i - 1, j - 1) + 2 * at(i, j - 1) + at(i + 1, j - 1));
                        gy[i * W + j] = (at(i + 1, j - 1) + 2 * at(i + 1, j) + at(i + 1, j + 1)) - (at(i - 1, j - 1) + 2 * at(i - 1, j) + at(i - 1, j + 1));
                        std::array<double, 9> taps{};
                        for (int k = 0; k < 9; ++k) taps[static_cast<std::size_t>(k)] = at(i + k / 3 - 1, j + k % 3 - 1);
                        std::nth_element(taps.begin(), taps.begin() + 4, taps.end());
                        med[i * W + j] = taps[4];
                    }
                return std::vector<std::vector<double>>{gx, gy, med};
            };
            // Small integers in, small integers out: every f32 step is exact.
            c.exact_integer = true;
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_sobel_median);

}  // namespace kiln::catalog
