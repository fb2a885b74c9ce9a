// cross_entropy: per row, the loss log(sum(exp(z))) - z[label] from bf16 logits and
// an i64 label (f32 loss), and its gradient softmax(z) - one_hot(label) (bf16). The
// labelled logit is a masked sum rather than a gather (row_kernels.h), so the
// whole row stays in registers on the cuda target.
#include <algorithm>
#include <cmath>

#include "catalog.h"
#include "row_kernels.h"
#include "row_shapes.h"

namespace kiln::catalog {
namespace {

std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto z = values(*c.args[0]), label = values(*c.args[1]);
    std::vector<double> loss(static_cast<std::size_t>(rows)), gradient(z.size());
    for (std::int64_t i = 0; i < rows; ++i) {
        const double* v = z.data() + i * cols;
        const double peak = *std::max_element(v, v + cols);
        double total = 0;
        for (std::int64_t j = 0; j < cols; ++j) total += std::exp(v[j] - peak);
        const auto y = static_cast<std::int64_t>(label[static_cast<std::size_t>(i)]);
        loss[static_cast<std::size_t>(i)] = std::log(total) + peak - v[y];
        for (std::int64_t j = 0; j < cols; ++j) gradient[i * cols + j] = std::exp(v[j] - peak) / total - (j == y ? 1.0 : 0.0);
    }
    return {loss, gradient};
}

// The kernel's arithmetic on Bounded values (error_bound.h): the maximum and the
// masked sum (one nonzero term) are exact; exp and log within kMathUlps; a sum of
// cols terms in any order. The loss is a difference of terms up to ~6 and the
// gradient at the label cancels: both bounded by their terms' magnitudes.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto z = values(*c.args[0]), label = values(*c.args[1]);
    Bounds out(2);
    for (std::int64_t i = 0; i < rows; ++i) {
        Bounded peak = exact(z[i * cols]);
        for (std::int64_t j = 0; j < cols; ++j) peak = max(peak, exact(z[i * cols + j]));
        std::vector<Bounded> exponentials;
        for (std::int64_t j = 0; j < cols; ++j) exponentials.push_back(exp(exact(z[i * cols + j]) - peak));
        const Bounded total = sum(exponentials, reduction_depth(cols));
        const auto y = static_cast<std::int64_t>(label[static_cast<std::size_t>(i)]);
        out[0].push_back(log(total) + peak - exact(z[i * cols + y]));
        for (std::int64_t j = 0; j < cols; ++j)
            out[1].push_back(cast(exponentials[static_cast<std::size_t>(j)] / total - (j == y ? 1.0 : 0.0), Kind::BF16));
    }
    return out;
}

Entry make_cross_entropy() {
    Entry e;
    e.name = "cross_entropy";
    e.description = "bf16 logits, i64 labels: per-row loss (f32) and gradient softmax - one_hot (bf16)";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Case> cases;
        for (auto [rows, cols] : row_shapes(size)) {
            Case c;
            c.shape = shape_name(rows, cols);
            c.kernel = rows::cross_entropy<bf16>();
            auto pick = uniform(seed + 1, 0, static_cast<double>(cols));
            c.args = {input(Kind::BF16, {rows, cols}, uniform(seed, -4, 4)),
                      input(Kind::I64, {rows}, [pick, cols](std::int64_t i) { return std::min(std::floor(pick(i)), static_cast<double>(cols - 1)); }),
                      output(Kind::F32, {rows}), output(Kind::BF16, {rows, cols})};
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // A loss that picks the wrong logit is off by |z_a - z_b| ~ 2 (10^5 bounds);
            // a one-hot in the wrong column moves two gradients by 1.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_cross_entropy);

}  // namespace kiln::catalog
