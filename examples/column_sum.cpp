// column_sum: y[c] = sum over the rows of x[r, c], bf16 in, f32 accumulation and
// out (row_kernels.h): programs over blocks of columns, each adding 128-row tiles
// in a serial loop and reducing its accumulator's rows at the end, a reduction
// over the leading axis that the cuda target keeps in registers.
#include <cmath>

#include "catalog.h"
#include "row_kernels.h"

namespace kiln::catalog {
namespace {

std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    std::vector<double> y(static_cast<std::size_t>(cols), 0.0);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) y[static_cast<std::size_t>(j)] += x[i * cols + j];
    return {y};
}

// Each accumulator element adds its rows in order (a rounding per row block after
// the first), then the 128 accumulator rows are reduced in any order: no term passes
// more than blocks - 1 + 127 roundings (padding rows add exact zeros).
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    const std::int64_t blocks = (rows + rows::kColumnSumRows - 1) / rows::kColumnSumRows;
    const double depth = std::min(reduction_depth(rows), static_cast<double>(blocks - 1) + reduction_depth(rows::kColumnSumRows));
    std::vector<Bounded> y;
    for (std::int64_t j = 0; j < cols; ++j) {
        std::vector<Bounded> terms;
        for (std::int64_t i = 0; i < rows; ++i) terms.push_back(exact(x[i * cols + j]));
        y.push_back(sum(terms, depth));
    }
    return {y};
}

Entry make_column_sum() {
    Entry e;
    e.name = "column_sum";
    e.description = "bf16 [R, C] -> f32 [C] sums over the rows, f32 accumulation";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{100, 70}, {300, 64}, {7, 130}}; break;
            case Size::medium: shapes = {{1000, 1000}, {4099, 64}, {3, 5123}}; break;
            case Size::large: shapes = {{8192, 32768}, {4097, 1000}, {100000, 64}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = rows::column_sum<bf16>();
            c.args = {input(Kind::BF16, {rows, cols}, uniform(seed, -1, 1)), output(Kind::F32, {cols})};
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // A sum that skips a row or a row block, or adds a neighbouring column, is
            // off by one term (~0.5, thousands of bounds at 100 rows).
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_column_sum);

}  // namespace kiln::catalog
