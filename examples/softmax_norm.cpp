// softmax_norm: per row, softmax, LayerNorm and RMSNorm from one loaded tile (seed
// 004, section 5). LayerNorm uses the seed's mean-square formulation (E[x^2] - E[x]^2,
// clamped at 0) to exercise broadcasting; the robust Welford form is in lib/.
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr float kEpsilon = 1e-5f;

Kernel make_kernel() {
    return kernel("softmax_norm", [](View<const f32, 2> x, View<f32, 2> softmax_out, View<f32, 2> layernorm_out,
                                     View<f32, 2> rmsnorm_out) {
        auto row = axis("row", x.extent<0>());
        auto r = axis("local_row", 1);
        auto c = axis("column", x.extent<1>());
        for (auto& nest : parallel(shape(row))) {
            auto origin = coord(nest.index(), 0);
            auto value = x[origin, shape(r, c)];
            auto peak = reduce(value, c, maximum);
            auto exponentials = exp(value - peak);
            auto denominator = static_cast<float>(x.extent<1>());
            auto mean = reduce(value, c, add) / denominator;
            auto mean_square = reduce(value * value, c, add) / denominator;
            auto variance = max(mean_square - mean * mean, 0.0f);
            softmax_out(origin, shape(r, c)).store(exponentials / reduce(exponentials, c, add));
            layernorm_out(origin, shape(r, c)).store((value - mean) / sqrt(variance + kEpsilon));
            rmsnorm_out(origin, shape(r, c)).store(value / sqrt(mean_square + kEpsilon));
        }
    });
}

// Softmax, LayerNorm (two-pass variance) and RMSNorm of each row, in f64.
std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    std::vector<double> soft(x.size()), layer(x.size()), rms(x.size());
    const double eps = kEpsilon, n = static_cast<double>(cols);
    for (std::int64_t i = 0; i < rows; ++i) {
        const double* v = x.data() + i * cols;
        double peak = v[0], mean = 0, square = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            peak = std::max(peak, v[j]);
            mean += v[j] / n;
            square += v[j] * v[j] / n;
        }
        double total = 0, variance = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            total += std::exp(v[j] - peak);
            variance += (v[j] - mean) * (v[j] - mean) / n;
        }
        for (std::int64_t j = 0; j < cols; ++j) {
            soft[i * cols + j] = std::exp(v[j] - peak) / total;
            layer[i * cols + j] = (v[j] - mean) / std::sqrt(variance + eps);
            rms[i * cols + j] = v[j] / std::sqrt(square + eps);
        }
    }
    return {soft, layer, rms};
}

// The kernel's arithmetic on Bounded values (error_bound.h): the row maximum is
// exact; exp(x - max) within kMathUlps; three sums of cols terms in any order; the
// mean-square variance E[x^2] - E[x]^2 cancels, and its error is bounded by the
// magnitudes of E[x^2] and E[x]^2, not by the variance.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]);
    const double n = static_cast<double>(cols), depth = reduction_depth(cols), eps = kEpsilon;
    Bounds out(3);
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> value, square, exponential;
        for (std::int64_t j = 0; j < cols; ++j) {
            value.push_back(exact(x[i * cols + j]));
            square.push_back(value.back() * value.back());
        }
        Bounded peak = value.front();
        for (const auto& v : value) peak = max(peak, v);
        for (const auto& v : value) exponential.push_back(exp(v - peak));
        const Bounded total = sum(exponential, depth), mean = sum(value, depth) / n, mean_square = sum(square, depth) / n;
        const Bounded variance = max(mean_square - mean * mean, 0.0);
        for (std::int64_t j = 0; j < cols; ++j) {
            out[0].push_back(exponential[j] / total);
            out[1].push_back((value[j] - mean) / sqrt(variance + eps));
            out[2].push_back(value[j] / sqrt(mean_square + eps));
        }
    }
    return out;
}

Entry make_softmax_norm() {
    Entry e;
    e.name = "softmax_norm";
    e.description = "per-row softmax, LayerNorm (mean-square form) and RMSNorm, f32";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{4, 7}, {5, 33}, {3, 1}}; break;
            case Size::medium: shapes = {{128, 256}, {100, 77}, {3, 4097}}; break;
            case Size::large: shapes = {{4096, 1024}, {1000, 4099}, {32768, 64}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            // An offset mean (0.5) keeps E[x^2] - E[x]^2 honest without catastrophic cancellation.
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -3.5, 4.5)), output(Kind::F32, {rows, cols}),
                      output(Kind::F32, {rows, cols}), output(Kind::F32, {rows, cols})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // At 33 columns: softmax within ~3e-6 of each probability, the norms
            // within ~1e-5 (the variance's cancellation costs a factor of 5). A softmax
            // without the max subtracted is the same in exact arithmetic, but a sum
            // over cols - 1 columns, a variance over n - 1 (1.5% at 33 columns) or a
            // missing eps on a small variance is off by 10^3 bounds and more.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_softmax_norm);

}  // namespace kiln::catalog
