// residual_layernorm: y = LayerNorm(x + residual) per row, two-pass variance (seed
// 004, section 5.1). `combined` and `centered` are tile values with several
// consumers; no temporary memory is declared.
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr float kEpsilon = 1e-5f;

Kernel make_kernel() {
    return kernel("residual_layernorm", [](View<const f32, 2> X, View<const f32, 2> Residual, View<f32, 2> Y) {
        auto rows = axis("rows", X.extent<0>());
        auto m = axis("m", 1);
        auto n = axis("n", X.extent<1>());
        for (auto& nest : parallel(shape(rows))) {
            auto origin = coord(nest.index(), 0);
            auto combined = X[origin, shape(m, n)] + Residual[origin, shape(m, n)];
            auto denominator = static_cast<float>(X.extent<1>());
            auto mean = reduce(combined, n, add) / denominator;
            auto centered = combined - mean;
            auto variance = reduce(centered * centered, n, add) / denominator;
            Y(origin, shape(m, n)).store(centered / sqrt(variance + kEpsilon));
        }
    });
}

// The kernel's arithmetic on Bounded values (error_bound.h). The mean's error
// (sum |x| ~ 100 cols, (cols - 1) u of it) lands whole on every centred value
// (spread ~0.6): that, not the output's size, sets the bound.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), res = values(*c.args[1]);
    const double n = static_cast<double>(cols), depth = reduction_depth(cols);
    std::vector<Bounded> y;
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> combined, centered, squares;
        for (std::int64_t j = 0; j < cols; ++j) combined.push_back(exact(x[i * cols + j]) + exact(res[i * cols + j]));
        const Bounded mean = sum(combined, depth) / n;
        for (const auto& v : combined) {
            centered.push_back(v - mean);
            squares.push_back(centered.back() * centered.back());
        }
        const Bounded scale = sqrt(sum(squares, depth) / n + static_cast<double>(kEpsilon));
        for (const auto& v : centered) y.push_back(v / scale);
    }
    return {y};
}

Entry make_residual_layernorm() {
    Entry e;
    e.name = "residual_layernorm";
    e.description = "f32 y = LayerNorm(x + residual) per row, two-pass mean and variance";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{4, 8}, {3, 19}, {2, 1}}; break;
            case Size::medium: shapes = {{128, 512}, {77, 300}, {2, 4099}}; break;
            case Size::large: shapes = {{4096, 4096}, {8191, 1000}, {65536, 128}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            // A large common offset: the two-pass form stays accurate where E[x^2] - E[x]^2 would not.
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, 99, 101)), input(Kind::F32, {rows, cols}, uniform(seed + 1, -1, 1)),
                      output(Kind::F32, {rows, cols})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [rows, cols](const Case& c) {
                auto x = values(*c.args[0]), res = values(*c.args[1]);
                std::vector<double> y(x.size());
                for (std::int64_t i = 0; i < rows; ++i) {
                    double mean = 0, variance = 0;
                    for (std::int64_t j = 0; j < cols; ++j) mean += (x[i * cols + j] + res[i * cols + j]) / cols;
                    for (std::int64_t j = 0; j < cols; ++j) variance += std::pow(x[i * cols + j] + res[i * cols + j] - mean, 2) / cols;
                    for (std::int64_t j = 0; j < cols; ++j)
                        y[i * cols + j] = (x[i * cols + j] + res[i * cols + j] - mean) / std::sqrt(variance + kEpsilon);
                }
                return std::vector<std::vector<double>>{y};
            };
            // The bound, ~2 (cols - 1) u 100 / sqrt(variance) per output, is 4e-4 to
            // 8e-4 at 19 columns: a mean over cols - 1 columns moves outputs by ~10
            // (10^4 bounds), a variance over n - 1 by 1/(2n) = 2.6% (50 bounds). The
            // mean's worst-case error grows with cols, typical ones like sqrt(cols):
            // at 4099 columns (medium) the bound is far above what is observed.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_residual_layernorm);

}  // namespace kiln::catalog
