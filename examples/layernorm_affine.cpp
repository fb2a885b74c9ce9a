// layernorm_affine: y = LayerNorm(x) * weight + bias per row, bf16 in and out, f32
// inside (two-pass variance, 1/sqrt as rsqrt), the weight and bias vectors loaded
// as [C] tiles and broadcast over the row: the form a transformer's LayerNorm is
// written in, and the one the cuda target keeps in registers (the vectors held as
// the columns of each thread's runs).
#include <cmath>

#include "catalog.h"
#include "row_kernels.h"
#include "row_shapes.h"

namespace kiln::catalog {
namespace {

constexpr float kEpsilon = rows::kLayerNormEpsilon;

Kernel make_kernel() { return rows::layernorm_affine<bf16>(); }

std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), w = values(*c.args[1]), b = values(*c.args[2]);
    std::vector<double> y(x.size());
    const double n = static_cast<double>(cols), eps = kEpsilon;
    for (std::int64_t i = 0; i < rows; ++i) {
        const double* v = x.data() + i * cols;
        double mean = 0, variance = 0;
        for (std::int64_t j = 0; j < cols; ++j) mean += v[j] / n;
        for (std::int64_t j = 0; j < cols; ++j) variance += (v[j] - mean) * (v[j] - mean) / n;
        for (std::int64_t j = 0; j < cols; ++j) y[i * cols + j] = (v[j] - mean) / std::sqrt(variance + eps) * w[j] + b[j];
    }
    return {y};
}

// The kernel's arithmetic on Bounded values (error_bound.h): two sums of cols terms
// in any order, products by the f32 number nearest 1/cols, rsqrt within kMathUlps,
// the affine step in f32 and one bf16 rounding.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), w = values(*c.args[1]), b = values(*c.args[2]);
    const double depth = reduction_depth(cols);
    const Bounded inv_n = constant(1.0 / static_cast<double>(cols));
    std::vector<Bounded> y;
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> v, squares;
        for (std::int64_t j = 0; j < cols; ++j) v.push_back(exact(x[i * cols + j]));
        const Bounded mean = sum(v, depth) * inv_n;
        for (auto& e : v) {
            e = e - mean;
            squares.push_back(e * e);
        }
        const Bounded inv_std = rsqrt(sum(squares, depth) * inv_n + static_cast<double>(kEpsilon));
        for (std::int64_t j = 0; j < cols; ++j)
            y.push_back(cast(v[static_cast<std::size_t>(j)] * inv_std * exact(w[j]) + exact(b[j]), Kind::BF16));
    }
    return {y};
}

Entry make_layernorm_affine() {
    Entry e;
    e.name = "layernorm_affine";
    e.description = "bf16 LayerNorm with weight and bias vectors per row, f32 inside";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Case> cases;
        for (auto [rows, cols] : row_shapes(size)) {
            Case c;
            c.shape = shape_name(rows, cols);
            c.kernel = make_kernel();
            c.args = {input(Kind::BF16, {rows, cols}, uniform(seed, -3, 5)), input(Kind::BF16, {cols}, uniform(seed + 1, 0.5, 1.5)),
                      input(Kind::BF16, {cols}, uniform(seed + 2, -1, 1)), output(Kind::BF16, {rows, cols})};
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // The final bf16 rounding (2^-8 of each output) dominates the bound; a
            // missing weight or bias, or the weight of another column, is off by many
            // bounds (the weights are 0.5 to 1.5, the biases -1 to 1).
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_layernorm_affine);

}  // namespace kiln::catalog
