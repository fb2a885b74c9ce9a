// scan_max: the inclusive running maximum of each row, y[i][j] = max_{t<=j} x[i][t].
// The blocked scan of scan_sum with max: each column block is scanned with kiln's
// scan(v, axis, maximum) and combined with the carried maximum of the previous
// blocks. Edge blocks read past the row end as -inf, the identity of max, so every
// lane holds a meaningful value (the padding of the default 0 would be harmless here
// only because it comes last in the row, after every output it could touch).
#include <algorithm>
#include <limits>

#include "catalog.h"

namespace kiln::catalog {
namespace {

constexpr std::uint32_t kBlockRows = 4;
constexpr std::uint32_t kBlockCols = 64;
constexpr float kLowest = -std::numeric_limits<float>::infinity();  // the identity of max

Kernel make_kernel() {
    return kernel("scan_max", [](View<const f32, 2> x, View<f32, 2> y) {
        auto gm = axis("block_rows", ceil_div(x.extent<0>(), kBlockRows));
        auto col_tiles = axis("col_tiles", ceil_div(x.extent<1>(), kBlockCols));
        auto r = axis("r", kBlockRows);
        auto c = axis("c", kBlockCols);
        for (auto& nest : parallel(shape(gm))) {
            auto row0 = nest.index(gm) * kBlockRows;
            auto carry = full<f32>(shape(r), kLowest);  // each row's maximum over the blocks before this one
            for (auto& step : nest.serial(shape(col_tiles))) {
                auto origin = coord(row0, step.index() * kBlockCols);
                auto block = x(origin, shape(r, c)).load(kLowest);
                y(origin, shape(r, c)).store(max(scan(block, c, maximum), carry));
                carry = max(carry, reduce(block, c, maximum));
            }
        }
    });
}

std::vector<std::vector<double>> reference(const Case& in, std::int64_t rows, std::int64_t cols) {
    auto x = values(*in.args[0]);
    for (std::int64_t i = 0; i < rows; ++i) {
        double running = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < cols; ++j) {
            running = std::max(running, x[static_cast<std::size_t>(i * cols + j)]);
            x[static_cast<std::size_t>(i * cols + j)] = running;
        }
    }
    return {x};
}

Entry make_scan_max() {
    Entry e;
    e.name = "scan_max";
    e.description = "inclusive running maximum per row, blocked scan with a carried maximum, f32";
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
            // Negative inputs with an upward drift, so that the running maximum keeps
            // changing along the row instead of settling in the first block.
            auto noise = uniform(seed, -1, 0);
            auto drift = [noise, cols](std::int64_t i) { return noise(i) - 1.0 + 0.5 * static_cast<double>(i % cols) / static_cast<double>(cols); };
            c.args = {input(Kind::F32, {rows, cols}, drift), output(Kind::F32, {rows, cols})};
            c.reference = [rows, cols](const Case& in) { return reference(in, rows, cols); };
            c.exact_integer = true;  // max selects an input
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_scan_max);

}  // namespace kiln::catalog
