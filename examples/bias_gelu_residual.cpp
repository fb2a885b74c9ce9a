// bias_gelu_residual: y = gelu_tanh(x + bias) + residual over 2-D blocks (seed 004,
// section 3). The 1-D bias broadcasts by its shared column axis; every load and the
// one store are explicit.
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr float kGeluScale = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluCubic = 0.044715f;

struct Block {
    std::int64_t m = 2;
    std::int64_t n = 4;
};

Kernel make_kernel(Block blk) {
    return kernel("bias_gelu_residual", [=](View<const f32, 2> x, View<const f32, 1> bias, View<const f32, 2> residual,
                                            View<f32, 2> y) {
        auto gm = axis("block_m", ceil_div(x.extent<0>(), blk.m));
        auto gn = axis("block_n", ceil_div(x.extent<1>(), blk.n));
        auto m = axis("m", blk.m);
        auto n = axis("n", blk.n);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto origin = coord(nest.index(gm) * blk.m, nest.index(gn) * blk.n);
            auto value = x[origin, shape(m, n)] + bias[coord(nest.index(gn) * blk.n), shape(n)];
            auto cubic = value * value * value;
            auto gelu = 0.5f * value * (1.0f + tanh(kGeluScale * (value + kGeluCubic * cubic)));
            y(origin, shape(m, n)).store(gelu + residual[origin, shape(m, n)]);
        }
    });
}

// The kernel's arithmetic on Bounded values (error_bound.h), with the exact
// constants of the reference: the kernel's f32 sqrt(2/pi) and 0.044715 carry their
// representation errors, tanh is within kMathUlps.
Bounds error_bound(const Case& in, std::int64_t rows, std::int64_t cols) {
    auto x = values(*in.args[0]), bias = values(*in.args[1]), res = values(*in.args[2]);
    const double scale = std::sqrt(2.0 / std::acos(-1.0));
    return Bounds{each_element(rows * cols, [&](std::int64_t i) {
        const Bounded value = exact(x[i]) + exact(bias[i % cols]);
        const Bounded cubic = value * value * value;
        const Bounded gelu = 0.5 * value * (1.0 + tanh(scale * (value + 0.044715 * cubic)));
        return gelu + exact(res[i]);
    })};
}

Entry make_bias_gelu_residual() {
    Entry e;
    e.name = "bias_gelu_residual";
    e.description = "f32 y = gelu_tanh(x + bias[col]) + residual, 2-D blocks, bias broadcast by axis";
    e.cases = [](Size size, std::uint64_t seed) {
        struct Shape2 { std::int64_t rows, cols; Block block; };
        std::vector<Shape2> shapes;
        switch (size) {  // blocks of the seed at small sizes; wider blocks once there is work
            case Size::small: shapes = {{3, 8, {2, 4}}, {5, 13, {2, 4}}, {1, 1, {2, 4}}}; break;
            case Size::medium: shapes = {{64, 256, {8, 64}}, {100, 77, {8, 64}}, {257, 33, {16, 16}}}; break;
            case Size::large: shapes = {{2048, 4096, {16, 128}}, {4095, 1001, {16, 128}}, {65536, 64, {64, 64}}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols, block] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel(block);
            // x spans the GELU's curved region and both tails.
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -5, 5)), input(Kind::F32, {cols}, uniform(seed + 1, -1, 1)),
                      input(Kind::F32, {rows, cols}, uniform(seed + 2, -1, 1)), output(Kind::F32, {rows, cols})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [rows, cols](const Case& c) {
                auto x = values(*c.args[0]), bias = values(*c.args[1]), res = values(*c.args[2]);
                std::vector<double> y(x.size());
                const double k = std::sqrt(2.0 / std::acos(-1.0));
                for (std::int64_t i = 0; i < rows; ++i)
                    for (std::int64_t j = 0; j < cols; ++j) {
                        double v = x[i * cols + j] + bias[j];
                        y[i * cols + j] = 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v))) + res[i * cols + j];
                    }
                return std::vector<std::vector<double>>{y};
            };
            // A dozen roundings per element, bounded from the magnitudes of the terms
            // (a GELU up to ~5 and a residual that may cancel it), not by a share of
            // the outputs' norm, which seed 1016 exceeded. The bound is 1e-6 to 3e-6;
            // the erf GELU instead of the tanh one differs by up to 4.7e-4 (hundreds
            // of bounds), a bias broadcast along the wrong axis by ~0.5 (10^5 bounds).
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_bias_gelu_residual);

}  // namespace kiln::catalog
