// depthwise_pool: per pixel, a depthwise (per-channel) convolution and a max pool over
// the same zero-padded window (seed 004, section 9). Both outputs see zero padding,
// as in the seed: a border pool includes the padded zeros. (A conventional
// minus-infinity pool would pass a fallback to the load.)
#include <algorithm>
#include <cmath>
#include <limits>

#include "catalog.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel(std::int64_t padding) {
    return kernel("depthwise_pool", [=](View<const f32, 3> source, View<const f32, 3> weights, View<f32, 3> convolution,
                                        View<f32, 3> pool) {
        auto y = axis("y", source.extent<0>());
        auto x = axis("x", source.extent<1>());
        auto c = axis("channel", source.extent<2>());
        auto fy = axis("filter_y", weights.extent<0>());
        auto fx = axis("filter_x", weights.extent<1>());
        auto oy = axis("local_y", 1);
        auto ox = axis("local_x", 1);
        for (auto& nest : parallel(shape(y, x))) {
            auto window = source[coord(nest.index(y) - padding, nest.index(x) - padding, 0), shape(fy, fx, c)];
            auto filter = weights[coord(0, 0, 0), shape(fy, fx, c)];
            auto conv = reduce(window * filter, shape(fy, fx), add);
            auto pooled = reduce(window, shape(fy, fx), maximum);
            auto destination = coord(nest.index(y), nest.index(x), 0);
            convolution(destination, shape(oy, ox, c)).store(reshape(conv, shape(oy, ox, c)));
            pool(destination, shape(oy, ox, c)).store(reshape(pooled, shape(oy, ox, c)));
        }
    });
}

struct Problem {
    std::int64_t height, width, channels, filter;  // square filters, "same" output size
};

Entry make_depthwise_pool() {
    Entry e;
    e.name = "depthwise_pool";
    e.description = "f32 depthwise convolution and zero-padded max pool, same-size output, HWC";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Problem> problems;
        switch (size) {  // the seed's problem first; then a 5x5 filter, and a 1x1 one
            case Size::small: problems = {{5, 6, 3, 3}, {4, 7, 2, 5}, {3, 2, 5, 1}}; break;
            case Size::medium: problems = {{64, 64, 16, 3}, {33, 47, 24, 5}, {128, 9, 32, 7}}; break;
            case Size::large: problems = {{512, 512, 32, 3}, {257, 1023, 64, 5}, {1024, 1024, 8, 7}}; break;
        }
        std::vector<Case> cases;
        for (auto p : problems) {
            const std::int64_t H = p.height, W = p.width, C = p.channels, F = p.filter, pad = (p.filter - 1) / 2;
            Case c;
            c.shape = std::to_string(H) + "x" + std::to_string(W) + "x" + std::to_string(C) + " * " + std::to_string(F) + "x" + std::to_string(F);
            c.kernel = make_kernel(pad);
            // Mostly negative values, so a border pool that ignored the padded zeros would show.
            c.args = {input(Kind::F32, {H, W, C}, uniform(seed, -2, 1)), input(Kind::F32, {F, F, C}, uniform(seed + 1, -1, 1)),
                      output(Kind::F32, {H, W, C}), output(Kind::F32, {H, W, C})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [H, W, C, F, pad](const Case& c) {
                auto x = values(*c.args[0]), w = values(*c.args[1]);
                std::vector<double> conv(x.size()), pool(x.size());
                for (std::int64_t i = 0; i < H; ++i)
                    for (std::int64_t j = 0; j < W; ++j)
                        for (std::int64_t ch = 0; ch < C; ++ch) {
                            double acc = 0, peak = -std::numeric_limits<double>::infinity();
                            for (std::int64_t a = 0; a < F; ++a)
                                for (std::int64_t b = 0; b < F; ++b) {
                                    std::int64_t iy = i + a - pad, ix = j + b - pad;
                                    bool inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
                                    double v = inside ? x[(iy * W + ix) * C + ch] : 0.0;  // zero padding
                                    acc += v * w[(a * F + b) * C + ch];
                                    peak = std::max(peak, v);
                                }
                            conv[(i * W + j) * C + ch] = acc;
                            pool[(i * W + j) * C + ch] = peak;
                        }
                return std::vector<std::vector<double>>{conv, pool};
            };
            // The convolution: the window's products (padding taps are exact zeros)
            // reduced in any order, about gamma(F^2) sum |x w|: 2e-6 (up to 4e-6) for
            // 3x3. A tap from the wrong place changes an output by a product (~0.5,
            // 10^5 bounds).
            // The pool selects an input or a padded 0: exact.
            c.error_bound = [H, W, C, F, pad](const Case& c) {
                auto x = values(*c.args[0]), w = values(*c.args[1]);
                Bounds out(2);
                for (std::int64_t i = 0; i < H; ++i)
                    for (std::int64_t j = 0; j < W; ++j)
                        for (std::int64_t ch = 0; ch < C; ++ch) {
                            std::vector<Bounded> terms;
                            Bounded peak = exact(-std::numeric_limits<double>::infinity());
                            for (std::int64_t a = 0; a < F; ++a)
                                for (std::int64_t b = 0; b < F; ++b) {
                                    std::int64_t iy = i + a - pad, ix = j + b - pad;
                                    bool inside = iy >= 0 && iy < H && ix >= 0 && ix < W;
                                    const Bounded v = exact(inside ? x[(iy * W + ix) * C + ch] : 0.0);
                                    if (inside) terms.push_back(v * exact(w[(a * F + b) * C + ch]));
                                    peak = max(peak, v);
                                }
                            out[0].push_back(sum(terms, reduction_depth(static_cast<std::int64_t>(terms.size()))));
                            out[1].push_back(peak);
                        }
                return out;
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_depthwise_pool);

}  // namespace kiln::catalog
