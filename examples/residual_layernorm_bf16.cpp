// residual_layernorm_bf16: h = x + residual (stored, bf16) and y = LayerNorm(h) *
// weight + bias per row (bf16), the sum kept in f32 for the norm: the fused
// residual add and LayerNorm of a transformer block (row_kernels.h).
#include <cmath>

#include "catalog.h"
#include "row_kernels.h"
#include "row_shapes.h"

namespace kiln::catalog {
namespace {

constexpr float kEpsilon = rows::kLayerNormEpsilon;

std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), res = values(*c.args[1]), w = values(*c.args[2]), b = values(*c.args[3]);
    std::vector<double> h(x.size()), y(x.size());
    const double n = static_cast<double>(cols), eps = kEpsilon;
    for (std::size_t k = 0; k < x.size(); ++k) h[k] = x[k] + res[k];
    for (std::int64_t i = 0; i < rows; ++i) {
        const double* v = h.data() + i * cols;
        double mean = 0, variance = 0;
        for (std::int64_t j = 0; j < cols; ++j) mean += v[j] / n;
        for (std::int64_t j = 0; j < cols; ++j) variance += (v[j] - mean) * (v[j] - mean) / n;
        for (std::int64_t j = 0; j < cols; ++j) y[i * cols + j] = (v[j] - mean) / std::sqrt(variance + eps) * w[j] + b[j];
    }
    return {h, y};
}

// The kernel's arithmetic on Bounded values (error_bound.h): the f32 sum, rounded
// once more to bf16 for h; for y, as layernorm_affine on that f32 sum.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), res = values(*c.args[1]), w = values(*c.args[2]), b = values(*c.args[3]);
    const double depth = reduction_depth(cols);
    const Bounded inv_n = constant(1.0 / static_cast<double>(cols));
    Bounds out(2);
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> v, squares;
        for (std::int64_t j = 0; j < cols; ++j) {
            v.push_back(exact(x[i * cols + j]) + exact(res[i * cols + j]));
            out[0].push_back(cast(v.back(), Kind::BF16));
        }
        const Bounded mean = sum(v, depth) * inv_n;
        for (auto& e : v) {
            e = e - mean;
            squares.push_back(e * e);
        }
        const Bounded inv_std = rsqrt(sum(squares, depth) * inv_n + static_cast<double>(kEpsilon));
        for (std::int64_t j = 0; j < cols; ++j)
            out[1].push_back(cast(v[static_cast<std::size_t>(j)] * inv_std * exact(w[j]) + exact(b[j]), Kind::BF16));
    }
    return out;
}

Entry make_residual_layernorm_bf16() {
    Entry e;
    e.name = "residual_layernorm_bf16";
    e.description = "bf16 h = x + residual and y = LayerNorm(h) * weight + bias per row, f32 inside";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Case> cases;
        for (auto [rows, cols] : row_shapes(size)) {
            Case c;
            c.shape = shape_name(rows, cols);
            c.kernel = rows::residual_layernorm<bf16>();
            c.args = {input(Kind::BF16, {rows, cols}, uniform(seed, -2, 3)), input(Kind::BF16, {rows, cols}, uniform(seed + 1, -1, 1)),
                      input(Kind::BF16, {cols}, uniform(seed + 2, 0.5, 1.5)), input(Kind::BF16, {cols}, uniform(seed + 3, -1, 1)),
                      output(Kind::BF16, {rows, cols}), output(Kind::BF16, {rows, cols})};
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // The bf16 roundings dominate; a norm of x alone (without the residual) or a
            // missing weight or bias is off by many bounds.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_residual_layernorm_bf16);

}  // namespace kiln::catalog
