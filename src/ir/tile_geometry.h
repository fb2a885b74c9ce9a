// Row-major geometry of tiles: strides and coordinates of elements.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/detail/value.h>

namespace kiln::ir {

// Row-major strides (elements) of a tile of these dims.
inline std::vector<std::int64_t> strides_of(const std::vector<detail::Dim>& dims) {
    std::vector<std::int64_t> s(dims.size(), 1);
    for (std::size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k].extent;
    return s;
}

}  // namespace kiln::ir
