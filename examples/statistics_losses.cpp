// statistics_losses: per row, sum, mean, maximum, stable argmax, MSE, MAE, Huber and
// binary cross entropy, all composed from the same tile operations (seed 004,
// section 4). One program per row; the row is one tile.
#include <algorithm>
#include <cmath>
#include <limits>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr float kHuberDelta = 0.75f;
constexpr float kEpsilon = 1e-4f;  // BCE clamps probabilities into [eps, 1 - eps]
// The kernel's upper clamp, 1.0f - kEpsilon: 1 - eps rounded to f32 (0.99989998),
// 1.7e-8 below 1 - 1e-4f. log(1 - p) at p = 1 - eps magnifies that 10^4 times, so the
// reference must clamp to the same number (it clamped to the f64 1 - eps, which put
// a row's BCE up to 1.7e-4 off wherever a probability reached 1: the flaky 4x1).
constexpr float kOneMinusEpsilon = 1.0f - kEpsilon;

Kernel make_kernel() {
    return kernel("statistics_losses", [](View<const f32, 2> x, View<const f32, 2> target, View<const f32, 2> probability,
                                          View<f32, 1> sum_out, View<f32, 1> mean_out, View<f32, 1> peak_out,
                                          View<i64, 1> argmax_out, View<f32, 1> mse_out, View<f32, 1> mae_out,
                                          View<f32, 1> huber_out, View<f32, 1> bce_out) {
        auto row = axis("row", x.extent<0>());
        auto r = axis("local_row", 1);
        auto c = axis("column", x.extent<1>());
        for (auto& nest : parallel(shape(row))) {
            auto origin = coord(nest.index(), 0);
            auto value = x[origin, shape(r, c)];
            auto expected = target[origin, shape(r, c)];
            auto probability_tile = probability[origin, shape(r, c)];
            auto difference = value - expected;
            auto magnitude = abs(difference);
            auto p = min(max(probability_tile, kEpsilon), 1.0f - kEpsilon);
            auto huber = ite(magnitude <= kHuberDelta, 0.5f * difference * difference,
                             kHuberDelta * (magnitude - 0.5f * kHuberDelta));
            auto bce = -(expected * log(p) + (1.0f - expected) * log(1.0f - p));
            auto sum = reduce(value, c, add);
            auto denominator = static_cast<float>(x.extent<1>());
            auto destination = coord(nest.index());
            sum_out(destination, shape(r)).store(sum);
            mean_out(destination, shape(r)).store(sum / denominator);
            peak_out(destination, shape(r)).store(reduce(value, c, maximum));
            argmax_out(destination, shape(r)).store(argmax(value, c));
            mse_out(destination, shape(r)).store(reduce(difference * difference, c, add) / denominator);
            mae_out(destination, shape(r)).store(reduce(magnitude, c, add) / denominator);
            huber_out(destination, shape(r)).store(reduce(huber, c, add) / denominator);
            bce_out(destination, shape(r)).store(reduce(bce, c, add) / denominator);
        }
    });
}

// The eight statistics of each row, in f64, straight from their definitions.
std::vector<std::vector<double>> reference(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), t = values(*c.args[1]), prob = values(*c.args[2]);
    std::vector<std::vector<double>> out(8, std::vector<double>(static_cast<std::size_t>(rows)));
    const double delta = kHuberDelta, eps = kEpsilon, one_minus_eps = kOneMinusEpsilon;
    for (std::int64_t i = 0; i < rows; ++i) {
        double sum = 0, peak = -std::numeric_limits<double>::infinity(), mse = 0, mae = 0, huber = 0, bce = 0;
        std::int64_t first_peak = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            auto k = i * cols + j;
            sum += x[k];
            if (x[k] > peak) {  // strict: ties keep the first index
                peak = x[k];
                first_peak = j;
            }
            double d = x[k] - t[k];
            mse += d * d;
            mae += std::abs(d);
            huber += std::abs(d) <= delta ? 0.5 * d * d : delta * (std::abs(d) - 0.5 * delta);
            double p = std::clamp(prob[k], eps, one_minus_eps);
            bce -= t[k] * std::log(p) + (1.0 - t[k]) * std::log(1.0 - p);
        }
        double n = static_cast<double>(cols);
        double row_stats[8] = {sum, sum / n, peak, static_cast<double>(first_peak), mse / n, mae / n, huber / n, bce / n};
        for (int s = 0; s < 8; ++s) out[s][i] = row_stats[s];
    }
    return out;
}

// The kernel's arithmetic on Bounded values (error_bound.h): per element the
// difference, Huber and BCE terms; per row five reductions of cols terms in any
// order, four of them divided by cols. max and argmax select an input: exact.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t cols) {
    auto x = values(*c.args[0]), t = values(*c.args[1]), prob = values(*c.args[2]);
    const double delta = kHuberDelta, n = static_cast<double>(cols), depth = reduction_depth(cols);
    Bounds out(8);
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> value, square, magnitude, huber, bce;
        Bounded peak = exact(-std::numeric_limits<double>::infinity());
        for (std::int64_t j = 0; j < cols; ++j) {
            auto k = i * cols + j;
            const Bounded v = exact(x[k]), target = exact(t[k]);
            const Bounded d = v - target;
            const Bounded p = exact(std::clamp(prob[k], static_cast<double>(kEpsilon), static_cast<double>(kOneMinusEpsilon)));
            const Bounded quadratic = 0.5 * d * d, linear = delta * (abs(d) - 0.5 * delta);
            Bounded h = abs(d).value <= delta ? quadratic : linear;
            // Where the kernel's |d| may fall on the other side of delta it takes the
            // other branch; the branches differ there by (|d| - delta)^2 / 2 <= e^2 / 2.
            if (std::abs(abs(d).value - delta) <= d.error) h.error = std::max(quadratic.error, linear.error) + 0.5 * d.error * d.error;
            value.push_back(v);
            peak = max(peak, v);
            square.push_back(d * d);
            magnitude.push_back(abs(d));
            huber.push_back(h);
            bce.push_back(-(target * log(p) + (1.0 - target) * log(1.0 - p)));
        }
        const Bounded total = sum(value, depth);
        const Bounded row[8] = {total, total / n, peak, {}, sum(square, depth) / n, sum(magnitude, depth) / n, sum(huber, depth) / n,
                                sum(bce, depth) / n};
        for (int s = 0; s < 8; ++s)
            if (s != 3) out[s].push_back(row[s]);  // output 3, the argmax, is an integer: exact
    }
    return out;
}

Entry make_statistics_losses() {
    Entry e;
    e.name = "statistics_losses";
    e.description = "per-row sum, mean, max, stable argmax (ties: first), MSE, MAE, Huber, BCE";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{3, 5}, {6, 17}, {4, 1}}; break;
            case Size::medium: shapes = {{64, 256}, {100, 77}, {1, 4099}}; break;
            case Size::large: shapes = {{4096, 1024}, {999, 4097}, {65536, 32}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            // x on a coarse grid (quarters in [-2, 2]) so rows have tied maxima; targets in
            // [0, 1] so BCE is defined; probabilities reach 0 and 1 to exercise the clamp.
            auto coarse = uniform(seed, 0, 17);
            auto edge = uniform(seed + 2, -0.1, 1.1);
            c.args = {input(Kind::F32, {rows, cols}, [coarse](std::int64_t i) { return std::floor(coarse(i)) / 4 - 2; }),
                      input(Kind::F32, {rows, cols}, uniform(seed + 1, 0, 1)),
                      input(Kind::F32, {rows, cols}, [edge](std::int64_t i) { return std::clamp(edge(i), 0.0, 1.0); })};
            for (Kind k : {Kind::F32, Kind::F32, Kind::F32, Kind::I64, Kind::F32, Kind::F32, Kind::F32, Kind::F32})
                c.args.push_back(output(k, {rows}));
            c.scalars.assign(c.args.size(), 0);
            c.reference = [rows, cols](const Case& c) { return reference(c, rows, cols); };
            // Each statistic is bounded by its own terms' magnitudes, about (cols + 2) u
            // of sum |terms| / cols: 1.5e-6 of the losses at 17 columns (2e-5 of the
            // sum, which cancels); the max is exact (and the argmax, an integer).
            // Dividing by cols - 1, dropping a column or a term of BCE moves a loss by
            // 6% or more of itself, 10^4 bounds; an unclamped probability makes BCE
            // infinite.
            c.error_bound = [rows, cols](const Case& c) { return error_bound(c, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_statistics_losses);

}  // namespace kiln::catalog
