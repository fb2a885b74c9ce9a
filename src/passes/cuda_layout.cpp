// The cuda_layout pass (cuda_layout.h): the instance's threads, each value's
// distribution and each op's lowering.
//
// Values that must share a distribution (the operands and result of an
// elementwise op, a reshape, a loop's carried value in all its forms) form one
// class. A class takes, in this order of preference: the projection a reduction
// produces in registers (a row statistic, column sums), the projection a broadcast
// of it needs (a weight vector held as the columns of the tile it scales), or its
// own natural distribution. Where a broadcast's operand or a reduction's result
// still differs from what the fast path needs, the op stages through shared memory
// and its decision says why; `kiln plan` prints both.
#include <algorithm>
#include <functional>
#include <map>

#include "ir/attrs.h"
#include "passes/cuda_layout.h"
#include "passes/lowered.h"

namespace kiln::passes {

using detail::OpCode;

namespace {

// LowerOptions::elements_per_thread: the most elements of its largest tile a thread
// holds before the CTA grows past 256 threads (and, for packed instances, the
// elements a thread aims for). A row tile lives in registers. Fewer per thread means
// more threads per row, and each thread pays the fixed work of every reduction
// (shuffles, the exchange) and of every load and store (addresses, masks): for
// bench/cuda_bench.cpp's softmax over 8192 bf16 columns the instructions per row are
// 1.4x those of 32 per thread at 8 per thread, and that kernel is close to bound by
// instruction issue. At 32 per thread it needs 64 registers: four 256-thread CTAs per
// SM. KILN_CUDA_ELEMENTS_PER_THREAD sets it (launch_args.cpp), for measuring other points.
std::int64_t most_per_thread(const Lowered& l) { return std::max(1, l.options.elements_per_thread); }

std::int64_t pow2_ceil(std::int64_t x) {
    std::int64_t p = 1;
    while (p < x) p *= 2;
    return p;
}

bool scalar(const ir::Node* n) { return n->type.dims.empty(); }
std::int64_t last_extent(const ir::Node* n) { return n->type.dims.empty() ? 1 : n->type.dims.back().extent; }
// The position of the last dim of more than one element (-1: none). Unit dims hold no
// order: a [c, 1] tile's elements lie in the order of a [1, c] one's, so both are a
// row of c (the layout's rows and columns are those of the dims without the unit ones).
int last_wide_dim(const std::vector<detail::Dim>& dims) {
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d)
        if (dims[static_cast<std::size_t>(d)].extent != 1) return d;
    return -1;
}
// The extent of a value's rows: that of its last dim of more than one element.
std::int64_t row_extent(const ir::Node* n) {
    const int d = last_wide_dim(n->type.dims);
    return d < 0 ? 1 : n->type.dims[static_cast<std::size_t>(d)].extent;
}
// An argmax or argmin the register reductions take (emit_register_reduce.cpp): its
// operand's order key and the index fit one 64-bit key (values of at most 4 bytes).
bool register_arg_reduction(const ir::Node& n) {
    if (n.op != OpCode::argmax && n.op != OpCode::argmin) return false;
    const Kind k = n.operands[0]->type.kind;
    return k == Kind::F32 || k == Kind::F16 || k == Kind::BF16 || k == Kind::I32 || k == Kind::I8 || k == Kind::Bool;
}

// A broadcast of as many elements as its operand, of the same rank, whose dims of more
// than one element keep their order: it only moves unit axes ([1, c] into [c, 1]), and
// its elements lie in its operand's order. (A vector [c] made a [1, c] row keeps its
// own class: it is held as the columns of the row, loaded once for many rows.)
bool moves_only_unit_axes(const ir::Node& n) {
    const auto& o = n.operands[0]->type;
    if (n.op != OpCode::broadcast || o.dims.size() < 2 || o.dims.size() != n.type.dims.size() || o.count() != n.type.count()) return false;
    const auto& from = n.operands[0]->type.dims;
    auto map = ir::dim_map(n);
    std::int64_t previous = -1;
    for (std::size_t d = 0; d < from.size(); ++d) {
        if (from[d].extent == 1) continue;
        if (map[d] <= previous) return false;
        previous = map[d];
    }
    return true;
}
std::string where(const ir::Node* n) { return std::string(detail::op_name(n->op)) + (n->loc.known() ? " at " + n->loc.str() : ""); }

CudaLayout columns_of(CudaLayout l) {
    l.holds = CudaHolds::columns;
    l.count = l.cols;
    l.rows = 1;
    l.row_rounds = 1;
    l.uniform = l.count == 1;
    return l;
}

CudaLayout rows_of(CudaLayout l) {
    l.holds = CudaHolds::rows;
    l.count = l.rows;
    l.cols = 1;
    l.vec = 1;
    l.row_runs = 1;
    l.uniform = l.count == 1;
    return l;
}

// What a reduction reduces, in terms of its operand's rows and columns.
enum class Reduces { row, columns, all, other };

Reduces reduces(const ir::Node& n) {
    const auto& dims = n.operands[0]->type.dims;
    std::vector<bool> r(dims.size(), false);
    if (ir::category(n.op) == ir::OpCategory::arg_reduction) r[static_cast<std::size_t>(ir::tile_dim(n))] = true;  // its one axis
    else
        for (auto d : ir::reduced_dims(n)) r[static_cast<std::size_t>(d)] = true;
    // The rows' axis is the last dim of more than one element (unit dims after it hold no order).
    const int wide = last_wide_dim(dims);
    const std::size_t last_dim = wide < 0 ? dims.size() - 1 : static_cast<std::size_t>(wide);
    bool last = !dims.empty() && r[last_dim], leading = true, any_leading = false;
    for (std::size_t d = 0; d < last_dim; ++d) {
        // A reduced or kept extent-1 dim moves nothing either way.
        if (dims[d].extent == 1) continue;
        leading = leading && r[d];
        any_leading = any_leading || r[d];
    }
    if (last && leading) return Reduces::all;
    if (last && !any_leading) return Reduces::row;
    if (!last && leading) return Reduces::columns;
    return Reduces::other;
}

// The operand dims of a broadcast, as the result dims they map to: along the rows
// (the operand is the result's columns), along the columns (its rows), or neither.
Reduces broadcast_along(const ir::Node& n) {
    const auto& from = n.operands[0]->type.dims;
    auto map = ir::dim_map(n);
    const int wide = last_wide_dim(n.type.dims);
    const std::size_t last = wide < 0 ? n.type.dims.size() - 1 : static_cast<std::size_t>(wide);
    bool only_last = true, only_leading = true;
    std::int64_t previous = -1;
    for (std::size_t d = 0; d < from.size(); ++d) {
        if (from[d].extent == 1) continue;
        auto to = static_cast<std::size_t>(map[d]);
        only_last = only_last && to == last;
        only_leading = only_leading && to != last && static_cast<std::int64_t>(to) > previous;
        previous = static_cast<std::int64_t>(to);
    }
    if (only_last) return Reduces::columns;  // operand = the result's columns
    if (only_leading) return Reduces::row;    // operand = the result's rows
    return Reduces::other;
}

struct Classes {
    std::unordered_map<const ir::Node*, const ir::Node*> parent;
    const ir::Node* find(const ir::Node* n) {
        auto it = parent.find(n);
        if (it == parent.end()) return parent[n] = n;
        if (it->second == n) return n;
        return it->second = find(it->second);
    }
    void unite(const ir::Node* a, const ir::Node* b) {
        if (scalar(a) || scalar(b) || a->type.count() != b->type.count()) return;
        const ir::Node *x = find(a), *y = find(b);
        if (x != y) parent[y] = x;
    }
};

class Assignment {
public:
    Assignment(const Lowered& l, CudaLayouts& c) : l_(l), c_(c) {}

    void run() {
        collect();
        for (const ir::Node* n : values_) {
            const ir::Node* root = classes_.find(n);
            auto& best = shape_[root];
            if (!best || n->type.dims.size() > best->type.dims.size()) best = n;
        }
        std::unordered_map<const ir::Node*, CudaLayout> natural;
        for (auto& [root, n] : shape_) natural[root] = c_.tile(n->type.count() / row_extent(n), row_extent(n), c_.vec);
        layout_ = natural;
        // Producers' projections first, then consumers'; a few rounds reach a fixed point
        // (a projection depends on another class, which depends on no projection of it).
        for (int round = 0; round < 4; ++round) {
            std::unordered_map<const ir::Node*, CudaLayout> produced, wanted;
            for (const ir::Node* n : nodes_) propose(*n, produced, wanted);
            auto next = natural;
            for (auto& [root, l] : wanted) next[root] = l;
            for (auto& [root, l] : produced) next[root] = l;
            bool same = true;
            for (auto& [root, l] : next) same = same && layout_[root].same_distribution(l) && layout_[root].holds == l.holds;
            layout_ = std::move(next);
            if (same) break;
        }
        for (const ir::Node* n : values_) c_.values[n] = of(n);
        for (const ir::Node* n : nodes_) decide(*n);
    }

private:
    CudaLayout of(const ir::Node* n) {
        if (scalar(n) || n->type.count() == 1) {
            CudaLayout u;
            u.uniform = true;
            u.threads = c_.threads;
            return u;
        }
        return layout_.at(classes_.find(n));
    }

    void collect() {
        ir::walk(l_.program->body, [&](const ir::Node& n) {
            if (!l_.is_live(n)) return;
            nodes_.push_back(&n);
            if (ir::has_result(n.op) && n.op != OpCode::loop && !scalar(&n)) values_.push_back(&n);
            if (n.op == OpCode::loop && n.body)
                for (std::size_t a = static_cast<std::size_t>(ir::loop_rank(n)); a < n.body->args.size(); ++a)
                    if (!scalar(n.body->args[a])) values_.push_back(n.body->args[a]);
            unite(n);
        });
        for (const ir::Node* n : values_) classes_.find(n);
    }

    void unite(const ir::Node& n) {
        switch (ir::category(n.op)) {
            case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
            case ir::OpCategory::cast:
                for (const ir::Node* o : n.operands) classes_.unite(&n, o);
                return;
            case ir::OpCategory::shape:
                if (n.op == OpCode::reshape || moves_only_unit_axes(n)) classes_.unite(&n, n.operands[0]);
                return;
            case ir::OpCategory::memory:
                if (n.op == OpCode::mem_store || n.op == OpCode::mem_load) classes_.unite(&n, n.operands[0]);
                return;
            case ir::OpCategory::control:
                if (n.op == OpCode::loop && n.body && &n != l_.program->grid) {
                    auto rank = static_cast<std::size_t>(ir::loop_rank(n));
                    const ir::Node* y = n.body->nodes.empty() ? nullptr : n.body->nodes.back();
                    for (std::size_t c = rank; c < n.operands.size(); ++c) {
                        classes_.unite(n.operands[c], n.body->args[c]);
                        if (y && y->op == OpCode::yield && c - rank < y->operands.size()) classes_.unite(n.body->args[c], y->operands[c - rank]);
                    }
                    for (const ir::Node* r : n.parent->nodes)
                        if (r->op == OpCode::loop_result && r->operands[0] == &n)
                            classes_.unite(r, n.body->args[rank + static_cast<std::size_t>(ir::slot(*r))]);
                }
                return;
            case ir::OpCategory::contraction:
                classes_.unite(&n, n.operands[2]);  // the accumulator is read slot by slot
                return;
            case ir::OpCategory::movement:
                // gather's indices and reindex's coordinates are read slot by slot.
                for (std::size_t i = 1; i < n.operands.size(); ++i) classes_.unite(&n, n.operands[i]);
                return;
            case ir::OpCategory::leaf: case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan:
            case ir::OpCategory::sort:
                return;
        }
    }

    bool row_tile(const ir::Node* x, const CudaLayout& l) { return !l.uniform && l.holds == CudaHolds::tile && l.cols == row_extent(x) && l.count == x->type.count(); }

    void propose(const ir::Node& n, std::unordered_map<const ir::Node*, CudaLayout>& produced,
                 std::unordered_map<const ir::Node*, CudaLayout>& wanted) {
        if (scalar(&n) || n.type.count() == 1) return;
        if (ir::category(n.op) == ir::OpCategory::reduction || register_arg_reduction(n)) {
            const ir::Node* x = n.operands[0];
            CudaLayout lx = of(x);
            if (!row_tile(x, lx)) return;
            Reduces r = reduces(n);
            if (r == Reduces::row && n.type.count() == lx.rows) produced.emplace(classes_.find(&n), rows_of(lx));
            if (r == Reduces::columns && n.type.count() == lx.cols) produced.emplace(classes_.find(&n), columns_of(lx));
            return;
        }
        if (n.op != OpCode::broadcast || moves_only_unit_axes(n)) return;
        const ir::Node* o = n.operands[0];
        if (scalar(o) || o->type.count() == 1 || o->op == OpCode::iota || o->op == OpCode::full) return;
        CudaLayout lb = of(&n);
        if (!row_tile(&n, lb)) return;
        Reduces along = broadcast_along(n);
        if (along == Reduces::columns && o->type.count() == lb.cols) wanted.emplace(classes_.find(o), columns_of(lb));
        if (along == Reduces::row && o->type.count() == lb.rows) wanted.emplace(classes_.find(o), rows_of(lb));
    }

    void decide(const ir::Node& n) {
        CudaDecision d;
        switch (ir::category(n.op)) {
            case ir::OpCategory::memory:
                if (n.op == OpCode::load || n.op == OpCode::store) d = access(n);
                break;
            case ir::OpCategory::shape:
                if (n.op == OpCode::broadcast) d = broadcast(n);
                else if (n.op == OpCode::permute && n.type.dims.size() == 2 && ir::dim_map(n)[0] == 1)
                    d = {CudaLowering::padded_transpose, ""};
                else if (n.op == OpCode::permute || n.op == OpCode::slice)
                    d = {CudaLowering::staged, "a " + std::string(detail::op_name(n.op)) + " moves elements between threads"};
                break;
            case ir::OpCategory::reduction: d = reduction(n); break;
            case ir::OpCategory::arg_reduction: {
                const bool in_registers = register_arg_reduction(n);
                if (in_registers && (d = reduction(n)).how == CudaLowering::row_reduce) break;
                d = {CudaLowering::staged, "a " + std::string(detail::op_name(n.op)) + " reads elements other threads hold" +
                                               (in_registers ? "" : " (in registers only over the rows of values of at most 4 bytes)")};
                break;
            }
            case ir::OpCategory::scan: case ir::OpCategory::sort: case ir::OpCategory::movement:
                // Each result element reads elements that other threads hold, in an
                // order no register layout gives.
                d = {CudaLowering::staged, "a " + std::string(detail::op_name(n.op)) + " reads elements other threads hold"};
                break;
            case ir::OpCategory::contraction:
                d = {CudaLowering::staged, ""};
                break;
            case ir::OpCategory::binary: case ir::OpCategory::leaf: case ir::OpCategory::unary: case ir::OpCategory::compare: case ir::OpCategory::select:
            case ir::OpCategory::cast: case ir::OpCategory::control:
                break;
        }
        if (d.how != CudaLowering::local) c_.decisions[&n] = d;
    }

    CudaDecision access(const ir::Node& n) {
        const ir::Node* tile = n.op == OpCode::load ? &n : n.operands.back();
        CudaLayout l = of(tile);
        if (scalar(tile) || l.uniform) return {CudaLowering::element_access, ""};
        // Elements dealt one a thread in turn (LowerOptions::max_run 1) move as runs of one:
        // as runs they are issued together and may go ahead of their instance
        // (grid_prefetch takes loads in runs only).
        const bool dealt_in_turn = l.vec == 1 && c_.max_run == 1;
        if (l.holds == CudaHolds::rows || (l.vec == 1 && !dealt_in_turn))
            return {CudaLowering::element_access, l.vec == 1 ? "" : "one element per row held"};
        // Runs along the rows' axis are contiguous in the view only where that axis is the
        // tile's last (a [c, 1] tile of a view reads c at the view's outer stride).
        if (last_extent(tile) == 1 && row_extent(tile) > 1) return {CudaLowering::element_access, "the row's axis is not the tile's last"};
        const std::int64_t last = last_extent(tile);
        bool contiguous = last == l.cols || tile->type.dims.size() == 1 || (l.cols % l.vec == 0 && last % l.vec == 0);
        if (!contiguous) return {CudaLowering::element_access, "runs of " + std::to_string(l.vec) + " would cross the rows of the view"};
        return {CudaLowering::vector_access, ""};
    }

    CudaDecision broadcast(const ir::Node& n) {
        const ir::Node* o = n.operands[0];
        if (o->op == OpCode::iota || o->op == OpCode::full) return {CudaLowering::recompute, ""};
        CudaLayout lo = of(o), lb = of(&n);
        if (scalar(o) || lo.uniform) return {CudaLowering::broadcast_free, ""};
        // One class with its operand: the same registers (emit_movement.cpp).
        if (moves_only_unit_axes(n)) return {CudaLowering::local, ""};
        if (!row_tile(&n, lb)) return {CudaLowering::staged, "the result is not distributed as rows of its last axis"};
        Reduces along = broadcast_along(n);
        if (along == Reduces::other) return {CudaLowering::staged, "the operand spans both the rows and the columns of the result"};
        CudaLayout want = along == Reduces::columns ? columns_of(lb) : rows_of(lb);
        if (lo.same_distribution(want)) return {CudaLowering::broadcast_free, ""};
        return {CudaLowering::staged, "the operand is distributed as " + lo.describe(false) + ", not as " + want.describe(false) +
                                          " (it has another use that needs that)"};
    }

    CudaDecision reduction(const ir::Node& n) {
        const ir::Node* x = n.operands[0];
        CudaLayout lx = of(x);
        if (l_.options.exact() && is_float(n.type.kind) && n.op == OpCode::reduce_add)
            return {CudaLowering::ordered_fold, "exact precision folds a float sum in the contract's order"};
        if (lx.uniform) return {CudaLowering::staged, ""};
        if (!row_tile(x, lx)) return {CudaLowering::staged, "the operand is not distributed as rows of a tile"};
        switch (reduces(n)) {
            case Reduces::row: return {CudaLowering::row_reduce, ""};
            case Reduces::columns: return {CudaLowering::column_reduce, ""};
            case Reduces::all: return {lx.rows == 1 ? CudaLowering::row_reduce : CudaLowering::full_reduce, ""};
            case Reduces::other: break;
        }
        return {CudaLowering::staged, "the reduced axes are neither the last one nor the leading ones"};
    }

    const Lowered& l_;
    CudaLayouts& c_;
    Classes classes_;
    std::vector<const ir::Node*> nodes_, values_;
    std::unordered_map<const ir::Node*, const ir::Node*> shape_;  // each class's widest-rank member
    std::unordered_map<const ir::Node*, CudaLayout> layout_;
};

// Kernel-wide facts: the widest run (at most max_run elements, where not 0) and the largest tile.
void measure(const Lowered& l, int max_run, CudaLayouts& c) {
    ir::walk(l.program->body, [&](const ir::Node& n) {
        if (!l.is_live(n)) return;
        if (ir::has_result(n.op)) c.largest = std::max(c.largest, n.type.count());
        const ir::Node* tile = n.op == OpCode::load ? &n : n.op == OpCode::store ? n.operands.back() : nullptr;
        if (tile && !tile->type.dims.empty()) c.vec = std::max(c.vec, std::min(8, 16 / kind_bytes(tile->type.kind)));
    });
    // Rows moved element by element anyway (misaligned) read best one element a thread
    // in turn: a warp's accesses then cover one contiguous span (LowerOptions::max_run).
    if (max_run > 0) c.vec = std::min(c.vec, max_run);
    c.max_run = max_run;
}

// The first op that stages through shared memory, if any.
std::string first_staged(const CudaLayouts& c, const Lowered& l) {
    std::string found;
    ir::walk(l.program->body, [&](const ir::Node& n) {
        if (!found.empty() || !l.is_live(n)) return;
        auto d = c.decision(&n).how;
        if (d == CudaLowering::staged || d == CudaLowering::ordered_fold || d == CudaLowering::padded_transpose)
            found = where(&n) + " stages through shared memory";
    });
    return found;
}

// How many tiles as large as the largest a thread holds at once, at the points where
// the emitted code cannot stream element by element: a load or a reduction (its
// operand complete before anything after it runs), a loop, a movement. Elementwise
// chains between those points compute one element at a time (the compiler
// interleaves the unrolled loops), so only values defined before such a point and
// used after it, and the point's own result, are live there. A value counts its
// elements against the largest tile's (a [C] weight beside a [1, C] row counts one),
// twice for 8-byte kinds. swiglu holds its two halves across the second load (2);
// LayerNorm with weight and bias holds the centred row and both vectors (3);
// softmax holds one row across each reduction (1).
double peak_live_tiles(const Lowered& l, std::int64_t largest) {
    const ir::Region& body = l.program->grid ? *l.program->grid->body : l.program->body;
    std::unordered_map<const ir::Node*, std::size_t> position;  // top-level position of every node inside the body
    for (std::size_t i = 0; i < body.nodes.size(); ++i) {
        position[body.nodes[i]] = i;
        if (body.nodes[i]->body) ir::walk(*body.nodes[i]->body, [&](const ir::Node& n) { position[&n] = i; });
    }
    std::unordered_map<const ir::Node*, std::size_t> last_use;
    for (std::size_t i = 0; i < body.nodes.size(); ++i) {
        auto use = [&](const ir::Node& n) {
            for (const ir::Node* o : n.operands)
                if (position.count(o)) last_use[o] = std::max(last_use[o], i);
        };
        use(*body.nodes[i]);
        if (body.nodes[i]->body) ir::walk(*body.nodes[i]->body, use);
    }
    auto weight = [&](const ir::Node* n) {
        if (scalar(n) || n->type.count() <= 1 || !l.is_live(*n)) return 0.0;
        return static_cast<double>(n->type.count()) / static_cast<double>(std::max<std::int64_t>(1, largest)) *
               (kind_bytes(n->type.kind) == 8 ? 2 : 1);
    };
    double peak = 0;
    for (std::size_t i = 0; i < body.nodes.size(); ++i) {
        const ir::Node& at = *body.nodes[i];
        const auto c = ir::category(at.op);
        const bool streams = c == ir::OpCategory::unary || c == ir::OpCategory::binary || c == ir::OpCategory::compare ||
                             c == ir::OpCategory::select || c == ir::OpCategory::cast || c == ir::OpCategory::shape ||
                             c == ir::OpCategory::leaf || at.op == OpCode::store;
        if (streams || !l.is_live(at)) continue;
        double live = ir::has_result(at.op) && at.op != OpCode::loop ? weight(&at) : 0;
        if (at.op == OpCode::loop)
            for (std::size_t o = static_cast<std::size_t>(ir::loop_rank(at)); o < at.operands.size(); ++o) live += weight(at.operands[o]);
        for (auto& [v, last] : last_use)
            if (position.at(v) < i && last > i && v->parent == &body) live += weight(v);
        peak = std::max(peak, live);
    }
    return peak;
}

// Whether every reduction of the program combines rows that span all T threads (its
// exchange reads the row's warp partials by the warps' place in the cluster, which a
// cluster's CTAs can read from each other; a row held by fewer threads would have
// its warps in some CTA other than the first).
bool only_whole_row_reductions(const CudaLayouts& c) {
    for (auto& [node, d] : c.decisions) {
        if (d.how == CudaLowering::column_reduce || d.how == CudaLowering::full_reduce) return false;
        if (d.how == CudaLowering::row_reduce && c.of(node->operands[0]).group != c.threads) return false;
    }
    return true;
}

// A row too wide for one CTA's registers (65536 bf16 columns and more) is spread
// over a cluster of up to 8 CTAs (Hopper): the instance's T threads are the
// cluster's, each CTA holding T / C of them, and a reduction's exchange reads the
// other CTAs' partials through distributed shared memory. Only where every op
// lowers in registers (nothing staged in one CTA's shared memory) and every
// reduction combines whole rows; not in exact precision (its float sums fold in one
// thread). Each CTA has options.cluster_cta_threads threads (0: 256 where the rows
// are stored in 16-bit or narrower kinds, else 1024), more where a cluster of 8 (the
// portable most) needs them.
//
// The choice, measured on an H100 at 2048 x 65536 (bench/results/gpu-20261205-s28):
// bf16 rows, which fit 1024-thread CTAs without a spill, ran faster in smaller CTAs
// (several rows' CTAs resident on an SM, one row's loads overlapping another's
// reductions): softmax 0.50 / 0.56 / 0.61 of copy bandwidth at 1024 / 512 / 256
// threads, LayerNorm 0.34 / 0.37 / 0.37, cross-entropy 0.25 / 0.29 / 0.29. f32 rows
// hold twice the registers: in smaller CTAs the spill feedback split them further, over
// clusters of 8 whole-SM CTAs, and they ran slower (LayerNorm 0.45 -> 0.30, softmax
// 0.66 -> 0.60; cross-entropy alone 0.44 -> 0.49).
void try_cluster(const Lowered& l, const CudaLayouts& base, std::int64_t most, CudaLayouts& c) {
    if (!l.program->grid || l.options.exact() || l.options.sm < 90 || !l.options.cluster_rows) return;
    CudaLayouts k = base;
    k.threads = static_cast<int>(std::min<std::int64_t>(8192, pow2_ceil((k.largest + most - 1) / most)));
    if (k.threads <= 1024) return;
    const int chosen = l.options.cluster_cta_threads > 0 ? l.options.cluster_cta_threads : base.vec >= 8 ? 256 : 1024;
    const int cta = std::max(std::clamp(chosen, 256, 1024), k.threads / 8);
    k.cluster = k.threads / cta;
    Assignment(l, k).run();
    if (!first_staged(k, l).empty() || !only_whole_row_reductions(k)) return;
    c = std::move(k);
}

}  // namespace

// T: enough threads that the largest tile has about one element per thread, between
// one warp and 256; past 256 x elements_per_thread elements, up to 1024. A program
// whose every op lowers in registers instead runs several instances per CTA of 256
// threads, each on as few threads as hold its largest tile at elements_per_thread
// elements each (fewer when several tiles are live at once: peak_live_tiles): one
// warp or a few lanes per narrow row.
namespace {

CudaLayouts choose(const Lowered& l, int max_run) {
    CudaLayouts base;
    measure(l, max_run, base);
    // A thread's registers hold about elements_per_thread elements of live tiles without
    // spilling at 64 registers; more tiles live at once share them. Where ptxas still
    // spills, the kernel cache compiles again with a layout_split of 2, 4, 8.
    const double live = peak_live_tiles(l, base.largest);
    const std::int64_t most =
        std::max<std::int64_t>(1, most_per_thread(l) / (live <= 1.25 ? 1 : live <= 3 ? 2 : 4) / std::max(1, l.options.layout_split));
    CudaLayouts c = base;
    while (c.threads < c.largest && c.threads < 256) c.threads *= 2;
    while (c.threads < 1024 && c.largest > c.threads * most) c.threads *= 2;
    // A 1024-thread CTA has at most 64 registers a thread: where the tile and the
    // vectors held beside it need more than about 32 of them (several rows sharing
    // three vectors), 512 threads with up to 128 registers hold them without a spill.
    const auto held = static_cast<std::int64_t>(live * static_cast<double>(c.largest));
    auto fit = [held](int threads) { return threads == 1024 && held > 1024 * 32 && held <= 512 * 64 ? 512 : threads; };
    c.threads = fit(c.threads);
    Assignment(l, c).run();
    std::string staged = first_staged(c, l);
    if (!l.program->grid) c.packing_why = "one instance";
    else if (!staged.empty()) c.packing_why = staged;
    else {
        CudaLayouts p = base;
        p.threads = fit(static_cast<int>(std::min<std::int64_t>(1024, pow2_ceil((p.largest + most - 1) / most))));
        p.instances_per_cta = std::max(1, 256 / p.threads);
        Assignment(l, p).run();
        if (first_staged(p, l).empty()) c = std::move(p);
    }
    if (c.instances_per_cta == 1 && c.largest > std::int64_t{c.threads} * most) try_cluster(l, base, most, c);
    return c;
}

}  // namespace

// Aligned slots (LowerOptions::aligned_slots) want runs of a 16-byte vector: tried
// first where the launch would otherwise deal its rows an element a thread
// (max_run 1), which it does where the program's slots cannot be aligned.
void cuda_layout(Lowered& l) {
    if (!l.options.aligned_slots) {
        l.layouts = choose(l, l.options.max_run);
        return;
    }
    CudaLayouts c = choose(l, 0);
    align_slots(l, c);
    if (!c.aligned_to && l.options.max_run > 0) {
        std::string why = std::move(c.aligned_why);
        c = choose(l, l.options.max_run);
        c.aligned_why = std::move(why);
    }
    l.layouts = std::move(c);
}

}  // namespace kiln::passes
