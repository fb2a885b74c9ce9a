#include "check/shape_rules.h"

#include <algorithm>

#include "ir/op_traits.h"

namespace kiln::check {

namespace {
bool all_named(const std::vector<Dim>& d) {
    return std::all_of(d.begin(), d.end(), [](const Dim& x) { return x.axis != 0; });
}
int position_of(const std::vector<Dim>& d, int axis) {
    for (std::size_t k = 0; k < d.size(); ++k)
        if (d[k].axis == axis) return static_cast<int>(k);
    return -1;
}
}  // namespace

void operand_kind(detail::OpCode op, Kind k, Loc loc) {
    ir::KindRule rule = ir::traits(op).kinds;
    if (ir::kind_allowed(rule, k)) return;
    if (rule == ir::KindRule::numeric && k == Kind::Bool)
        fail(loc, detail::op_name(op), op == detail::OpCode::neg ? "cannot negate a bool tile (use !)" : "arithmetic on bool tiles; convert with cast<T>() first");
    fail(loc, detail::op_name(op), "needs " + std::string(ir::kind_rule_text(rule)) + " tiles, got " + std::string(kind_name(k)));
}


void shape_mismatch(Loc loc, std::string_view op, const Type& a, const Type& b) {
    fail(loc, op, "shape mismatch: " + dims_str(a.dims) + " vs " + dims_str(b.dims) + ir::same_name_note(a.dims, b.dims));
}

std::vector<Dim> unify(const Type& a, const Type& b, Loc loc, std::string_view op) {
    if (a.dims == b.dims) return a.dims;
    if (a.dims.empty()) return b.dims;
    if (b.dims.empty()) return a.dims;
    if (all_named(a.dims) && all_named(b.dims)) {
        // By identity: the operand with more dims gives the order, the other's new axes follow.
        const auto& big = a.dims.size() >= b.dims.size() ? a.dims : b.dims;
        const auto& small = a.dims.size() >= b.dims.size() ? b.dims : a.dims;
        std::vector<Dim> out = big;
        for (const Dim& d : small) {
            int p = position_of(out, d.axis);
            if (p < 0) out.push_back(d);
            else if (out[static_cast<std::size_t>(p)].extent != d.extent) shape_mismatch(loc, op, a, b);
        }
        return out;
    }
    // Anonymous dimensions match by position, and exactly.
    if (a.dims.size() != b.dims.size()) shape_mismatch(loc, op, a, b);
    std::vector<Dim> out;
    for (std::size_t k = 0; k < a.dims.size(); ++k) {
        const Dim& x = a.dims[k];
        const Dim& y = b.dims[k];
        if (x.extent != y.extent || (x.axis && y.axis && x.axis != y.axis)) shape_mismatch(loc, op, a, b);
        out.push_back(Dim{x.extent, x.axis ? x.axis : y.axis});
    }
    return out;
}

bool broadcast_map(const std::vector<Dim>& from, const std::vector<Dim>& to, std::vector<std::int64_t>& map) {
    map.clear();
    if (from.empty()) return true;
    if (all_named(from) && all_named(to)) {
        for (const Dim& d : from) {
            int p = position_of(to, d.axis);
            if (p < 0 || to[static_cast<std::size_t>(p)].extent != d.extent) return false;
            map.push_back(p);
        }
        return true;
    }
    // Positional, numpy style: equal ranks, each extent equal or 1.
    if (from.size() != to.size()) return false;
    for (std::size_t k = 0; k < from.size(); ++k) {
        if (from[k].extent != to[k].extent && from[k].extent != 1) return false;
        map.push_back(static_cast<std::int64_t>(k));
    }
    return true;
}

int find_axis(const Type& t, int axis, Loc loc, std::string_view op) {
    if (axis < 0) {
        int p = -axis - 1;
        if (p >= t.rank()) fail(loc, op, "dimension " + std::to_string(p) + " is outside a tile of shape " + dims_str(t.dims));
        return p;
    }
    int p = position_of(t.dims, axis);
    if (p < 0) fail(loc, op, "axis '" + axis_name(axis) + "' is not a dimension of a tile of shape " + dims_str(t.dims));
    return p;
}

std::vector<std::int64_t> mma_map(const Type& a, const Type& b, const Type& acc, Loc loc, std::string_view op) {
    std::vector<std::int64_t> out_pairs, con_pairs;
    auto mismatch = [&](const std::string& why) {
        fail(loc, op, why + ": " + dims_str(a.dims) + " x " + dims_str(b.dims) + " -> " + dims_str(acc.dims));
    };
    if (all_named(a.dims) && all_named(b.dims) && all_named(acc.dims)) {
        for (std::size_t k = 0; k < acc.dims.size(); ++k) {
            int pa = position_of(a.dims, acc.dims[k].axis), pb = position_of(b.dims, acc.dims[k].axis);
            if (pa < 0 && pb < 0) mismatch("accumulator axis '" + axis_name(acc.dims[k].axis) + "' is in neither operand");
            if (pa >= 0 && a.dims[static_cast<std::size_t>(pa)].extent != acc.dims[k].extent) mismatch("extent differs along '" + axis_name(acc.dims[k].axis) + "'");
            if (pb >= 0 && b.dims[static_cast<std::size_t>(pb)].extent != acc.dims[k].extent) mismatch("extent differs along '" + axis_name(acc.dims[k].axis) + "'");
            out_pairs.push_back(pa);
            out_pairs.push_back(pb);
        }
        for (std::size_t k = 0; k < a.dims.size(); ++k) {
            int axis = a.dims[k].axis;
            if (position_of(acc.dims, axis) >= 0) continue;
            int pb = position_of(b.dims, axis);
            if (pb < 0) mismatch("axis '" + axis_name(axis) + "' of the first operand is neither contracted nor in the accumulator");
            if (b.dims[static_cast<std::size_t>(pb)].extent != a.dims[k].extent) mismatch("contraction extents differ along '" + axis_name(axis) + "'");
            con_pairs.push_back(static_cast<std::int64_t>(k));
            con_pairs.push_back(pb);
        }
        for (const Dim& d : b.dims)
            if (position_of(acc.dims, d.axis) < 0 && position_of(a.dims, d.axis) < 0)
                mismatch("axis '" + axis_name(d.axis) + "' of the second operand is neither contracted nor in the accumulator");
    } else {
        // Positional: [m, k] x [k, n] -> [m, n].
        if (a.rank() != 2 || b.rank() != 2 || acc.rank() != 2) mismatch("positional mma needs 2-D tiles");
        if (a.dims[1].extent != b.dims[0].extent) mismatch("inner dimensions differ");
        if (acc.dims[0].extent != a.dims[0].extent || acc.dims[1].extent != b.dims[1].extent) mismatch("accumulator shape differs");
        out_pairs = {0, -1, -1, 1};
        con_pairs = {1, 0};
    }
    if (con_pairs.empty()) mismatch("no axis to contract");
    std::vector<std::int64_t> m;
    m.push_back(static_cast<std::int64_t>(out_pairs.size() / 2));
    m.insert(m.end(), out_pairs.begin(), out_pairs.end());
    m.push_back(static_cast<std::int64_t>(con_pairs.size() / 2));
    m.insert(m.end(), con_pairs.begin(), con_pairs.end());
    return m;
}

}  // namespace kiln::check
