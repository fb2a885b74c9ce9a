// scan_sum: the inclusive prefix sum of each row, y[i][j] = sum_{t<=j} x[i][t]. A
// library-composed blocked scan (seed 004, "Migrated examples": no new primitive):
// each column block is scanned with kiln's scan(v, axis, add), then the carried
// total of the row's previous blocks is added; a serial loop carries that total.
#include <algorithm>
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 4;
constexpr std::uint32_t kBlockCols = 64;

Kernel make_kernel() {
    return kernel("scan_sum", [](View<const f32, 2> x, View<f32, 2> y) {
        auto gm = axis("block_rows", ceil_div(x.extent<0>(), kBlockRows));
        auto col_tiles = axis("col_tiles", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm))) {
            auto row0 = nest.index(gm) * kBlockRows;
            auto carry = zeros<f32>(shape(r));  // each row's sum over the blocks before this one
            for (auto& step : nest.serial(shape(col_tiles))) {
                auto origin = coord(row0, step.index() * kBlockCols);
                auto block = x[origin, shape(r, c)];
                y(origin, shape(r, c)).store(scan(block, c, add) + carry);
                carry = carry + reduce(block, c, add);
            }
        }
    });
}

std::vector<std::vector<double>> reference(const Case& in, std::int64_t rows, std::int64_t cols) {
    auto x = values(*in.args[0]);
    for (std::int64_t i = 0; i < rows; ++i) {
        double running = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            running += x[static_cast<std::size_t>(i * cols + j)];
            x[static_cast<std::size_t>(i * cols + j)] = running;
        }
    }
    return {x};
}

// Output j (in block b = j / 64, at place p in it) is the block's scan (p roundings
// at most, any order) plus the carried total: block sums of up to 63 roundings,
// added to the carry one per block, then added to the scan. No term passes more than
// max(p + 1, 64 + b) roundings, nor j; the error is gamma(depth) * sum_{t <= j} |x_t|.
Bounds error_bound(const Case& in, std::int64_t rows, std::int64_t cols) {
    auto x = values(*in.args[0]);
    std::vector<Bounded> y;
    for (std::int64_t i = 0; i < rows; ++i) {
        double running = 0, magnitude = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            running += x[i * cols + j];
            magnitude += std::abs(x[i * cols + j]);
            const std::int64_t b = j / kBlockCols, p = j % kBlockCols;
            const double depth = std::min(static_cast<double>(j), b == 0 ? p : std::max<double>(p + 1, kBlockCols + b));
            y.push_back({running, gamma(depth, Kind::F32) * magnitude});
        }
    }
    return {y};
}

Entry make_scan_sum() {
    Entry e;
    e.name = "scan_sum";
    e.description = "inclusive prefix sum per row, blocked scan with a carried prefix, f32";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{4, 64}, {5, 150}, {1, 1}}; break;
            case Size::medium: shapes = {{256, 1024}, {301, 999}, {2, 65537}}; break;
            case Size::large: shapes = {{4096, 4096}, {4095, 4097}, {8, 1 << 21}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, cols] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(cols);
            c.kernel = make_kernel();
            // An offset mean makes the prefixes grow steadily instead of wandering near 0.
            c.args = {input(Kind::F32, {rows, cols}, uniform(seed, -0.5, 1)), output(Kind::F32, {rows, cols})};
            c.reference = [rows, cols](const Case& in) { return reference(in, rows, cols); };
            // At 150 columns the bound is about gamma(66) * 62 = 2.5e-4; a prefix that
            // skips or repeats an element is off by ~0.4 (1,600 bounds), an exclusive
            // scan by x_j, a carry added twice by a whole block sum.
            c.error_bound = [rows, cols](const Case& in) { return error_bound(in, rows, cols); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_scan_sum);

}  // namespace kiln::catalog
