// conv2d: NHWC direct convolution with padding, stride, dilation, bias and ReLU
// (seed 004, section 8). Each program loads the complete receptive-field window of one
// output pixel; reindex maps the logical filter taps (dilated) onto that window, and
// multiplying by the weight tile and reducing the tap/input-channel axes is the
// convolution. Out-of-range window elements read 0: that is the zero padding.
#include <algorithm>
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

struct Geometry {
    std::int64_t stride = 1;
    std::int64_t dilation = 1;
    std::int64_t padding = 0;
};

Kernel make_kernel(Geometry g) {
    return kernel("conv2d", [=](View<const f32, 4> x, View<const f32, 4> weights, View<const f32, 1> bias, View<f32, 4> y) {
        auto batch = axis("batch", y.extent<0>());
        auto output_y = axis("output_y", y.extent<1>());
        auto output_x = axis("output_x", y.extent<2>());
        auto b = axis("local_batch", 1);
        auto oy = axis("local_y", 1);
        auto ox = axis("local_x", 1);
        auto fy = axis("filter_y", weights.extent<0>());
        auto fx = axis("filter_x", weights.extent<1>());
        auto ic = axis("input_channel", x.extent<3>());
        auto oc = axis("output_channel", y.extent<3>());
        auto wy = axis("window_y", (weights.extent<0>() - 1) * g.dilation + 1);
        auto wx = axis("window_x", (weights.extent<1>() - 1) * g.dilation + 1);
        for (auto& nest : parallel(shape(batch, output_y, output_x))) {
            auto n0 = nest.index(batch);
            auto y0 = nest.index(output_y);
            auto x0 = nest.index(output_x);
            auto window = x[coord(n0, y0 * g.stride - g.padding, x0 * g.stride - g.padding, 0), shape(b, wy, wx, ic)];
            auto taps = reindex(window, shape(b, fy, fx, ic), [&](const Nest& element) {
                return coord(element.index(b), element.index(fy) * g.dilation, element.index(fx) * g.dilation, element.index(ic));
            });
            auto filter = weights[coord(0, 0, 0, 0), shape(fy, fx, ic, oc)];
            auto bias_tile = bias[coord(0), shape(oc)];
            auto value = reduce(taps * filter, shape(fy, fx, ic), add) + bias_tile;
            auto result = reshape(max(value, 0.0f), shape(b, oy, ox, oc));
            y(coord(n0, y0, x0, 0), shape(b, oy, ox, oc)).store(result);
        }
    });
}

struct Problem {
    std::int64_t batch, height, width, in_channels, filter_h, filter_w, out_channels;
    Geometry g;
    std::int64_t out_h() const { return (height + 2 * g.padding - g.dilation * (filter_h - 1) - 1) / g.stride + 1; }
    std::int64_t out_w() const { return (width + 2 * g.padding - g.dilation * (filter_w - 1) - 1) / g.stride + 1; }
};

// relu(bias[o] + sum over taps and input channels of x[padded position] * w), f64.
std::vector<double> reference(const Case& c, const Problem& p) {
    auto x = values(*c.args[0]), w = values(*c.args[1]), bias = values(*c.args[2]);
    const std::int64_t OH = p.out_h(), OW = p.out_w(), C = p.in_channels, O = p.out_channels;
    std::vector<double> y(static_cast<std::size_t>(p.batch * OH * OW * O));
    for (std::int64_t n = 0; n < p.batch; ++n)
        for (std::int64_t oy = 0; oy < OH; ++oy)
            for (std::int64_t ox = 0; ox < OW; ++ox)
                for (std::int64_t o = 0; o < O; ++o) {
                    double acc = bias[o];
                    for (std::int64_t i = 0; i < p.filter_h; ++i)
                        for (std::int64_t j = 0; j < p.filter_w; ++j) {
                            std::int64_t iy = oy * p.g.stride - p.g.padding + i * p.g.dilation;
                            std::int64_t ix = ox * p.g.stride - p.g.padding + j * p.g.dilation;
                            if (iy < 0 || iy >= p.height || ix < 0 || ix >= p.width) continue;  // zero padding
                            for (std::int64_t ch = 0; ch < C; ++ch)
                                acc += x[((n * p.height + iy) * p.width + ix) * C + ch] * w[((i * p.filter_w + j) * C + ch) * O + o];
                        }
                    y[((n * OH + oy) * OW + ox) * O + o] = std::max(acc, 0.0);
                }
    return y;
}

// The kernel's arithmetic on Bounded values (error_bound.h): the window's products
// (padding taps are exact zeros) reduced in any order, + bias, then ReLU (exact).
Bounds error_bound(const Case& c, const Problem& p) {
    auto x = values(*c.args[0]), w = values(*c.args[1]), bias = values(*c.args[2]);
    const std::int64_t OH = p.out_h(), OW = p.out_w(), C = p.in_channels, O = p.out_channels;
    std::vector<Bounded> y;
    std::vector<Bounded> terms;
    for (std::int64_t n = 0; n < p.batch; ++n)
        for (std::int64_t oy = 0; oy < OH; ++oy)
            for (std::int64_t ox = 0; ox < OW; ++ox)
                for (std::int64_t o = 0; o < O; ++o) {
                    terms.clear();
                    for (std::int64_t i = 0; i < p.filter_h; ++i)
                        for (std::int64_t j = 0; j < p.filter_w; ++j) {
                            std::int64_t iy = oy * p.g.stride - p.g.padding + i * p.g.dilation;
                            std::int64_t ix = ox * p.g.stride - p.g.padding + j * p.g.dilation;
                            if (iy < 0 || iy >= p.height || ix < 0 || ix >= p.width) continue;
                            for (std::int64_t ch = 0; ch < C; ++ch)
                                terms.push_back(exact(x[((n * p.height + iy) * p.width + ix) * C + ch]) * exact(w[((i * p.filter_w + j) * C + ch) * O + o]));
                        }
                    y.push_back(max(sum(terms, reduction_depth(static_cast<std::int64_t>(terms.size()))) + exact(bias[o]), 0.0));
                }
    return {y};
}

Entry make_conv2d() {
    Entry e;
    e.name = "conv2d";
    e.description = "f32 NHWC convolution: zero padding, stride, dilation, bias, ReLU; taps by reindex";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Problem> problems;
        switch (size) {  // the seed's problem first; then dilation, and a 1x1 filter without padding
            case Size::small:
                problems = {{1, 5, 6, 2, 3, 3, 3, {2, 1, 1}}, {2, 7, 5, 3, 3, 2, 2, {1, 2, 2}}, {1, 3, 4, 1, 1, 1, 2, {1, 1, 0}}};
                break;
            case Size::medium:
                problems = {{2, 32, 32, 8, 3, 3, 16, {1, 1, 1}}, {1, 29, 31, 5, 5, 5, 7, {2, 2, 3}}, {4, 16, 16, 16, 1, 1, 32, {1, 1, 0}}};
                break;
            case Size::large:
                problems = {{8, 64, 64, 32, 3, 3, 64, {1, 1, 1}}, {4, 127, 129, 16, 7, 7, 32, {2, 1, 3}}, {16, 56, 56, 64, 3, 3, 64, {2, 2, 2}}};
                break;
        }
        std::vector<Case> cases;
        for (const auto& p : problems) {
            Case c;
            c.shape = std::to_string(p.batch) + "x" + std::to_string(p.height) + "x" + std::to_string(p.width) + "x" +
                      std::to_string(p.in_channels) + " * " + std::to_string(p.filter_h) + "x" + std::to_string(p.filter_w) + "x" +
                      std::to_string(p.out_channels) + " s" + std::to_string(p.g.stride) + " d" + std::to_string(p.g.dilation) + " p" +
                      std::to_string(p.g.padding);
            c.kernel = make_kernel(p.g);
            c.args = {input(Kind::F32, {p.batch, p.height, p.width, p.in_channels}, uniform(seed, -1, 1)),
                      input(Kind::F32, {p.filter_h, p.filter_w, p.in_channels, p.out_channels}, uniform(seed + 1, -1, 1)),
                      input(Kind::F32, {p.out_channels}, uniform(seed + 2, -0.5, 0.5)),
                      output(Kind::F32, {p.batch, p.out_h(), p.out_w(), p.out_channels})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [p](const Case& c) { return std::vector<std::vector<double>>{reference(c, p)}; };
            // About gamma(taps) sum |x w| per output: 3e-6 (up to 8e-6) for 18 taps of
            // [-1, 1) values. A tap from the wrong place (stride, dilation, padding)
            // changes an output by a product, ~0.25 (3 10^4 bounds and more).
            c.error_bound = [p](const Case& c) { return error_bound(c, p); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_conv2d);

}  // namespace kiln::catalog
