#include "check/verify_rules.h"

#include <kiln/error.h>

#include "ir/axis_names.h"

namespace kiln::check {

using detail::Dim;
using detail::OpCode;

void Site::broken(std::string_view what) const {
    std::string where = n.loc.known() ? n.loc.str() : "an unknown location (the kernel is at " + p.loc.str() + ")";
    internal_fail("kernel '" + p.name + "': " + std::string(detail::op_name(n.op)) + " at " + where + " breaks the rule '" +
                  std::string(rule) + "': " + std::string(what));
}

std::string type_text(const Type& t) {
    return std::string(valid_kind(t.kind) ? kind_name(t.kind) : "<bad kind>") + " " + ir::dims_str(t.dims);
}

std::string ints_text(ir::Ints v) {
    std::string s = "[";
    for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s + "]";
}

bool valid_kind(Kind k) { return kind_name(k) != "?"; }

void broadcast_dim_map(const Site& s) {
    const Type &x = s.in(0), &out = s.n.type;
    ir::Ints map = ir::dim_map(s.n);
    s.require(map.size() == x.dims.size(), "dim map " + ints_text(map) + " has " + str(map.size()) +
                                               " entries for an operand of rank " + str(x.rank()));
    std::vector<bool> taken(out.dims.size(), false);
    for (std::size_t k = 0; k < map.size(); ++k) {
        std::int64_t to = map[k];
        s.require(to >= 0 && to < out.rank() && !taken[static_cast<std::size_t>(to)],
                  "dim map " + ints_text(map) + " does not send the operand's dims to distinct dims of a rank-" + str(out.rank()) + " result");
        taken[static_cast<std::size_t>(to)] = true;
        std::int64_t from_extent = x.dims[k].extent, to_extent = out.dims[static_cast<std::size_t>(to)].extent;
        s.require(from_extent == to_extent || from_extent == 1,
                  "operand dim " + str(k) + " (extent " + str(from_extent) + ") cannot broadcast to result dim " +
                      str(to) + " (extent " + str(to_extent) + ")");
    }
}

void permute_dim_map(const Site& s) {
    const Type &x = s.in(0), &out = s.n.type;
    ir::Ints map = ir::dim_map(s.n);
    s.require(map.size() == x.dims.size() && out.dims.size() == x.dims.size(),
              "dim map " + ints_text(map) + " for an operand of rank " + str(x.rank()) + " and a result of rank " + str(out.rank()));
    std::vector<bool> seen(x.dims.size(), false);
    for (std::size_t k = 0; k < map.size(); ++k) {
        std::int64_t from = map[k];
        s.require(from >= 0 && from < x.rank() && !seen[static_cast<std::size_t>(from)], "dim map " + ints_text(map) + " is not a permutation");
        seen[static_cast<std::size_t>(from)] = true;
        s.require(out.dims[k] == x.dims[static_cast<std::size_t>(from)],
                  "result " + ir::dims_str(out.dims) + " is not operand " + ir::dims_str(x.dims) + " permuted by " + ints_text(map));
    }
}

void slice_window(const Site& s) {
    const Type &x = s.in(0), &out = s.n.type;
    ir::Ints starts = ir::slice_starts(s.n);
    s.require(starts.size() == x.dims.size() && out.dims.size() == x.dims.size(),
              "starts " + ints_text(starts) + " for an operand of rank " + str(x.rank()) + " and a result of rank " + str(out.rank()));
    for (std::size_t k = 0; k < starts.size(); ++k)
        s.require(starts[k] >= 0 && starts[k] + out.dims[k].extent <= x.dims[k].extent,
                  "window " + ints_text(starts) + " + " + ir::dims_str(out.dims) + " is outside the operand " + ir::dims_str(x.dims));
}

void mma_kinds(const Site& s) {
    Kind in = s.in(0).kind, acc = s.in(2).kind;
    s.require(s.in(1).kind == in, "operand kinds differ: " + type_text(s.in(0)) + " vs " + type_text(s.in(1)));
    bool ok = in == acc || (acc == Kind::F32 && (in == Kind::F16 || in == Kind::BF16)) || (acc == Kind::I32 && in == Kind::I8);
    s.require(ok, "operands of " + std::string(kind_name(in)) + " cannot accumulate into " + std::string(kind_name(acc)));
    s.require(s.n.type == s.in(2), "result " + type_text(s.n.type) + " is not the accumulator's type " + type_text(s.in(2)));
}

void mma_dim_map(const Site& s) {
    const Type &a = s.in(0), &b = s.in(1), &acc = s.in(2);
    ir::Ints m = ir::dim_map(s.n);
    // [n_out, (a, b) per output dim, n_con, (a, b) per contraction dim]
    bool encoded = !m.empty() && m[0] >= 0 && static_cast<std::int64_t>(m.size()) > 1 + 2 * m[0];
    std::size_t con_at = encoded ? static_cast<std::size_t>(1 + 2 * m[0]) : 0;
    encoded = encoded && m[con_at] >= 0 && static_cast<std::int64_t>(m.size()) == static_cast<std::int64_t>(con_at) + 1 + 2 * m[con_at];
    s.require(encoded, "dim map " + ints_text(m) + " is not [n_out, (a, b) per output dim, n_con, (a, b) per contraction dim]");
    ir::MmaDims d = ir::mma_dims(s.n);
    s.require(static_cast<int>(d.out.size()) == acc.rank(),
              "dim map has " + str(d.out.size()) + " output dims for an accumulator of rank " + str(acc.rank()));
    s.require(!d.contract.empty(), "dim map contracts no dim");
    std::vector<int> a_uses(a.dims.size()), b_uses(b.dims.size());
    // Operand position `pos` of `t` (-1: none) stands for a dim of extent `extent`.
    auto use = [&](int pos, const Type& t, std::vector<int>& uses, std::int64_t extent, const std::string& what) {
        if (pos == -1) return;
        s.require(pos >= 0 && pos < t.rank(), what + " names dim " + str(pos) + " of an operand of rank " + str(t.rank()));
        s.require(t.dims[static_cast<std::size_t>(pos)].extent == extent,
                  what + " has extent " + str(extent) + " but operand dim " + str(pos) + " has " + str(t.dims[static_cast<std::size_t>(pos)].extent));
        ++uses[static_cast<std::size_t>(pos)];
    };
    for (std::size_t k = 0; k < d.out.size(); ++k) {
        std::string what = "output dim " + str(k);
        s.require(d.out[k].a != -1 || d.out[k].b != -1, what + " comes from neither operand");
        use(d.out[k].a, a, a_uses, acc.dims[k].extent, what);
        use(d.out[k].b, b, b_uses, acc.dims[k].extent, what);
    }
    for (std::size_t k = 0; k < d.contract.size(); ++k) {
        std::string what = "contraction dim " + str(k);
        auto [pa, pb] = d.contract[k];
        s.require(pa >= 0 && pa < a.rank() && pb >= 0 && pb < b.rank(),
                  what + " pairs dims (" + str(pa) + ", " + str(pb) + ") of operands of ranks " + str(a.rank()) + " and " + str(b.rank()));
        use(pa, a, a_uses, b.dims[static_cast<std::size_t>(pb)].extent, what);
        ++b_uses[static_cast<std::size_t>(pb)];
    }
    for (std::size_t k = 0; k < a_uses.size(); ++k)
        s.require(a_uses[k] == 1, "dim " + str(k) + " of the first operand is used " + str(a_uses[k]) + " times, not once");
    for (std::size_t k = 0; k < b_uses.size(); ++k)
        s.require(b_uses[k] == 1, "dim " + str(k) + " of the second operand is used " + str(b_uses[k]) + " times, not once");
}

void memory_access(const Site& s) {
    const detail::ParamSig& view = s.param();
    int rank = ir::access_rank(s.n);
    for (int k = 0; k < rank; ++k)
        s.require(is_scalar_of(s.in(static_cast<std::size_t>(k)), Kind::I64),
                  "origin " + str(k) + " is " + type_text(s.in(static_cast<std::size_t>(k))) + ", not an i64 scalar");
    const Type& tile = s.n.op == OpCode::store ? s.in(static_cast<std::size_t>(rank)) : s.n.type;
    std::string what = s.n.op == OpCode::store ? "stored value" : "result";
    s.require(tile.kind == view.kind, what + " " + type_text(tile) + " is not of the view's kind (" + view.spelling + ")");
    s.require(tile.rank() == view.rank, what + " " + type_text(tile) + " does not have the view's rank (" + view.spelling + ")");
    if (s.n.op == OpCode::store) s.require(view.writable, "stores to a read-only view (" + view.spelling + ")");
    if (s.n.op == OpCode::load && ir::has_fallback(s.n))
        s.require(is_scalar_of(s.in(static_cast<std::size_t>(rank)), view.kind),
                  "fallback " + type_text(s.in(static_cast<std::size_t>(rank))) + " is not a scalar of the view's kind (" + view.spelling + ")");
}

void loop_body(const Site& s) {
    s.require(s.n.body && s.n.body->owner == &s.n, "the loop has no body region of its own");
    const ir::Region& r = *s.n.body;
    auto inits = ir::loop_inits(s.n);
    std::size_t rank = static_cast<std::size_t>(ir::loop_rank(s.n));
    s.require(r.args.size() == rank + inits.size(), "the body has " + str(r.args.size()) + " args for " +
                                                        str(rank) + " indices and " +
                                                        str(inits.size()) + " carried values");
    for (std::size_t k = 0; k < r.args.size(); ++k) {
        const ir::Node* arg = r.args[k];
        std::string what = "body arg " + str(k);
        s.require(arg && arg->op == OpCode::region_arg, what + " is not a region_arg");
        s.require(arg->parent == &r, what + " belongs to another region");
        s.require(ir::slot(*arg) == static_cast<int>(k), what + " has slot " + str(ir::slot(*arg)));
        const Type& want = k < rank ? Type{Kind::I64, {}} : inits[k - rank]->type;
        s.require(arg->type == want, what + " is " + type_text(arg->type) + ", not " + type_text(want) +
                                         (k < rank ? " (a loop index)" : " (its carried initial value)"));
    }
    s.require(!r.nodes.empty() && r.nodes.back()->op == OpCode::yield, "the body does not end with a yield");
    const ir::Node& y = *r.nodes.back();
    s.require(y.operands.size() == inits.size(), "the yield gives " + str(y.operands.size()) + " values for " +
                                                     str(inits.size()) + " carried slots");
    for (std::size_t c = 0; c < inits.size(); ++c)
        s.require(y.operands[c]->type == inits[c]->type, "the yield's value " + str(c) + " is " +
                                                             type_text(y.operands[c]->type) + ", its initial value " + type_text(inits[c]->type));
}

void loop_result(const Site& s) {
    const ir::Node& loop = *s.n.operands[0];  // a loop ('operand values'), verified before this node
    auto inits = ir::loop_inits(loop);
    int slot = ir::slot(s.n);
    s.require(slot >= 0 && slot < static_cast<int>(inits.size()),
              "slot " + str(slot) + " of a loop carrying " + str(inits.size()) + " values");
    const Type& want = inits[static_cast<std::size_t>(slot)]->type;
    s.require(s.n.type == want, "result " + type_text(s.n.type) + " is not the slot's type " + type_text(want));
}

}  // namespace kiln::check
