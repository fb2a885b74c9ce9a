// The emitter's decisions about storage, made before any code is written:
// which values are fused into their consumer's loop (find_fusible), which loads
// read their tile where it lies in the view (find_view_tiles), which mma
// accumulate in their loop's carried slot (find_in_place_mma), and which topk
// values and indices share one selection (find_topk_twins).
#include <algorithm>

#include "targets/cpu/emitter.h"

namespace kiln::native {

namespace {

// Elementwise in the emitter's sense: one expression per element (emit_ops.cpp's
// element_expr), so the value can be computed where it is used.
bool elementwise_op(OpCode op) { return ir::is_elementwise(op) || op == OpCode::iota || op == OpCode::full; }

bool alias_op(OpCode op) { return op == OpCode::reshape || op == OpCode::mem_store || op == OpCode::mem_load; }

}  // namespace

Emitter::Uses Emitter::uses() const {
    Uses u;
    int next = 0;
    std::function<void(const ir::Region&)> scan = [&](const ir::Region& r) {
        for (const Node* n : r.nodes) {
            u.region[n] = &r;
            u.loop[n] = r.owner;
            u.position[n] = next++;
            if (n->op == OpCode::store) u.stores.push_back(n);
            if (n->op == OpCode::loop || !dead(*n))
                for (std::size_t k = 0; k < n->operands.size(); ++k)
                    if (n != p_.grid || k > 0) u.users[n->operands[k]].push_back(n);
            if (n->body) scan(*n->body);
            u.span_end[n] = next - 1;
        }
    };
    scan(p_.body);
    return u;
}

// Values computed inside their one consumer's loop instead of a loop and an
// array of their own: elementwise ops whose consumers, in the same region, read
// each of their elements once by index (elementwise ops of the same element
// count, reductions, stores, broadcasts that only insert dims). Chains of them
// become one loop, and its temporaries registers. Ops that only copy a value
// are fused into any number of such consumers, as they recompute nothing:
// full, iota, broadcasts (read through an index map: a row vector added to
// every row of a tile is read where it is, not copied once per row), and exact
// widening casts of a value that is not itself fused (f16/bf16 -> f32, f32 ->
// f64: one conversion per read). An expanding broadcast reads a copy's element
// several times. Values must not change between the definition and the use,
// and none does: the only variables that change are loop-carried slots,
// written by the loop's yield, which ends the region, and before the loop starts.
void Emitter::find_fusible(const Uses& u) {
    for (auto& [n, users] : u.users) {
        if (dead(*n) || n->type.dims.empty()) continue;
        const bool copies = copies_only(*n);
        if (!copies && !elementwise_op(n->op)) continue;
        if (!copies && users.size() != 1) continue;
        bool ok = true;
        for (const Node* c : users) {
            const bool same_count = c->type.count() == n->type.count();
            const bool scalar = n->type.count() == 1;
            const bool by_index = (elementwise_op(c->op) && (scalar || same_count)) || (c->op == OpCode::store && c->operands.back() == n) ||
                                  ir::category(c->op) == ir::OpCategory::reduction ||
                                  (c->op == OpCode::broadcast && (copies || inserts_dims_only(*c)));
            ok = ok && by_index && u.region.at(c) == u.region.at(n);
        }
        if (ok) fusible_.insert(n);
    }
    bound_fusion(u);
}

bool Emitter::copies_only(const Node& n) {
    if (n.op == OpCode::full || n.op == OpCode::iota || n.op == OpCode::broadcast) return true;
    if (n.op != OpCode::cast) return false;
    const Node& x = *n.operands[0];
    const Kind from = x.type.kind, to = n.type.kind;
    const bool widening = (to == Kind::F32 && (from == Kind::F16 || from == Kind::BF16)) || (to == Kind::F64 && is_float(from));
    return widening && !elementwise_op(x.op) && x.op != OpCode::broadcast;
}

// A fused value is one expression its consumer evaluates, written out in full:
// a chain of thousands of ops (v = v * a + b in a loop of the user's) would be
// one expression nested thousands deep, which the emitter's recursion and the
// compiler's parser (quadratic time and memory in the depth) cannot take. So a
// fused expression holds at most kMaxFusedOps ops: the value that would exceed
// it is materialised (a loop and an array, in a function of its own: see
// Emitter::elementwise), and the chain goes on from there. Program order visits
// operands before their users.
void Emitter::bound_fusion(const Uses& u) {
    constexpr int kMaxFusedOps = 48;
    std::vector<const Node*> order(fusible_.begin(), fusible_.end());
    std::sort(order.begin(), order.end(), [&](const Node* a, const Node* b) { return u.position.at(a) < u.position.at(b); });
    std::unordered_map<const Node*, int> ops;  // ops in the expression of each fused value
    for (const Node* n : order) {
        int size = 1;
        for (const Node* o : n->operands)
            if (auto it = ops.find(o); it != ops.end()) size += it->second;
        if (size > kMaxFusedOps) {
            fusible_.erase(n);
            cut_.insert(n);
        } else {
            ops[n] = size;
        }
    }
}

// Loads inside the grid whose tile is read where it lies in the view instead of
// being copied first (emit_load). The view's memory must then hold the tile's
// values for as long as they are read. Either no store of the instance runs
// between the load and the last read, or the load's view is one the kernel
// never writes and, checked at run time, its memory is disjoint from every
// view the kernel writes (y = x + v in one loop: x and v are read where they
// are as y is written, and the store's loop is vectorised as one whose
// iterations share no memory: loop_nest). Other instances' stores do not count: reading
// what another instance writes is outside the contract. Reads are where the
// value's storage is read: its users, the users of values aliasing it
// (reshape, memory<T>) and the consumers that evaluate values fused from it; a
// read in a loop that does not hold the load lasts to the end of that loop,
// whose next iteration reads again. Kinds a view holds as the tile does
// qualify; so do f16/bf16, whose tile holds the view's 16-bit elements and
// widens each where it is read, when every reader reads element by element
// (reads_by_element). A tile whose every reader indexes it by coordinates
// (reads_by_coords_only) is read in place whatever the view's row strides
// (a block of columns of a wider matrix); others only where rows are contiguous.
void Emitter::find_view_tiles(const Uses& u) {
    if (!p_.grid) return;
    auto inside_grid = [&](const Node* n) {
        for (const Node* l = u.loop.at(n); l; l = u.loop.at(l))
            if (l == p_.grid) return true;
        return false;
    };
    std::vector<int> written;  // the params the kernel stores to
    for (const Node* s : u.stores)
        if (std::find(written.begin(), written.end(), ir::param_index(*s)) == written.end()) written.push_back(ir::param_index(*s));
    for (auto& [n, users] : u.users) {
        const Kind k = n->type.kind;
        if (n->op != OpCode::load || dead(*n) || n->type.dims.empty() || !opts_.unit_inner.at(static_cast<std::size_t>(ir::param_index(*n)))) continue;
        const bool narrow = k == Kind::F16 || k == Kind::BF16;
        if (k != Kind::F32 && k != Kind::F64 && k != Kind::I32 && k != Kind::I64 && k != Kind::I8 && !narrow) continue;
        if (!inside_grid(n)) continue;
        const int from = u.position.at(n);
        int last = from;
        bool by_element = true, by_coords = true;
        // Through fused values and aliases, which can chain as long as the
        // user's program: a work list, not recursion.
        std::vector<const Node*> through = {n};
        std::unordered_set<const Node*> seen = {n};
        while (!through.empty()) {
            const Node* v = through.back();
            through.pop_back();
            auto it = u.users.find(v);
            if (it == u.users.end()) continue;
            for (const Node* c : it->second) {
                if (fusible_.count(c) || alias_op(c->op)) {
                    by_coords = by_coords && !alias_op(c->op);
                    if (seen.insert(c).second) through.push_back(c);
                    continue;
                }
                by_element = by_element && reads_by_element(*c, *v);
                by_coords = by_coords && reads_by_coords_only(*c, *v);
                // The outermost loop around the reader that does not hold the load.
                int end = u.position.at(c);
                for (const Node* l = u.loop.at(c); l && l != u.loop.at(n); l = u.loop.at(l)) end = u.span_end.at(l);
                last = std::max(last, end);
            }
        }
        if (narrow && !by_element) continue;
        bool stored = false;
        for (const Node* s : u.stores) stored = stored || (u.position.at(s) > from && u.position.at(s) <= last);
        const bool never_written = std::find(written.begin(), written.end(), ir::param_index(*n)) == written.end();
        if (stored && !never_written) continue;
        view_tiles_.insert(n);
        if (stored) guarded_tiles_[n] = written;
        std::int64_t wide = 0;
        for (auto& d : n->type.dims) wide += d.extent > 1;
        if (by_coords && wide > 1) strided_tiles_.insert(n);
    }
}

// Whether consumer c indexes value v by coordinates wherever it reads it: the
// loops of elementwise ops (materialize), reductions, scans, sorts and stores.
bool Emitter::reads_by_coords_only(const Node& c, const Node& v) {
    switch (ir::category(c.op)) {
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast: case ir::OpCategory::reduction: case ir::OpCategory::scan: case ir::OpCategory::sort:
            return true;
        case ir::OpCategory::memory: return c.op == OpCode::store && c.operands.back() == &v;
        case ir::OpCategory::leaf: case ir::OpCategory::shape: case ir::OpCategory::arg_reduction: case ir::OpCategory::contraction:
        case ir::OpCategory::movement: case ir::OpCategory::control:
            return false;
    }
    return false;
}

// Whether consumer c reads value v only through Emitter::at, element by
// element: then v may be held in another layout or type than an array of its
// kind. Copies (a loop's carried value, a yield, an explicit memory<T>) and
// the mma micro-kernel read the array itself; an mma widening narrow operands
// to f32 reads them by element.
bool Emitter::reads_by_element(const Node& c, const Node& v) {
    switch (ir::category(c.op)) {
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast: case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan:
        case ir::OpCategory::sort: case ir::OpCategory::movement:
            return true;
        case ir::OpCategory::shape: return c.op != OpCode::reshape;
        case ir::OpCategory::memory: return c.op == OpCode::store && c.operands.back() == &v;
        case ir::OpCategory::contraction: return c.type.kind == Kind::F32 && v.type.kind != Kind::F32 && c.operands[2] != &v;
        case ir::OpCategory::leaf: case ir::OpCategory::control: return false;
    }
    return false;
}

// An mma whose accumulator is a loop's carried value, read by nothing else, and
// whose result is only that slot's next value (acc = mma(a, b, acc) in a
// pipeline loop) accumulates in the slot itself: no copy in before it and none
// back at the yield.
void Emitter::find_in_place_mma(const Uses& u) {
    for (auto& [n, users] : u.users) {
        if (n->op != OpCode::mma || dead(*n) || users.size() != 1 || users[0]->op != OpCode::yield) continue;
        const Node* acc = n->operands[2];
        const Node* loop = u.loop.at(n);
        if (acc->op != OpCode::region_arg || !loop || loop == p_.grid || ir::slot(*acc) < ir::loop_rank(*loop)) continue;
        if (std::find(loop->body->args.begin(), loop->body->args.end(), acc) == loop->body->args.end()) continue;
        const Node* yield = users[0];
        const auto slot = static_cast<std::size_t>(ir::slot(*acc) - ir::loop_rank(*loop));
        auto acc_users = u.users.find(acc);
        if (acc_users == u.users.end() || acc_users->second.size() != 1) continue;  // only this mma reads it
        if (u.loop.at(yield) != loop || slot >= yield->operands.size() || yield->operands[slot] != n) continue;
        if (std::count(yield->operands.begin(), yield->operands.end(), n) != 1) continue;
        in_place_mma_.insert(n);
    }
}

// A topk's values and indices over one operand, dim and count in one region
// (a user's topk(x, axis, k).values and .indices) come from one selection.
void Emitter::find_topk_twins(const Uses& u) {
    for (auto& [x, users] : u.users)
        for (const Node* a : users)
            for (const Node* b : users) {
                if (a->op != OpCode::topk_values || b->op != OpCode::topk_indices || dead(*a) || dead(*b)) continue;
                if (ir::tile_dim(*a) != ir::tile_dim(*b) || ir::topk_count(*a) != ir::topk_count(*b) || u.region.at(a) != u.region.at(b)) continue;
                if (topk_twin_.count(a) || topk_twin_.count(b)) continue;
                topk_twin_[a] = b;
                topk_twin_[b] = a;
            }
}

}  // namespace kiln::native
