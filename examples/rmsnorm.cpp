// rmsnorm: unweighted RMSNorm of each row, y = x / sqrt(mean(x^2) + 1e-12f), the
// legacy benchmark's form (seed 004, "Migrated examples": no scale weight, the old
// epsilon). One row per program; the row is walked in column blocks twice (sum of
// squares, then scale), so rows of any length fit in a fixed-size tile.
#include <algorithm>
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockCols = 256;
constexpr float kEpsilon = 1e-12f;

Kernel make_kernel() {
    return kernel("rmsnorm", [](View<const f32, 2> x, View<f32, 2> y) {
        auto rows = axis("rows", x.extent<0>());
        auto col_tiles = axis("col_tiles", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", 1);
        auto c = axis("c", kBlockCols);
        // The row length as a host float, as in seed 004's norms: the kernel is
        // specialised on it (traced once per distinct length).
        auto columns = static_cast<float>(x.extent<1>());
        for (auto& nest : parallel(shape(rows))) {
            auto row = nest.index(rows);
            // One running sum per lane, carried across column blocks; padding adds 0.
            auto squares = zeros<f32>(shape(r, c));
            for (auto& step : nest.serial(shape(col_tiles))) {
                auto v = x[coord(row, step.index() * kBlockCols), shape(r, c)];
                squares = squares + v * v;
            }
            auto rms = sqrt(reduce(squares, c, add) / columns + kEpsilon);
            for (auto& step : nest.serial(shape(col_tiles))) {
                auto origin = coord(row, step.index() * kBlockCols);
                y(origin, shape(r, c)).store(x[origin, shape(r, c)] / rms);
            }
        }
    });
}

std::vector<std::vector<double>> reference(const Case& in, std::int64_t rows, std::int64_t cols) {
    auto x = values(*in.args[0]);
    const double eps = static_cast<double>(kEpsilon);  // the f32 constant the kernel adds
    for (std::int64_t i = 0; i < rows; ++i) {
        double* v = x.data() + i * cols;
        double square = 0;
        for (std::int64_t j = 0; j < cols; ++j) square += v[j] * v[j];
        const double rms = std::sqrt(square / static_cast<double>(cols) + eps);
        for (std::int64_t j = 0; j < cols; ++j) v[j] /= rms;
    }
    return {x};
}

// The kernel's arithmetic on Bounded values (error_bound.h): each lane sums its
// squares over the column blocks (a rounding per block after the first), the lanes
// are reduced in any order, then / columns, + eps, sqrt, and one division per element.
Bounds error_bound(const Case& in, std::int64_t rows, std::int64_t cols) {
    auto x = values(*in.args[0]);
    const std::int64_t blocks = (cols + kBlockCols - 1) / kBlockCols;
    const double depth = std::min(reduction_depth(cols), static_cast<double>(blocks - 1) + reduction_depth(kBlockCols));
    std::vector<Bounded> y;
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> squares;
        for (std::int64_t j = 0; j < cols; ++j) squares.push_back(exact(x[i * cols + j]) * exact(x[i * cols + j]));
        const Bounded rms = sqrt(sum(squares, depth) / static_cast<double>(cols) + static_cast<double>(kEpsilon));
        for (std::int64_t j = 0; j < cols; ++j) y.push_back(exact(x[i * cols + j]) / rms);
    }
    return {y};
}

Entry make_rmsnorm() {
    Entry e;
    e.name = "rmsnorm";
    e.description = "unweighted RMSNorm per row, eps 1e-12f, column-blocked two-pass, f32";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{4, 256}, {3, 300}, {5, 1}}; break;
            case Size::medium: shapes = {{256, 1024}, {100, 1000}, {3, 65537}}; break;
            case Size::large: shapes = {{4096, 4096}, {1000, 8191}, {32768, 128}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -2, 2)), output(Kind::F32, {rows, cols})};
            c.reference = [rows, cols](const Case& in) { return reference(in, rows, cols); };
            // Relative to each output, about (depth / 2 + 3) u with depth = blocks - 1 +
            // 255 (u = 2^-24): 8e-6 at 300 columns. A mean over cols - 1 or cols + 1
            // columns moves every output by 1 / (2 cols) = 1.7e-3 there, 200 bounds; a
            // missing sqrt or a wrong row is off by a factor.
            c.error_bound = [rows, cols](const Case& in) { return error_bound(in, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_rmsnorm);

}  // namespace kiln::catalog
