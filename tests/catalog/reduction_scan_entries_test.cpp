// The row reductions and scans on hand-computed inputs: small integers make every
// f32 sum exact, so the expected values are exact too, whatever the summation order.
// Shapes are ragged in both dimensions (row blocks of 4, column blocks of 64/128).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "entry_runner.h"

using namespace kiln;
using namespace kiln::catalog::testing;

namespace {
// x[i][j] = ((7i + 3j) mod 11) - 5: small integers of both signs.
std::vector<double> small_integers(std::int64_t rows, std::int64_t cols) {
    std::vector<double> x;
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) x.push_back(static_cast<double>((7 * i + 3 * j) % 11 - 5));
    return x;
}
}  // namespace

TEST(ReduceEntries, RaggedRowsOfIntegersReduceExactly) {
    const std::int64_t rows = 6, cols = 300;  // 2 row blocks (the second half empty), 3 column blocks (the last ragged)
    auto x = small_integers(rows, cols);
    auto sum = run_entry("reduce_sum", {buffer(Kind::F32, {rows, cols}, x), catalog::output(Kind::F32, {rows})});
    auto peak = run_entry("reduce_max", {buffer(Kind::F32, {rows, cols}, x), catalog::output(Kind::F32, {rows})});
    auto low = run_entry("reduce_min", {buffer(Kind::F32, {rows, cols}, x), catalog::output(Kind::F32, {rows})});
    auto l1 = run_entry("reduce_abs", {buffer(Kind::F32, {rows, cols}, x), catalog::output(Kind::F32, {rows})});
    for (std::int64_t i = 0; i < rows; ++i) {
        std::int64_t s = 0, m = -100, n = 100, a = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            auto v = (7 * i + 3 * j) % 11 - 5;
            s += v, a += std::abs(v), m = std::max(m, v), n = std::min(n, v);
        }
        auto k = static_cast<std::size_t>(i);
        EXPECT_EQ(sum[0][k], static_cast<double>(s)) << i;
        EXPECT_EQ(peak[0][k], static_cast<double>(m)) << i;
        EXPECT_EQ(low[0][k], static_cast<double>(n)) << i;
        EXPECT_EQ(l1[0][k], static_cast<double>(a)) << i;
    }
}

TEST(ReduceEntries, PaddingNeverWinsAMaximumOrMinimum) {
    // All-negative rows for max, all-positive rows for min, 130 long: the last column
    // block holds 2 real elements and 126 of padding.
    const std::int64_t cols = 130;
    std::vector<double> neg, pos;
    for (std::int64_t j = 0; j < cols; ++j) {
        neg.push_back(-1.0 - static_cast<double>(j % 13));
        pos.push_back(2.0 + static_cast<double>(j % 17));
    }
    auto peak = run_entry("reduce_max", {buffer(Kind::F32, {1, cols}, neg), catalog::output(Kind::F32, {1})});
    auto low = run_entry("reduce_min", {buffer(Kind::F32, {1, cols}, pos), catalog::output(Kind::F32, {1})});
    EXPECT_EQ(peak[0][0], -1.0);
    EXPECT_EQ(low[0][0], 2.0);
}

TEST(ScanEntries, RaggedRowPrefixSumsAreExact) {
    const std::int64_t rows = 5, cols = 150;  // 64 + 64 + 22 columns; 4 + 1 rows
    auto x = small_integers(rows, cols);
    auto out = run_entry("scan_sum", {buffer(Kind::F32, {rows, cols}, x), catalog::output(Kind::F32, {rows, cols})});
    for (std::int64_t i = 0; i < rows; ++i) {
        std::int64_t running = 0;
        for (std::int64_t j = 0; j < cols; ++j) {
            running += (7 * i + 3 * j) % 11 - 5;
            ASSERT_EQ(out[0][static_cast<std::size_t>(i * cols + j)], static_cast<double>(running)) << i << "," << j;
        }
    }
}

TEST(ScanEntries, RaggedRowRunningMaximumCarriesAcrossBlocks) {
    // A negative row (x[j] = -10 - j mod 3) whose running maximum rises only at j = 3
    // (block one), 100 (block two) and 149 (the ragged block three): the carried
    // maximum must reach into each later block.
    const std::int64_t cols = 150;
    std::vector<double> x;
    for (std::int64_t j = 0; j < cols; ++j) x.push_back(-10.0 - static_cast<double>(j % 3));
    x[3] = -2.0, x[100] = -1.5, x[149] = -0.25;
    auto out = run_entry("scan_max", {buffer(Kind::F32, {1, cols}, x), catalog::output(Kind::F32, {1, cols})});
    for (std::int64_t j = 0; j < cols; ++j) {
        double want = j < 3 ? -10.0 : j < 100 ? -2.0 : j < 149 ? -1.5 : -0.25;
        EXPECT_EQ(out[0][static_cast<std::size_t>(j)], want) << j;
    }
}
