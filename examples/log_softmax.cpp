// log_softmax: y = x - max - log(sum(exp(x - max))) per row, bf16 in and out, f32
// inside (row_kernels.h).
#include <algorithm>
#include <cmath>

#include "catalog.h"
#include "row_kernels.h"
#include "row_shapes.h"

namespace kiln::catalog {
namespace {

std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    std::vector<double> y(x.size());
    for (std::int64_t i = 0; i < rows; ++i) {
        const double* v = x.data() + i * cols;
        const double peak = *std::max_element(v, v + cols);
        double total = 0;
        for (std::int64_t j = 0; j < cols; ++j) total += std::exp(v[j] - peak);
        for (std::int64_t j = 0; j < cols; ++j) y[i * cols + j] = v[j] - peak - std::log(total);
    }
    return {y};
}

// The kernel's arithmetic on Bounded values (error_bound.h): the maximum is exact,
// x - max rounds once, exp and log within kMathUlps, a sum of cols terms in any
// order, one subtraction and one bf16 rounding.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    std::vector<Bounded> y;
    for (std::int64_t i = 0; i < rows; ++i) {
        Bounded peak = exact(x[i * cols]);
        for (std::int64_t j = 0; j < cols; ++j) peak = max(peak, exact(x[i * cols + j]));
        std::vector<Bounded> shifted, exponentials;
        for (std::int64_t j = 0; j < cols; ++j) {
            shifted.push_back(exact(x[i * cols + j]) - peak);
            exponentials.push_back(exp(shifted.back()));
        }
        const Bounded log_total = log(sum(exponentials, reduction_depth(cols)));
        for (const auto& s : shifted) y.push_back(cast(s - log_total, Kind::BF16));
    }
    return {y};
}

Entry make_log_softmax() {
    Entry e;
    e.name = "log_softmax";
    e.description = "bf16 log-softmax per row, f32 inside";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<Case> cases;
        for (auto [rows, cols] : row_shapes(size)) {
            Case c;
            c.shape = shape_name(rows, cols);
            c.kernel = rows::log_softmax<bf16>();
            c.args = {input(Kind::BF16, {rows, cols}, uniform(seed, -4, 4)), output(Kind::BF16, {rows, cols})};
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // The final bf16 rounding dominates; a sum over cols - 1 terms or a missing
            // max shift in the log (log of the unshifted sum) is off by many bounds.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_log_softmax);

}  // namespace kiln::catalog
