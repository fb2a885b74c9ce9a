// The DSL entry points: each checks its operands with the shared shape rules, then
// builds a node (tracing) or evaluates it at once (eager), so eager tiles and
// kernels share one semantics and one wording of errors.
#include <kiln/detail/frontend.h>

#include <algorithm>

#include "check/shape_rules.h"
#include "interp/eval.h"
#include "interp/run_kernel.h"
#include "interp/semantics.h"
#include "ir/attrs.h"
#include "trace/builder.h"

namespace kiln::detail {

using check::dims_str;
using ir::Node;

std::string type_str(const Type& t) { return dims_str(t.dims); }

void fail_kind(Loc loc, std::string_view op, std::string_view what) { fail(loc, op, what); }

Value make_eager(Type type, EagerData data) {
    return Value{nullptr, std::make_shared<const EagerData>(std::move(data)), std::move(type)};
}

const EagerData& eager_data(const Value& v, Loc loc, std::string_view what) {
    if (!v.data) fail(loc, what, "the value is traced (inside a kernel) and has no data yet");
    return *v.data;
}

Value literal_float(Kind k, double x) {
    EagerData d;
    d.floats.push_back(ref::round_to(k, x));
    return make_eager(Type{k, {}}, std::move(d));
}
Value literal_int(Kind k, std::int64_t x) {
    EagerData d;
    d.ints.push_back(ref::wrap_to(k, x));
    return make_eager(Type{k, {}}, std::move(d));
}
Value literal_bool(bool b) {
    EagerData d;
    d.ints.push_back(b);
    return make_eager(Type{Kind::Bool, {}}, std::move(d));
}

namespace {

// Emits `proto` with the given operands: appended to the trace, or evaluated now.
Value emit(Node& proto, const std::vector<Value>& operands) {
    if (auto* b = trace::Builder::current()) {
        for (auto& v : operands)
            if (!v.node && !v.data) fail(proto.loc, op_name(proto.op), trace::kEscapedValue);
        Node* n = b->program().make(proto.op);
        n->type = proto.type;
        n->raw = proto.raw;
        n->data = proto.data;
        n->loc = proto.loc;
        for (auto& v : operands) n->operands.push_back(b->node_of(v));
        b->append(n);
        return Value{n, nullptr, n->type};
    }
    std::vector<Node> shadows(operands.size());
    std::vector<const EagerData*> in;
    for (std::size_t k = 0; k < operands.size(); ++k) {
        if (!operands[k].data) fail(proto.loc, op_name(proto.op), "a traced value was used outside its kernel");
        shadows[k].type = operands[k].type;
        proto.operands.push_back(&shadows[k]);
        in.push_back(operands[k].data.get());
    }
    std::shared_ptr<const EagerData> data;
    try {
        data = ref::eval(proto, in);
    } catch (const std::bad_alloc&) {
        fail(proto.loc, op_name(proto.op), ref::tile_too_large(proto.type.count()));
    }
    proto.operands.clear();
    return Value{nullptr, std::move(data), proto.type};
}

Node proto(OpCode op, Type t, Loc loc) {
    Node n;
    n.op = op;
    n.type = std::move(t);
    n.loc = loc;
    return n;
}

// Broadcasts v to dims (scalars stay scalars: every op accepts them as is).
Value conform(const Value& v, const std::vector<Dim>& dims, Loc loc, std::string_view op) {
    if (v.type.dims == dims || v.type.dims.empty()) return v;
    std::vector<std::int64_t> map;
    if (!check::broadcast_map(v.type.dims, dims, map)) check::shape_mismatch(loc, op, v.type, Type{v.type.kind, dims});
    Node n = proto(OpCode::broadcast, Type{v.type.kind, dims}, loc);
    ir::set_dim_map(n, map);
    return emit(n, {v});
}

void require_same_kind(const Value& a, const Value& b, Loc loc, std::string_view op) {
    if (a.type.kind != b.type.kind)
        fail(loc, op, "element kinds differ: " + std::string(kind_name(a.type.kind)) + " vs " + std::string(kind_name(b.type.kind)));
}

}  // namespace

Value unary(OpCode op, const Value& x, Loc loc) {
    check::operand_kind(op, x.type.kind, loc);
    Node n = proto(op, x.type, loc);
    return emit(n, {x});
}

Value binary(OpCode op, const Value& a, const Value& b, Loc loc) {
    require_same_kind(a, b, loc, op_name(op));
    Kind k = a.type.kind;
    check::operand_kind(op, k, loc);
    auto dims = check::unify(a.type, b.type, loc, op_name(op));
    bool compare = ir::category(op) == ir::OpCategory::compare;
    Node n = proto(op, Type{compare ? Kind::Bool : k, dims}, loc);
    return emit(n, {conform(a, dims, loc, op_name(op)), conform(b, dims, loc, op_name(op))});
}

Value select(const Value& c, const Value& a, const Value& b, Loc loc) {
    if (c.type.kind != Kind::Bool) fail(loc, "ite", "the condition must be bool, got " + std::string(kind_name(c.type.kind)));
    require_same_kind(a, b, loc, "ite");
    auto dims = check::unify(Type{a.type.kind, check::unify(c.type, a.type, loc, "ite")}, b.type, loc, "ite");
    Node n = proto(OpCode::select, Type{a.type.kind, dims}, loc);
    return emit(n, {conform(c, dims, loc, "ite"), conform(a, dims, loc, "ite"), conform(b, dims, loc, "ite")});
}

Value cast(const Value& x, Kind to, Loc loc) {
    if (x.type.kind == to) return x;
    Node n = proto(OpCode::cast, Type{to, x.type.dims}, loc);
    ir::set_cast_to(n, to);
    return emit(n, {x});
}

static void check_dims(const std::vector<Dim>& dims, Loc loc, std::string_view op) {
    std::int64_t count = 1;
    for (auto& d : dims) {
        if (d.extent <= 0) fail(loc, op, "non-positive shape: " + dims_str(dims));
        if (count > (std::int64_t{1} << 40) / d.extent) fail(loc, op, "tile too large: " + dims_str(dims));
        count *= d.extent;
    }
    for (std::size_t p = 0; p < dims.size(); ++p)
        for (std::size_t q = p + 1; q < dims.size(); ++q)
            if (dims[p].axis && dims[p].axis == dims[q].axis)
                fail(loc, op, "axis '" + check::axis_name(dims[p].axis) + "' appears twice in shape " + dims_str(dims));
}

Value full(const Value& scalar, const std::vector<Dim>& dims, Loc loc) {
    check_dims(dims, loc, "full");
    if (!scalar.type.dims.empty()) fail(loc, "full", "the fill value must be a scalar, got shape " + dims_str(scalar.type.dims));
    Node n = proto(OpCode::full, Type{scalar.type.kind, dims}, loc);
    return emit(n, {scalar});
}

Value iota(const Dim& dim, Loc loc) {
    check_dims({dim}, loc, "iota");
    Node n = proto(OpCode::iota, Type{Kind::I64, {dim}}, loc);
    return emit(n, {});
}

Value reshape(const Value& x, const std::vector<Dim>& dims, Loc loc) {
    check_dims(dims, loc, "reshape");
    Type t{x.type.kind, dims};
    if (t.count() != x.type.count())
        fail(loc, "reshape", "element count differs: " + dims_str(x.type.dims) + " has " + std::to_string(x.type.count()) + ", " +
                                 dims_str(dims) + " has " + std::to_string(t.count()));
    if (x.type.dims == dims) return x;
    Node n = proto(OpCode::reshape, t, loc);
    return emit(n, {x});
}

Value permute(const Value& x, const std::vector<int>& order, Loc loc) {
    std::vector<bool> seen(static_cast<std::size_t>(x.type.rank()), false);
    if (static_cast<int>(order.size()) != x.type.rank()) fail(loc, "permute", "order has " + std::to_string(order.size()) + " entries for a rank-" + std::to_string(x.type.rank()) + " tile");
    std::vector<Dim> dims;
    for (int o : order) {
        if (o < 0 || o >= x.type.rank() || seen[static_cast<std::size_t>(o)]) fail(loc, "permute", "order is not a permutation of the tile's dimensions");
        seen[static_cast<std::size_t>(o)] = true;
        dims.push_back(x.type.dims[static_cast<std::size_t>(o)]);
    }
    Node n = proto(OpCode::permute, Type{x.type.kind, dims}, loc);
    ir::set_dim_map(n, std::vector<std::int64_t>(order.begin(), order.end()));
    return emit(n, {x});
}

Value slice(const Value& x, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& sizes, Loc loc) {
    if (static_cast<int>(start.size()) != x.type.rank() || sizes.size() != start.size()) fail(loc, "slice", "rank mismatch");
    std::vector<Dim> dims;
    for (std::size_t d = 0; d < start.size(); ++d) {
        if (start[d] < 0 || sizes[d] <= 0 || start[d] + sizes[d] > x.type.dims[d].extent) fail(loc, "slice", "window outside the tile " + dims_str(x.type.dims));
        dims.push_back(Dim{sizes[d], sizes[d] == x.type.dims[d].extent ? x.type.dims[d].axis : 0});
    }
    Node n = proto(OpCode::slice, Type{x.type.kind, dims}, loc);
    ir::set_slice_starts(n, start);
    return emit(n, {x});
}

Value broadcast_to(const Value& x, const std::vector<Dim>& dims, Loc loc) {
    if (x.type.dims == dims) return x;
    if (x.type.dims.empty()) return full(x, dims, loc);
    return conform(x, dims, loc, "broadcast");
}

int axis_position(const Type& t, int axis, Loc loc, std::string_view op) { return check::find_axis(t, axis, loc, op); }

Value reduce(OpCode op, const Value& x, const std::vector<int>& axes, bool keep_dims, Loc loc) {
    std::string_view name = op == OpCode::reduce_add ? "reduce" : op == OpCode::reduce_max ? "reduce (maximum)" : "reduce (minimum)";
    if (x.type.kind == Kind::Bool) fail(loc, name, "cannot reduce a bool tile; convert with cast<T>() first");
    if (axes.empty()) fail(loc, name, "no axis to reduce");
    std::vector<std::int64_t> pos;
    for (int a : axes) pos.push_back(check::find_axis(x.type, a, loc, name));
    std::sort(pos.begin(), pos.end());
    if (std::adjacent_find(pos.begin(), pos.end()) != pos.end()) fail(loc, name, "an axis is named twice");
    std::vector<Dim> dims;
    for (int d = 0; d < x.type.rank(); ++d) {
        bool r = std::binary_search(pos.begin(), pos.end(), d);
        if (!r) dims.push_back(x.type.dims[static_cast<std::size_t>(d)]);
    }
    Node n = proto(op, Type{x.type.kind, dims}, loc);
    ir::set_reduced_dims(n, pos);
    Value v = emit(n, {x});
    if (!keep_dims) return v;
    std::vector<Dim> kept = x.type.dims;
    for (auto p : pos) kept[static_cast<std::size_t>(p)] = Dim{1, 0};
    return reshape(v, kept, loc);
}

Value arg_reduce(OpCode op, const Value& x, int axis, Loc loc) {
    int p = check::find_axis(x.type, axis, loc, op_name(op));
    std::vector<Dim> dims = x.type.dims;
    dims.erase(dims.begin() + p);
    Node n = proto(op, Type{Kind::I64, dims}, loc);
    ir::set_tile_dim(n, p);
    return emit(n, {x});
}

Value scan(OpCode op, const Value& x, int axis, Loc loc) {
    if (x.type.kind == Kind::Bool) fail(loc, "scan", "cannot scan a bool tile; convert with cast<T>() first");
    Node n = proto(op, x.type, loc);
    ir::set_tile_dim(n, check::find_axis(x.type, axis, loc, "scan"));
    return emit(n, {x});
}

static void check_mma_kinds(Kind in, Kind acc, Loc loc, std::string_view op) {
    bool ok = in == acc || (acc == Kind::F32 && (in == Kind::F16 || in == Kind::BF16)) || (acc == Kind::I32 && in == Kind::I8);
    if (!ok || in == Kind::Bool)
        fail(loc, op, "unsupported operand/accumulator kinds " + std::string(kind_name(in)) + " -> " + std::string(kind_name(acc)));
}

Value mma(const Value& a, const Value& b, const Value& acc, MmaFlags flags, Loc loc) {
    require_same_kind(a, b, loc, "mma");
    check_mma_kinds(a.type.kind, acc.type.kind, loc, "mma");
    // A precision request that no target could act on is a mistake, not a no-op.
    if (flags.allow_tf32 && a.type.kind != Kind::F32)
        fail(loc, "mma", "allow_tf32 applies to f32 operands; these are " + std::string(kind_name(a.type.kind)));
    Node n = proto(OpCode::mma, acc.type, loc);
    ir::set_dim_map(n, check::mma_map(a.type, b.type, acc.type, loc, "mma"));
    ir::set_mma_options(n, {flags.allow_reassociation, flags.allow_tf32});
    return emit(n, {a, b, acc});
}

Value dot(const Value& a, const Value& b, Loc loc) {
    require_same_kind(a, b, loc, "dot");
    if (a.type.rank() != 2 || b.type.rank() != 2) fail(loc, "dot", "needs 2-D tiles, got " + dims_str(a.type.dims) + " and " + dims_str(b.type.dims));
    if (a.type.dims[1].extent != b.type.dims[0].extent)
        fail(loc, "dot", "inner dimensions differ: " + dims_str(a.type.dims) + " vs " + dims_str(b.type.dims));
    if (a.type.kind == Kind::Bool) fail(loc, "dot", "cannot multiply bool tiles");
    Value acc = full(is_float(a.type.kind) ? literal_float(a.type.kind, 0.0) : literal_int(a.type.kind, 0),
                     {Dim{a.type.dims[0].extent, 0}, Dim{b.type.dims[1].extent, 0}}, loc);
    Node n = proto(OpCode::mma, acc.type, loc);
    ir::set_dim_map(n, ir::encode_mma_dims({{{0, -1}, {-1, 1}}, {{1, 0}}}));
    // The precision policy governs dot as it does mma (DESIGN: "reassociation allowed
    // for reductions and mma" outside exact; docs/semantics.md: `mma`/`dot`): exact
    // keeps the pinned order, standard lets a target use tensor cores and fuse. So a
    // seed-style k loop, `acc = acc + dot(a, b)`, reaches the same GEMM lowering as
    // `acc = acc + mma(a, b, 0)`. Never tf32: f32 operands are not narrowed.
    ir::set_mma_options(n, {true, false});
    return emit(n, {a, b, acc});
}

Value fold_as_reduction(const Value& step, const Value& init, const Value& first, const Value& tile, int dim, Loc loc) {
    // (Eager folds run as they are: there is no trace to shorten.)
    if (!step.traced() || !init.traced() || !first.traced() || !tile.traced()) return {};
    const ir::Node* n = step.node;
    OpCode reduction;
    switch (n->op) {
        case OpCode::add: reduction = OpCode::reduce_add; break;
        case OpCode::maximum: reduction = OpCode::reduce_max; break;
        case OpCode::minimum: reduction = OpCode::reduce_min; break;
        default: return {};
    }
    auto same_extents = [](const Type& a, const Type& b) {
        if (a.kind != b.kind || a.rank() != b.rank()) return false;
        for (int d = 0; d < a.rank(); ++d)
            if (a.dims[static_cast<std::size_t>(d)].extent != b.dims[static_cast<std::size_t>(d)].extent) return false;
        return true;
    };
    if (n->operands.size() != 2 || step.type != init.type || !same_extents(first.type, init.type) || (!is_float(init.type.kind) && !is_int(init.type.kind)))
        return {};
    const bool direct = n->operands[0] == init.node && n->operands[1] == first.node, swapped = n->operands[0] == first.node && n->operands[1] == init.node;
    if (!direct && !swapped) return {};
    if (n->op == OpCode::add && is_float(init.type.kind)) {  // (integer sums wrap alike from any start, in any order)
        // (init + x0) + x1 ... and ((x0 + x1) + ...) + init give the same bits only for
        // an init of +-0: the first differs from x0 at most in a zero's sign, which the
        // next nonzero term (or, for a line of -0s, the final + init) makes the same.
        const ir::Node* f = init.node;
        if (f->op != OpCode::full || f->operands.empty() || f->operands[0]->op != OpCode::constant || !f->operands[0]->data) return {};
        const auto& d = *f->operands[0]->data;
        const bool zero = (d.floats.size() == 1 && d.floats[0] == 0.0) || (d.ints.size() == 1 && d.ints[0] == 0);
        if (!zero) return {};
    }
    const int axis = tile.type.dims[static_cast<std::size_t>(dim)].axis;
    const Value line = reduce(reduction, tile, {axis ? axis : -(dim + 1)}, /*keep_dims=*/true, loc);
    return binary(n->op, reshape(line, init.type.dims, loc), init, loc);
}

Value gather(const Value& x, const Value& index, int axis, Loc loc) {
    if (index.type.kind != Kind::I64) fail(loc, "gather", "the index must be i64, got " + std::string(kind_name(index.type.kind)));
    int p = check::find_axis(x.type, axis, loc, "gather");
    std::vector<Dim> dims = x.type.dims;
    dims.erase(dims.begin() + p);
    Value idx = index;
    if (index.type.dims.empty()) idx = full(index, dims, loc);
    else if (index.type.dims != dims)
        fail(loc, "gather", "index shape " + dims_str(index.type.dims) + " must be the source's shape without the gathered axis: " + dims_str(dims));
    Node n = proto(OpCode::gather, Type{x.type.kind, dims}, loc);
    ir::set_tile_dim(n, p);
    return emit(n, {x, idx});
}

Value reindex(const Value& x, const std::vector<Dim>& dims, const std::vector<Value>& coords, Loc loc) {
    check_dims(dims, loc, "reindex");
    if (static_cast<int>(coords.size()) != x.type.rank())
        fail(loc, "reindex", "the coordinate has " + std::to_string(coords.size()) + " components for a rank-" + std::to_string(x.type.rank()) + " tile");
    std::vector<Value> ops{x};
    for (auto& c : coords) {
        if (c.type.kind != Kind::I64) fail(loc, "reindex", "coordinates must be i64");
        ops.push_back(broadcast_to(c, dims, loc));
    }
    Node n = proto(OpCode::reindex, Type{x.type.kind, dims}, loc);
    return emit(n, ops);
}

Value sort(const Value& x, int axis, bool indices, Loc loc) {
    if (x.type.kind == Kind::Bool) fail(loc, "sort", "cannot sort a bool tile");
    Node n = proto(indices ? OpCode::sort_indices : OpCode::sort_values, Type{indices ? Kind::I64 : x.type.kind, x.type.dims}, loc);
    ir::set_tile_dim(n, check::find_axis(x.type, axis, loc, "sort"));
    return emit(n, {x});
}

Value topk(const Value& x, int axis, std::int64_t k, bool indices, Loc loc) {
    if (x.type.kind == Kind::Bool) fail(loc, "topk", "cannot rank a bool tile");
    int p = check::find_axis(x.type, axis, loc, "topk");
    auto extent = x.type.dims[static_cast<std::size_t>(p)].extent;
    if (k <= 0 || k > extent) fail(loc, "topk", "k = " + std::to_string(k) + " outside 1.." + std::to_string(extent));
    std::vector<Dim> dims = x.type.dims;
    dims[static_cast<std::size_t>(p)] = Dim{k, 0};
    Node n = proto(indices ? OpCode::topk_indices : OpCode::topk_values, Type{indices ? Kind::I64 : x.type.kind, dims}, loc);
    ir::set_tile_dim(n, p);
    ir::set_topk_count(n, k);
    return emit(n, {x});
}

Value mem_store(const Value& v, const Layout& l, mem::Resource r, Loc loc) {
    auto dims = l.shape.dims(loc);
    Value c = v;
    if (v.type.dims != dims) {
        std::vector<std::int64_t> map;
        if (v.type.dims.empty() || !check::broadcast_map(v.type.dims, dims, map) || v.type.count() != Type{v.type.kind, dims}.count())
            fail(loc, "memory store", "shape mismatch: " + dims_str(v.type.dims) + " vs the memory's " + dims_str(dims) + ir::same_name_note(v.type.dims, dims));
        c = conform(v, dims, loc, "memory store");
    }
    Node n = proto(OpCode::mem_store, Type{v.type.kind, dims}, loc);
    ir::set_mem_layout(n, l.strides, r);
    return emit(n, {c});
}

Value mem_load(const Value& v, Loc loc) {
    Node n = proto(OpCode::mem_load, v.type, loc);
    return emit(n, {v});
}

Value eager_arange(std::int64_t rows, std::int64_t cols, Loc loc) {
    check_dims({Dim{rows, 0}, Dim{cols, 0}}, loc, "arange");
    EagerData d;
    for (std::int64_t k = 0; k < rows * cols; ++k) d.ints.push_back(k);
    return make_eager(Type{Kind::I64, {Dim{rows, 0}, Dim{cols, 0}}}, std::move(d));
}

Value eager_from(Kind k, std::int64_t rows, std::int64_t cols, const std::vector<double>* f, const std::vector<std::int64_t>* i, Loc loc) {
    check_dims({Dim{rows, 0}, Dim{cols, 0}}, loc, "from_vec");
    std::size_t n = f ? f->size() : i->size();
    if (static_cast<std::int64_t>(n) != rows * cols)
        fail(loc, "from_vec", "got " + std::to_string(n) + " values for a " + std::to_string(rows) + "x" + std::to_string(cols) + " tile");
    EagerData d;
    if (f)
        for (double x : *f) d.floats.push_back(ref::round_to(k, x));
    else
        for (auto x : *i) d.ints.push_back(ref::wrap_to(k, x));
    return make_eager(Type{k, {Dim{rows, 0}, Dim{cols, 0}}}, std::move(d));
}

void check_window(std::int64_t size, std::int64_t off, std::int64_t count, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                  const char* op, Loc loc) {
    if (rows <= 0 || cols <= 0) fail(loc, op, "non-positive shape: " + std::to_string(rows) + "x" + std::to_string(cols));
    // Rows that overlap are a different mistake from a window that leaves the buffer.
    if (stride < cols && rows > 1)
        fail(loc, op, "rows of " + std::to_string(cols) + " elements overlap: the row stride " + std::to_string(stride) + " is less than the width");
    std::int64_t last = off + (rows - 1) * stride + cols - 1;
    if (off < 0 || last >= size)
        fail(loc, op, "window of " + std::to_string(count) + " elements at offset " + std::to_string(off) + " (row stride " +
                          std::to_string(stride) + ") is outside a buffer of " + std::to_string(size) + " elements");
}

}  // namespace kiln::detail
