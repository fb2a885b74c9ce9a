// reduce_min: y[i] = min_j x[i][j], rows of a 2-D f32 tensor to a 1-D output. The
// same blocked walk as reduce_sum, with one running minimum per lane. Padding must
// not win, so edge blocks read past the row end as +inf (load with a fallback), not
// the default 0: a row of positive numbers would otherwise reduce to 0.
#include <algorithm>
#include <limits>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 4;
constexpr std::uint32_t kBlockCols = 128;
constexpr float kHighest = std::numeric_limits<float>::infinity();  // the identity of min

Kernel make_kernel() {
    return kernel("reduce_min", [](View<const f32, 2> x, View<f32, 1> y) {
        auto gm = axis("block_rows", ceil_div(x.extent<0>(), kBlockRows));
        auto col_tiles = axis("col_tiles", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm))) {
            auto row0 = nest.index(gm) * kBlockRows;
            auto partial = full<f32>(shape(r, c), kHighest);
            for (auto& step : nest.serial(shape(col_tiles))) {
                partial = min(partial, x(coord(row0, step.index() * kBlockCols), shape(r, c)).load(kHighest));
            }
            y(coord(row0), shape(r)).store(reduce(partial, c, minimum));
        }
    });
}

Entry make_reduce_min() {
    Entry e;
    e.name = "reduce_min";
    e.description = "row minima of a 2-D f32 tensor, column blocks, +inf padding";
    e.cases = [](Size size, std::uint64_t seed) {
        struct ShapeAndRange {
            std::int64_t rows, cols;
            double lo, hi;  // the range of the inputs
        };
        // The ragged shapes hold only positive numbers: padding read as 0 would show.
        std::vector<ShapeAndRange> shapes;
        switch (size) {
            case Size::small: shapes = {{4, 128, -1, 1}, {7, 300, 1, 3}, {1, 1, 1, 2}}; break;
            case Size::medium: shapes = {{256, 1024, -1, 1}, {301, 999, 1, 3}, {2, 65537, 1, 2}}; break;
            case Size::large: shapes = {{4096, 4096, -1, 1}, {4095, 4097, 1, 3}, {8, 1 << 21, 1, 2}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols, lo, hi] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, lo, hi)), output(Kind::F32, {rows})};
            c.reference = [rows, cols](const Case& in) {
                auto x = values(*in.args[0]);
                std::vector<double> lows(static_cast<std::size_t>(rows));
                for (std::int64_t i = 0; i < rows; ++i)
                    lows[static_cast<std::size_t>(i)] = *std::min_element(x.begin() + i * cols, x.begin() + (i + 1) * cols);
                return std::vector<std::vector<double>>{lows};
            };
            c.exact_integer = true;  // min selects an input
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_reduce_min);

}  // namespace kiln::catalog
