// Memory layouts (seed 004, 2.1): a whole-tile memory must be total, in bounds and
// injective. Affine layouts are proved from their strides; anything the quick
// argument cannot prove is checked point by point up to 2^20 points.
#include <algorithm>
#include <numeric>
#include <unordered_map>

#include <kiln/kernel.h>

#include "check/shape_rules.h"

namespace kiln::detail {

namespace {
constexpr std::int64_t kEnumerationBudget = std::int64_t{1} << 20;

std::string point_str(const std::vector<std::int64_t>& p) {
    std::string s = "(";
    for (std::size_t k = 0; k < p.size(); ++k) s += (k ? ", " : "") + std::to_string(p[k]);
    return s + ")";
}
}  // namespace

void prove_layout(const Layout& l, Loc loc) {
    auto dims = l.shape.dims(loc);
    if (l.strides.size() != dims.size())
        fail(loc, "memory", "layout has " + std::to_string(l.strides.size()) + " strides for a rank-" + std::to_string(dims.size()) + " shape");
    for (auto& d : dims)
        if (d.extent <= 0) fail(loc, "memory", "non-positive shape: " + check::dims_str(dims));
    for (auto s : l.strides)
        if (s < 0) fail(loc, "memory", "negative stride " + std::to_string(s) + " in layout");
    // The resource holds every offset up to the largest: the tile limit (2^40
    // elements) bounds it too, checked without overflow (the sums below rely on it).
    std::int64_t last = 0;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        std::int64_t reach = 0;
        if (__builtin_mul_overflow(dims[k].extent - 1, l.strides[k], &reach) || __builtin_add_overflow(last, reach, &last) ||
            last >= (std::int64_t{1} << 40))
            fail(loc, "memory", "the layout spans more than 2^40 elements");
    }
    // Total and in bounds by construction: every logical point has an offset, and the
    // allocation spans the largest one.
    // Injective: with strides sorted ascending, each stride exceeding the span of the
    // smaller ones proves it (mixed-radix argument).
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return l.strides[a] < l.strides[b]; });
    std::int64_t span = 0;
    bool proved = true;
    for (auto k : order) {
        if (dims[k].extent == 1) continue;
        if (l.strides[k] <= span) {
            proved = false;
            break;
        }
        span += (dims[k].extent - 1) * l.strides[k];
    }
    if (proved) return;
    std::int64_t count = 1;
    for (auto& d : dims) count *= d.extent;
    if (count > kEnumerationBudget)
        fail(loc, "memory", "cannot prove the layout injective: " + std::to_string(count) + " points exceed the enumeration budget of " +
                                std::to_string(kEnumerationBudget));
    std::unordered_map<std::int64_t, std::int64_t> seen;
    std::vector<std::int64_t> idx(dims.size());
    for (std::int64_t p = 0; p < count; ++p) {
        std::int64_t r = p, off = 0;
        for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
            idx[static_cast<std::size_t>(k)] = r % dims[static_cast<std::size_t>(k)].extent;
            r /= dims[static_cast<std::size_t>(k)].extent;
            off += idx[static_cast<std::size_t>(k)] * l.strides[static_cast<std::size_t>(k)];
        }
        auto [it, fresh] = seen.emplace(off, p);
        if (!fresh) {
            std::vector<std::int64_t> first(dims.size());
            std::int64_t q = it->second;
            for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
                first[static_cast<std::size_t>(k)] = q % dims[static_cast<std::size_t>(k)].extent;
                q /= dims[static_cast<std::size_t>(k)].extent;
            }
            fail(loc, "memory", "layout is not injective: elements " + point_str(first) + " and " + point_str(idx) + " share offset " +
                                    std::to_string(off));
        }
    }
}

}  // namespace kiln::detail
