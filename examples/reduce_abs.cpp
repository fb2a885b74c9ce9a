// reduce_abs: y[i] = sum_j |x[i][j]| (the L1 norm of each row), rows of a 2-D f32
// tensor to a 1-D output. The blocked walk of reduce_sum, with |x| taken as each
// block is loaded; padding reads as 0, and |0| leaves the sum unchanged.
#include <algorithm>
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 4;
constexpr std::uint32_t kBlockCols = 128;

Kernel make_kernel() {
    return kernel("reduce_abs", [](View<const f32, 2> x, View<f32, 1> y) {
        auto gm = axis("block_rows", ceil_div(x.extent<0>(), kBlockRows));
        auto col_tiles = axis("col_tiles", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm))) {
            auto row0 = nest.index(gm) * kBlockRows;
            auto partial = zeros<f32>(shape(r, c));
            for (auto& step : nest.serial(shape(col_tiles))) {
                partial = partial + abs(x[coord(row0, step.index() * kBlockCols), shape(r, c)]);
            }
            y(coord(row0), shape(r)).store(reduce(partial, c, add));
        }
    });
}

Entry make_reduce_abs() {
    Entry e;
    e.name = "reduce_abs";
    e.description = "row sums of |x| (L1 norms) of a 2-D f32 tensor, column blocks with loop-carried partials";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{4, 128}, {7, 300}, {1, 1}}; break;
            case Size::medium: shapes = {{256, 1024}, {301, 999}, {2, 65537}}; break;
            case Size::large: shapes = {{4096, 4096}, {4095, 4097}, {8, 1 << 21}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -1, 1)), output(Kind::F32, {rows})};
            c.reference = [rows, cols](const Case& in) {
                auto x = values(*in.args[0]);
                std::vector<double> sums(static_cast<std::size_t>(rows), 0.0);
                for (std::int64_t i = 0; i < rows; ++i)
                    for (std::int64_t j = 0; j < cols; ++j) sums[static_cast<std::size_t>(i)] += std::abs(x[static_cast<std::size_t>(i * cols + j)]);
                return std::vector<std::vector<double>>{sums};
            };
            // Each lane adds its column blocks in order (a rounding per block after the
            // first), then the 128 lanes are reduced in any order: no term passes more
            // than depth = blocks - 1 + 127 roundings (nor cols - 1), so the error is at
            // most gamma(depth) * sum |x| (error_bound.h). At 300 columns that is about
            // 1e-3, where a dropped element is off by ~0.4 (400 bounds) and a dropped
            // block by 30 or more; at 65537 columns (medium) the bound, ~1, still
            // catches a dropped block.
            c.error_bound = [rows, cols](const Case& in) {
                auto x = values(*in.args[0]);
                const std::int64_t blocks = (cols + kBlockCols - 1) / kBlockCols;
                const double depth = std::min(reduction_depth(cols), static_cast<double>(blocks - 1) + reduction_depth(kBlockCols));
                return Bounds{each_element(rows, [&](std::int64_t i) {
                    std::vector<Bounded> terms;
                    for (std::int64_t j = 0; j < cols; ++j) terms.push_back(abs(exact(x[i * cols + j])));
                    return sum(terms, depth);
                })};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_reduce_abs);

}  // namespace kiln::catalog
