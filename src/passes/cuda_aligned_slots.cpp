// The last step of the cuda_layout pass where a launch asks for it
// (LowerOptions::aligned_slots: its f16/bf16 rows start off their 16-byte
// boundaries): shift the layouts of an instance's row so that its runs start on the
// boundaries of one load's row (cuda_layout.h: aligned slots).
//
// Why: such a row's runs of 8 elements cannot move as vectors where they lie, so
// they are moved an element a thread in turn (issue bound: bench/results/
// gpu-20261206-s36) or as aligned vectors shifted between lanes by shuffles.
// Shifting where the slots lie instead costs one subtraction in each column index:
// the row's loads and the stores of the same pitch move as plain aligned vectors;
// only the runs before column 0 and past the last are moved element by element.
// Measured on an H200 it lost to the dealt rows on all seven row kernels (softmax
// 0.47 -> 0.42 of copy, LayerNorm 0.49 -> 0.20: bench/results/gpu-20261206-s38),
// so it is off unless asked for (KILN_CUDA_ALIGNED_SLOTS=1). Its costs were not
// measured apart: a vector the row's shift misaligns (a weight, a bias, the second
// half of a SwiGLU row) moves in narrower pieces every row, the reductions test
// every slot's column, and the layouts and spill-ladder steps differ from the dealt
// rows' (the cross-entropy, with no such vector, lost most: 0.38 -> 0.16). A next
// try would profile one kernel first (ncu: issue slots, sectors per request).
#include <functional>
#include <unordered_set>

#include "ir/attrs.h"
#include "passes/cuda_layout.h"
#include "passes/lowered.h"

namespace kiln::passes {

using detail::OpCode;

namespace {

std::string where(const ir::Node* n) { return std::string(detail::op_name(n->op)) + (n->loc.known() ? " at " + n->loc.str() : ""); }

bool inside(const ir::Node* n, const ir::Region* body) {
    for (const ir::Region* r = n->parent; r; r = r->owner ? r->owner->parent : nullptr)
        if (r == body) return true;
    return false;
}

// The lowerings that read a value only through its layout's index expressions
// (each slot's column and whether the slot holds one): a shifted layout changes
// nothing else about them. (The exact fold stages its operand element by element
// where the layout is shifted: Emitter::stage.) Other staging and the transposes
// index shared arrays by runs, and column or full reductions combine several rows.
bool reads_slots_only(CudaLowering how) {
    switch (how) {
        case CudaLowering::local: case CudaLowering::broadcast_free: case CudaLowering::recompute: case CudaLowering::row_reduce:
        case CudaLowering::vector_access: case CudaLowering::element_access: case CudaLowering::ordered_fold:
            return true;
        default: return false;
    }
}

// Whether the scalars a load's origin reads can be computed at the start of its
// instance (before any tile), and read the instance's indices (a row the same for
// every instance, a weight vector, sets nothing per instance): nothing but scalar
// arithmetic of those indices, the arguments and constants.
bool origin_computable_first(const ir::Node& load, const ir::Region* body) {
    std::unordered_set<const ir::Node*> seen;
    bool per_instance = false;
    std::function<bool(const ir::Node*)> ok = [&](const ir::Node* v) {
        if (v->op == OpCode::region_arg && v->parent == body) per_instance = true;  // (the instance's indices)
        if (v->parent != body || !seen.insert(v).second || v->op == OpCode::region_arg) return true;
        if (!v->type.dims.empty()) return false;
        const auto c = ir::category(v->op);
        if (c == ir::OpCategory::memory || c == ir::OpCategory::control) return false;
        for (const ir::Node* o : v->operands)
            if (!ok(o)) return false;
        return true;
    };
    for (const ir::Node* o : load.operands)
        if (!ok(o)) return false;
    return per_instance;
}

}  // namespace

void align_slots(const Lowered& l, CudaLayouts& c) {
    if (!l.options.aligned_slots) return;
    const ir::Node* grid = l.program->grid;
    if (!grid) {
        c.aligned_why = "one instance";
        return;
    }
    if (c.cluster > 1) {
        c.aligned_why = "its rows span a cluster";
        return;
    }
    const ir::Region* body = grid->body.get();
    std::string why;
    std::int64_t cols = 0;
    int vec = 0;
    const ir::Node* source = nullptr;
    ir::walk(l.program->body, [&](const ir::Node& n) {
        if (!why.empty() || !l.is_live(n)) return;
        const CudaDecision d = c.decision(&n);
        if (!reads_slots_only(d.how)) {
            why = where(&n) + " is " + describe(d);
            return;
        }
        if (!ir::has_result(n.op) || n.op == OpCode::loop || n.type.dims.empty()) return;
        const CudaLayout lay = c.of(&n);
        if (lay.uniform) return;
        if (!inside(&n, body)) {
            why = where(&n) + " is computed once for every instance";
            return;
        }
        const bool one_row = lay.holds == CudaHolds::columns || (lay.holds == CudaHolds::tile && lay.rows == 1);
        if (!one_row || lay.group != c.threads) {
            why = where(&n) + " holds more than one row";
            return;
        }
        if (cols == 0) cols = lay.cols, vec = lay.vec;
        if (lay.cols != cols || lay.vec != vec) {
            why = where(&n) + " has rows of another width than " + std::to_string(cols);
            return;
        }
        if (!source && n.op == OpCode::load && n.parent == body && kind_bytes(n.type.kind) == 2 && d.how == CudaLowering::vector_access &&
            origin_computable_first(n, body))
            source = &n;
    });
    if (why.empty() && vec < 2) why = "its runs are single elements";
    // (A column index then lies above -cols: a tile element's coordinates, e % cols, stay
    // its column for the slots before column 0 too.)
    if (why.empty() && cols < vec) why = "its rows are narrower than a run";
    if (why.empty() && !source) why = "no 16-bit load of a row of its own at the start of each instance sets the rows' alignment";
    if (!why.empty()) {
        c.aligned_why = why;
        return;
    }
    // Enough runs that the columns kiln_shift (< V) before the row's first still leave
    // every column held: the row spans cols + V - 1 slot columns.
    for (auto& [n, lay] : c.values) {
        if (lay.uniform || lay.holds == CudaHolds::rows) continue;
        lay.shifted = true;
        const std::int64_t runs = (lay.cols + lay.vec - 1 + lay.vec - 1) / lay.vec;
        lay.row_runs = (runs + lay.group - 1) / lay.group;
    }
    c.aligned_to = source;
}

}  // namespace kiln::passes
