// clamp: y = min(max(x, lo), hi) over a 2-D f32 tensor, with the bounds passed as
// kernel scalar arguments (Scalar<f32>), so one traced program serves every pair.
// min and max select an operand, so the result is exact: inputs equal to a bound
// (ties) come back unchanged.
#include <algorithm>
#include <limits>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 8;
constexpr std::uint32_t kBlockCols = 128;

Kernel make_kernel() {
    return kernel("clamp", [](View<const f32, 2> x, Scalar<f32> lo, Scalar<f32> hi, View<f32, 2> y) {
        auto gm = axis("block_rows", ceil_div(x.extent<0>(), kBlockRows));
        auto gn = axis("block_cols", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto origin = coord(nest.index(gm) * kBlockRows, nest.index(gn) * kBlockCols);
            y(origin, shape(r, c)).store(min(max(x[origin, shape(r, c)], lo), hi));
        }
    });
}

// Inputs in [-2, 2), with every fifth element exactly on a bound, so that ties are
// exercised on every shape.
std::function<double(std::int64_t)> inputs_with_ties(std::uint64_t seed, double lo, double hi) {
    auto u = uniform(seed, -2, 2);
    return [u, lo, hi](std::int64_t i) {
        double v = u(i);
        if (i % 5 == 1) return lo;
        if (i % 5 == 3) return hi;
        return v;
    };
}

Entry make_clamp() {
    Entry e;
    e.name = "clamp";
    e.description = "y = clamp(x, lo, hi), 2-D f32, bounds as kernel scalars";
    e.cases = [](Size size, std::uint64_t seed) {
        struct ShapeAndBounds {
            std::int64_t rows, cols;
            double lo, hi;  // f32-representable, so the kernel sees these exact bounds
        };
        std::vector<ShapeAndBounds> shapes;
        switch (size) {
            case Size::small: shapes = {{8, 128, -0.5, 0.75}, {13, 300, -1.25, 0.0}, {1, 5, 0.25, 0.25}}; break;
            case Size::medium: shapes = {{256, 1024, -0.5, 0.75}, {300, 1000, -1.25, 0.0}, {1, 65537, 0.25, 0.25}}; break;
            case Size::large: shapes = {{4096, 4096, -0.5, 0.75}, {4095, 4097, -1.25, 0.0}, {1, 1 << 24, 0.25, 0.25}}; break;
        }
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::vector<Case> cases;
        for (auto [rows, cols, lo, hi] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            c.args = {input(Kind::F32, {rows, cols}, inputs_with_ties(seed, lo, hi)), scalar_arg(Kind::F32), scalar_arg(Kind::F32),
                      output(Kind::F32, {rows, cols})};
            c.scalars = {nan, lo, hi, nan};
            c.reference = [](const Case& in) {
                auto x = values(*in.args[0]);
                const double low = in.scalars[1], high = in.scalars[2];
                for (double& v : x) v = std::min(std::max(v, low), high);
                return std::vector<std::vector<double>>{x};
            };
            c.exact_integer = true;  // selection, no arithmetic
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_clamp);

}  // namespace kiln::catalog
