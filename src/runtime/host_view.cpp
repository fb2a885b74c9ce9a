// Host views: validation of caller-supplied extents and strides.
#include <kiln/view.h>

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

void check_host_view(const std::vector<std::int64_t>& extents, const std::vector<std::int64_t>& strides, Loc loc) {
    if (extents.empty()) fail(loc, "view", "a view needs at least one dimension");
    if (extents.size() > 8) fail(loc, "view", "views have rank 1 to 8, got " + std::to_string(extents.size()));
    if (strides.size() != extents.size())
        fail(loc, "view", std::to_string(extents.size()) + " extents but " + std::to_string(strides.size()) + " strides");
    std::int64_t span = 0;
    for (std::size_t k = 0; k < extents.size(); ++k) {
        if (extents[k] < 0) fail(loc, "view", "negative extent " + std::to_string(extents[k]) + " in dimension " + std::to_string(k));
        if (strides[k] < 0) fail(loc, "view", "negative stride " + std::to_string(strides[k]) + " in dimension " + std::to_string(k));
        std::int64_t reach;
        if (extents[k] > 0 && (__builtin_mul_overflow(extents[k] - 1, strides[k], &reach) || __builtin_add_overflow(span, reach, &span)))
            fail(loc, "view", "extents and strides overflow 64-bit offsets (dimension " + std::to_string(k) + ")");
    }
    // Byte offsets must fit too (8-byte elements at most).
    if (span > (INT64_MAX / 8)) fail(loc, "view", "the view spans more bytes than a 64-bit offset can address");
}

}  // namespace kiln::detail
