// rmsnorm_weighted: y = x * rsqrt(mean(x^2) + eps) * weight per row, bf16 in and out,
// f32 inside, the weight vector loaded as a [C] tile and broadcast over the row
// (the RMSNorm of Llama-style models, as a user writes it).
#include <cmath>

#include "catalog.h"
#include "row_kernels.h"
#include "row_shapes.h"

namespace kiln::catalog {
namespace {

constexpr float kEpsilon = rows::kRmsNormEpsilon;

Kernel make_kernel() { return rows::rmsnorm_weighted<bf16>(); }

std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), w = values(*c.args[1]);
    std::vector<double> y(x.size());
    for (std::int64_t i = 0; i < rows; ++i) {
        const double* v = x.data() + i * cols;
        double square = 0;
        for (std::int64_t j = 0; j < cols; ++j) square += v[j] * v[j];
        const double rms = std::sqrt(square / static_cast<double>(cols) + static_cast<double>(kEpsilon));
        for (std::int64_t j = 0; j < cols; ++j) y[i * cols + j] = v[j] / rms * w[j];
    }
    return {y};
}

// The kernel's arithmetic on Bounded values (error_bound.h): a sum of cols squares in
// any order, a product by the f32 number nearest 1/cols, rsqrt within kMathUlps, two
// f32 products and one bf16 rounding.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), w = values(*c.args[1]);
    const Bounded inv_n = constant(1.0 / static_cast<double>(cols));
    std::vector<Bounded> y;
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> squares;
        for (std::int64_t j = 0; j < cols; ++j) squares.push_back(exact(x[i * cols + j]) * exact(x[i * cols + j]));
        const Bounded inv_rms = rsqrt(sum(squares, reduction_depth(cols)) * inv_n + static_cast<double>(kEpsilon));
        for (std::int64_t j = 0; j < cols; ++j) y.push_back(cast(exact(x[i * cols + j]) * inv_rms * exact(w[j]), Kind::BF16));
    }
    return {y};
}

Entry make_rmsnorm_weighted() {
    Entry e;
    e.name = "rmsnorm_weighted";
    e.description = "bf16 RMSNorm with a weight vector per row, f32 inside";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Case> cases;
        for (auto [rows, cols] : row_shapes(size)) {
            Case c;
            c.shape = shape_name(rows, cols);
            c.kernel = make_kernel();
            c.args = {input(Kind::BF16, {rows, cols}, uniform(seed, -2, 2)), input(Kind::BF16, {cols}, uniform(seed + 1, 0.5, 1.5)),
                      output(Kind::BF16, {rows, cols})};
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // The final bf16 rounding dominates the bound; a missing weight or the weight of
            // another column (0.5 to 1.5) is off by many bounds.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_rmsnorm_weighted);

}  // namespace kiln::catalog
