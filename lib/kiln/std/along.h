// Reductions "along" one dimension whose result broadcasts back against the source:
// the common ground of the norms and losses. A dimension is named either by an axis
// (kernel tiles: the reduced axis drops out) or by position (anonymous rows: the
// reduced dimension stays, with extent 1, like row_max's R x 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <kiln/ops.h>

namespace kiln::detail {

// A dimension named by an axis (kernel tiles: reducing along it drops it) or by
// position (anonymous rows: it stays, with extent 1, like row_max's R x 1).
struct Along {
    std::optional<Axis> axis;
    int position = 0;
    bool named() const { return axis.has_value(); }
};

// Checked here, so that a wrong axis is reported under the library function's name.
template <Element T> Along along(const Tile<T>& x, const Axis& a, Loc loc, std::string_view op) {
    if (a.anonymous()) fail(loc, op, "needs a named axis (axis(\"name\", extent))");
    return Along{a, axis_position(x.type(), a.id(), loc, op)};
}
template <Element T> Along last_dimension(const Tile<T>& x, Loc loc, std::string_view op) {
    if (x.rank() == 0) fail(loc, op, "needs a tile with at least one dimension");
    return Along{std::nullopt, x.rank() - 1};
}

template <Element T> std::int64_t extent_along(const Tile<T>& x, Along a) {
    return x.type().dims[static_cast<std::size_t>(a.position)].extent;
}

// The dims a value reduced along `a` has, so that it broadcasts back against x:
// a named axis is dropped, an anonymous dimension kept with extent 1.
template <Element T> std::vector<Dim> reduced_dims(const Tile<T>& x, Along a) {
    auto dims = x.type().dims;
    auto p = static_cast<std::size_t>(a.position);
    if (a.named()) dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(p));
    else dims[p] = Dim{1, 0};
    return dims;
}

// A reduced value spread back over x's dims: by identity for named axes, and along
// the extent-1 dimension for anonymous ones (elementwise operations on anonymous
// tiles need equal extents; they do not stretch extent 1 by themselves).
template <Element T> Tile<T> spread_back(const Tile<T>& reduced, const Tile<T>& x, Loc loc) { return broadcast_like(reduced, x, loc); }

template <FloatElement T> Tile<T> sum_along(const Tile<T>& x, Along a, Loc loc) {
    return a.named() ? reduce(x, *a.axis, add, loc) : reduce_dim(x, a.position, add, loc);
}
// The arithmetic mean: the pinned left-to-right sum, divided (rounded once) by the extent.
template <FloatElement T> Tile<T> mean_along(const Tile<T>& x, Along a, Loc loc) {
    return div(sum_along(x, a, loc), static_cast<double>(extent_along(x, a)), loc);
}

}  // namespace kiln::detail
