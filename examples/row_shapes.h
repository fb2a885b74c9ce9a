// The shapes of the row kernels' cases (layernorm_affine, rmsnorm_weighted,
// log_softmax, cross_entropy, residual_layernorm_bf16, swiglu): a power-of-two
// width, widths that no CTA's row of runs divides (100, 1000, 4000), and odd widths
// whose last run of 8 bf16 is partial (37, 5123); at the large size the widths of
// the H200 row benchmark (bench/rows_bench.cpp).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "catalog.h"

namespace kiln::catalog {

inline std::vector<std::array<std::int64_t, 2>> row_shapes(Size size) {
    switch (size) {
        case Size::small: return {{4, 256}, {3, 100}, {2, 37}};
        case Size::medium: return {{64, 1000}, {16, 4000}, {8, 5123}};
        case Size::large: return {{4096, 8192}, {1000, 5123}, {32768, 128}};
    }
    return {};
}

inline std::string shape_name(std::int64_t rows, std::int64_t cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

}  // namespace kiln::catalog
