// Which GEMM operands the Hopper kernel's TMA reads in place and which are staged
// first (gemm_staging.h): the rule is TMA's (16-byte aligned base and row stride,
// unit inner stride, 32-bit extents), checked here on hand-made views.
#include <gtest/gtest.h>

#include <cstdint>

#include "targets/cuda/gemm_staging.h"

namespace kiln::cu {
namespace {

const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

TEST(GemmStaging, TmaReadsAlignedRowMajorViewsInPlace) {
    EXPECT_TRUE(tma_readable(at(0x10000), {4096, 4096}, {4096, 1}, 2));
    EXPECT_TRUE(tma_readable(at(0x10000), {100, 8}, {8, 1}, 2));      // 16-byte rows exactly
    EXPECT_TRUE(tma_readable(at(0x10010), {100, 60}, {64, 1}, 2));    // a column slice of a 64-wide matrix
}

TEST(GemmStaging, RowStridesAndBasesTmaCannotDescribeAreStaged) {
    EXPECT_FALSE(tma_readable(at(0x10000), {8191, 8191}, {8191, 1}, 2));  // 16382-byte rows
    EXPECT_FALSE(tma_readable(at(0x10000), {100, 100}, {100, 1}, 2));     // 200-byte rows
    EXPECT_FALSE(tma_readable(at(0x10002), {64, 64}, {64, 1}, 2));        // starts at an odd column
    EXPECT_TRUE(tma_readable(at(0x10000), {100, 100}, {100, 1}, 4));      // the same rows in f32: 400 bytes
}

TEST(GemmStaging, TransposedOrEmptyOrHugeViewsAreNotReadInPlace) {
    EXPECT_FALSE(tma_readable(at(0x10000), {64, 64}, {1, 64}, 2));  // column-major: the inner stride is not 1
    EXPECT_FALSE(tma_readable(at(0x10000), {0, 64}, {64, 1}, 2));
    EXPECT_FALSE(tma_readable(at(0x10000), {std::int64_t{1} << 31, 64}, {64, 1}, 2));
    EXPECT_FALSE(tma_readable(at(0x10000), {64, 64, 1}, {64, 1, 1}, 2));  // not rank 2
}

}  // namespace
}  // namespace kiln::cu
