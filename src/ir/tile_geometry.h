// Row-major geometry of tiles: strides and coordinates of elements.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/detail/value.h>

#include "ir/ir.h"

namespace kiln::ir {

// Row-major strides (elements) of a tile of these dims.
inline std::vector<std::int64_t> strides_of(const std::vector<detail::Dim>& dims) {
    std::vector<std::int64_t> s(dims.size(), 1);
    for (std::size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k].extent;
    return s;
}

// A relayout (permute, slice, broadcast) reads its operand at an affine function
// of its own coordinates: element p of the result is the operand's element at
// row-major offset sum over d of p[d] * coef[d], plus base.
struct AffineSource {
    std::vector<std::int64_t> coef;  // one per dim of the result
    std::int64_t base = 0;
};
AffineSource relayout_source(const Node& n);

}  // namespace kiln::ir
