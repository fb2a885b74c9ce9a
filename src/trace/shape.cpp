// Extents, axes and shapes.
#include <kiln/shape.h>

#include <atomic>

#include "check/shape_rules.h"
#include "interp/semantics.h"
#include "support/names.h"
#include "trace/builder.h"

namespace kiln {

namespace {
std::atomic<int> g_next_axis{1};
}

std::int64_t Extent::get() const {
    if (runtime_)
        fail({}, "shape",
             "a tile shape depends on a dynamic extent computed inside the kernel; such an extent can bound a loop "
             "(nest.serial / nest.pipeline) but not size a tile: mask with ite instead");
    if (dynamic_at_.known())
        fail(dynamic_at_, "extent",
             "declared dynamic (dynamic_extent) but used where a static number is needed (a tile shape, a host number); "
             "that would specialise the kernel on each launch's value: use extent() to allow it, or keep the extent in "
             "loop bounds and index arithmetic");
    if (!deps_.empty())
        if (auto* b = trace::Builder::current())
            for (auto [param, dim] : deps_) {
                const auto& a = b->args()[static_cast<std::size_t>(param)];
                std::int64_t v = dim >= 0 ? a.extents[static_cast<std::size_t>(dim)] : a.strides[static_cast<std::size_t>(-dim - 1)];
                b->specialize(param, dim, v);
            }
    return value_;
}

detail::Value Extent::symbolic() const {
    if (sym_.empty()) return detail::literal_int(Kind::I64, value_);
    return sym_;
}

Extent Extent::runtime(detail::Value v) {
    Extent e(0);
    e.sym_ = std::move(v);
    e.runtime_ = true;
    return e;
}

Extent Extent::combine(const Extent& a, const Extent& b, detail::OpCode op) {
    if (a.runtime_ || b.runtime_) return runtime(detail::binary(op, a.symbolic(), b.symbolic(), Loc{}));
    Extent r(ref::int_binary(op, Kind::I64, a.value_, b.value_));
    r.deps_ = a.deps_;
    for (auto& d : b.deps_)
        if (std::find(r.deps_.begin(), r.deps_.end(), d) == r.deps_.end()) r.deps_.push_back(d);
    if (!r.deps_.empty() && detail::tracing()) r.sym_ = detail::binary(op, a.symbolic(), b.symbolic(), Loc{});
    r.dynamic_at_ = a.dynamic_at_.known() ? a.dynamic_at_ : b.dynamic_at_;
    return r;
}

Extent Extent::from_view(int param, int dim, std::int64_t value, bool stride) {
    Extent e(value);
    int key = stride ? -dim - 1 : dim;
    e.deps_.push_back({param, key});
    auto* b = trace::Builder::current();
    KILN_ASSERT(b);
    // One node per (view, dim) in the kernel body, shared by every use.
    for (ir::Node* n : b->program().body.nodes)
        if (n->op == (stride ? detail::OpCode::view_stride : detail::OpCode::view_extent) && ir::param_index(*n) == param && ir::view_dim(*n) == dim) {
            e.sym_ = detail::Value{n, nullptr, n->type};
            return e;
        }
    ir::Node* n = b->top_level(stride ? detail::OpCode::view_stride : detail::OpCode::view_extent, detail::Type{Kind::I64, {}}, {});
    ir::set_param_index(*n, param);
    ir::set_view_dim(*n, dim);
    e.sym_ = detail::Value{n, nullptr, n->type};
    return e;
}

Axis::Axis(std::string name, Extent extent, Loc loc) : id_(g_next_axis.fetch_add(1)), name_(std::move(name)), extent_(std::move(extent)), loc_(loc) {
    if (name_.empty()) fail(loc, "axis", "an axis needs a name (it appears in diagnostics)");
    if (auto why = support::name_problem(name_); !why.empty()) fail(loc, "axis", "invalid axis name " + support::quoted(name_) + ": " + why);
    // An extent read from a view is a launch value: 0 (no rows) makes an empty
    // grid or loop, and sizing a tile with it fails in Shape::dims. A constant
    // is wrong as written.
    if (!extent_.is_runtime() && extent_.deps().empty() && extent_.peek() <= 0)
        fail(loc, "axis", "non-positive extent " + std::to_string(extent_.peek()) + " for axis '" + name_ + "'");
    ir::register_axis_name(id_, name_);
}

Axis Axis::anonymous_dim(Extent extent) {
    Axis a;
    a.extent_ = std::move(extent);
    return a;
}

// A tile's extents are positive (a view with an empty dimension cannot size
// one) and at most 2^40 elements in all (frontend.cpp check_dims' limit, before
// the product can overflow).
std::vector<detail::Dim> Shape::dims(Loc use) const {
    std::vector<detail::Dim> d;
    std::int64_t count = 1;
    for (const Axis& a : axes_) {
        const Loc at = a.loc().known() ? a.loc() : use;
        if (a.extent().is_runtime())
            fail(at, "shape", (a.anonymous() ? std::string("a dimension") : "axis '" + a.name() + "'") +
                                  " has an extent computed inside the kernel; such an extent can bound a loop (nest.serial / "
                                  "nest.pipeline) but not size a tile: mask with ite instead");
        const std::int64_t e = a.size();
        if (e <= 0 && !a.extent().deps().empty())  // constants are checked where the tile is made
            fail(at, "shape", (a.anonymous() ? std::string("a dimension") : "axis '" + a.name() + "'") + " of extent " + std::to_string(e) +
                                       " (read from a launch argument) sizes a tile; a tile's extents are positive");
        if (e > 0 && (__builtin_mul_overflow(count, e, &count) || count > (std::int64_t{1} << 40)))
            fail(at, "shape", "tile too large: more than 2^40 elements (" + std::to_string(axes_.size()) + (axes_.size() == 1 ? " dimension" : " dimensions") +
                                  ", one of extent " + std::to_string(e) + ")");
        d.push_back(detail::Dim{e, a.id()});
    }
    return d;
}

}  // namespace kiln
