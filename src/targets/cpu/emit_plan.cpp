// The emitter's decisions about storage, made before any code is written:
// which values are fused into their consumer's loop (find_fusible), which loads
// read their tile where it lies in the view (find_view_tiles), and which mma
// accumulate in their loop's carried slot (find_in_place_mma).
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
            if (n->op == OpCode::store) u.stores.push_back(u.position[n]);
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
// array of their own: elementwise ops (and broadcasts of one element) whose
// consumers, in the same region, read each of their elements once by index
// (elementwise ops of the same element count, reductions, stores). Chains of
// them become one loop, and its temporaries registers. Ops that only copy or
// broadcast a value (full, iota, a broadcast of one element) are fused into
// any number of such consumers: they recompute nothing. Values must not
// change between the definition and the use, and none does: the only
// variables that change are loop-carried slots, written by the loop's yield,
// which ends the region, and before the loop starts.
void Emitter::find_fusible(const Uses& u) {
    for (auto& [n, users] : u.users) {
        if (dead(*n) || n->type.dims.empty()) continue;
        const bool copies = n->op == OpCode::full || n->op == OpCode::iota || (n->op == OpCode::broadcast && n->operands[0]->type.count() == 1);
        if (!copies && !elementwise_op(n->op)) continue;
        if (!copies && users.size() != 1) continue;
        bool ok = true;
        for (const Node* c : users) {
            const bool by_index = (elementwise_op(c->op) && (copies || c->type.count() == n->type.count())) ||
                                  (c->op == OpCode::store && c->operands.back() == n) || ir::category(c->op) == ir::OpCategory::reduction;
            ok = ok && by_index && u.region.at(c) == u.region.at(n);
        }
        if (ok) fusible_.insert(n);
    }
    bound_fusion(u);
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
// being copied first (when, at run time, the box is inside and its rows are
// contiguous: emit_load). The view's memory must then hold the tile's values
// for as long as they are read: no store of the instance may run between the
// load and the last read. Other instances' stores do not count: reading what
// another instance writes is outside the contract. Reads are where the value's
// storage is read: its users, the users of values aliasing it (reshape,
// memory<T>) and the consumers that evaluate values fused from it; a read in a
// loop that does not hold the load lasts to the end of that loop, whose next
// iteration reads again. Only kinds a view holds as the tile does qualify.
void Emitter::find_view_tiles(const Uses& u) {
    if (!p_.grid) return;
    auto inside_grid = [&](const Node* n) {
        for (const Node* l = u.loop.at(n); l; l = u.loop.at(l))
            if (l == p_.grid) return true;
        return false;
    };
    for (auto& [n, users] : u.users) {
        const Kind k = n->type.kind;
        if (n->op != OpCode::load || dead(*n) || n->type.dims.empty() || !opts_.unit_inner.at(static_cast<std::size_t>(ir::param_index(*n)))) continue;
        if (k != Kind::F32 && k != Kind::F64 && k != Kind::I32 && k != Kind::I64 && k != Kind::I8) continue;
        if (!inside_grid(n)) continue;
        const int from = u.position.at(n);
        int last = from;
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
                    if (seen.insert(c).second) through.push_back(c);
                    continue;
                }
                // The outermost loop around the reader that does not hold the load.
                int end = u.position.at(c);
                for (const Node* l = u.loop.at(c); l && l != u.loop.at(n); l = u.loop.at(l)) end = u.span_end.at(l);
                last = std::max(last, end);
            }
        }
        bool stored = false;
        for (int s : u.stores) stored = stored || (s > from && s <= last);
        if (!stored) view_tiles_.insert(n);
    }
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

}  // namespace kiln::native
