// swiglu: y = silu(a) * g per row, a and g the two halves of each row of a bf16
// [R, 2C] input (the gated MLP of Llama-style models), f32 inside, bf16 out
// (row_kernels.h).
#include <cmath>

#include "catalog.h"
#include "row_kernels.h"
#include "row_shapes.h"

namespace kiln::catalog {
namespace {

std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    std::vector<double> y(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
            const double a = x[i * 2 * cols + j], g = x[i * 2 * cols + cols + j];
            y[i * cols + j] = a / (1 + std::exp(-a)) * g;
        }
    return {y};
}

// The kernel's arithmetic on Bounded values (error_bound.h): exp within kMathUlps,
// 1 + e, a quotient and a product in f32, one bf16 rounding.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    std::vector<Bounded> y;
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
            const Bounded a = exact(x[i * 2 * cols + j]), g = exact(x[i * 2 * cols + cols + j]);
            y.push_back(cast(a / (1.0 + exp(-a)) * g, Kind::BF16));
        }
    return {y};
}

Entry make_swiglu() {
    Entry e;
    e.name = "swiglu";
    e.description = "bf16 silu(a) * g from the two halves of each row, f32 inside";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Case> cases;
        for (auto [rows, cols] : row_shapes(size)) {
            Case c;
            c.shape = shape_name(rows, 2 * cols);
            c.kernel = rows::swiglu<bf16>();
            c.args = {input(Kind::BF16, {rows, 2 * cols}, uniform(seed, -5, 5)), output(Kind::BF16, {rows, cols})};
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // Only roundings: a swapped gate and value (silu(g) * a) or a sigmoid of +a
            // instead of -a is off by many bounds.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_swiglu);

}  // namespace kiln::catalog
