// Host views: validation of caller-supplied extents and strides.
#include <kiln/view.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace kiln::detail {

std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t>& extents) {
    std::vector<std::int64_t> s(extents.size(), 1);
    for (int k = static_cast<int>(extents.size()) - 2; k >= 0; --k) {
        auto ku = static_cast<std::size_t>(k);
        std::int64_t e = std::max<std::int64_t>(extents[ku + 1], 1);
        s[ku] = __builtin_mul_overflow(s[ku + 1], e, &s[ku]) ? INT64_MAX : s[ku];
    }
    return s;
}

std::string view_shape_problem(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides) {
    if (extents.empty()) return "a view needs at least one dimension";
    if (extents.size() > 8) return "views have rank 1 to 8, got " + std::to_string(extents.size());
    if (strides.size() != extents.size()) return std::to_string(extents.size()) + " extents but " + std::to_string(strides.size()) + " strides";
    std::int64_t span = 0;
    for (std::size_t k = 0; k < extents.size(); ++k) {
        if (extents[k] < 0) return "negative extent " + std::to_string(extents[k]) + " in dimension " + std::to_string(k);
        if (strides[k] < 0) return "negative stride " + std::to_string(strides[k]) + " in dimension " + std::to_string(k);
        std::int64_t reach;
        if (extents[k] > 0 && (__builtin_mul_overflow(extents[k] - 1, strides[k], &reach) || __builtin_add_overflow(span, reach, &span)))
            return "extents and strides overflow 64-bit offsets (dimension " + std::to_string(k) + ")";
    }
    // Byte offsets must fit too (8-byte elements at most).
    if (span > (INT64_MAX / 8)) return "the view spans more bytes than a 64-bit offset can address";
    return "";
}

std::string view_problem(const void* data, int element_bytes, const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides) {
    if (auto why = view_shape_problem(extents, strides); !why.empty()) return why;
    return view_data_problem(data, element_bytes, extents);
}

std::string view_data_problem(const void* data, int element_bytes, const std::vector<std::int64_t>& extents) {
    // Checked on every launch: nothing is allocated unless there is a problem.
    if (data_pointer_fine(data, element_bytes)) return "";
    if (std::find(extents.begin(), extents.end(), 0) != extents.end()) return "";  // an empty view reaches no memory: any pointer will do
    if (!data) {
        std::string shape;
        for (auto e : extents) shape += (shape.empty() ? "" : "x") + std::to_string(e);
        return "the data pointer is null, but the view (" + shape + ") has elements";
    }
    if (reinterpret_cast<std::uintptr_t>(data) % static_cast<std::uintptr_t>(element_bytes) != 0) {
        char at[32];
        std::snprintf(at, sizeof at, "%p", data);
        return "the data pointer " + std::string(at) + " is not aligned to its " + std::to_string(element_bytes) + "-byte elements";
    }
    return "";
}

void check_host_view(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, Loc loc) {
    if (auto why = view_shape_problem(extents, strides); !why.empty()) fail(loc, "view", why);
}

}  // namespace kiln::detail
