// Tile operations as C++ loop nests, each reproducing interp/eval.cpp exactly
// (element expressions: emit_expr.h). Scans and the arg-reductions keep the
// pinned orders: loops are only interchanged where every output still sees its
// inputs in the same order. Reductions: emit_reduce.cpp; mma: emit_mma.cpp.
#include <algorithm>

#include "targets/cpu/emit_expr.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

std::string Emitter::math(OpCode op, Kind k, const std::string& x) {
    // Precision standard: the target's own f32 exp (within 2 ulp, docs/semantics.md);
    // f16 and bf16 values are exact in float, and their exp is rounded once more.
    if (op == OpCode::exp && !opts_.exact) {
        if (k == Kind::F32) return "kiln_cpu::exp32_fast(" + x + ")";
        if (k == Kind::F16 || k == Kind::BF16) return round_to(k, "(double)kiln_cpu::exp32_fast((float)" + paren(x) + ")");
    }
    if (op == OpCode::exp && k == Kind::F32 && !math_flag_.empty()) {
        math_flag_used_ = true;
        return "kiln_cpu::exp32(" + x + ", " + math_flag_ + ")";
    }
    return round_to(k, math_fn(op) + "(" + widen(k, x) + ")");
}

// Element e of an elementwise op (or of iota, full, or a fused broadcast of one element).
std::string Emitter::element_expr(const Node& n, const std::string& e) {
    const Kind k = n.type.kind;
    auto operand = [&](std::size_t i) { return at(n.operands[i], e); };
    switch (ir::category(n.op)) {
        case ir::OpCategory::unary:
            if (ir::is_math(n.op)) return math(n.op, k, operand(0));
            return unary(n.op, k, operand(0));
        case ir::OpCategory::cast: return cast(n.operands[0]->type.kind, k, operand(0));
        case ir::OpCategory::binary: return binary(n.op, k, operand(0), operand(1));
        case ir::OpCategory::compare: return compare(n.op, operand(0), operand(1));
        case ir::OpCategory::select: return paren(operand(0) + " ? " + operand(1) + " : " + operand(2));
        case ir::OpCategory::leaf:
            if (n.op == OpCode::iota) return "(long long)" + e;
            break;
        case ir::OpCategory::shape:
            if (n.op == OpCode::full || n.op == OpCode::broadcast) return at(n.operands[0], "0");
            break;
        case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan: case ir::OpCategory::contraction:
        case ir::OpCategory::movement: case ir::OpCategory::sort: case ir::OpCategory::memory: case ir::OpCategory::control: break;
    }
    internal_fail("cpu emitter: '" + std::string(detail::op_name(n.op)) + "' has no element expression");
}

void Emitter::emit_op(const Node& n) {
    const bool fused = fusible_.count(&n) != 0;
    line("// %" + id(&n) + " = " + std::string(detail::op_name(n.op)) + " : " + ir::print_type(p_, n.type) + (fused ? " (fused into its use)" : ""));
    switch (ir::category(n.op)) {
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast:
            elementwise(n);
            return;
        case ir::OpCategory::leaf:
            if (n.op == OpCode::iota) return elementwise(n);
            break;
        case ir::OpCategory::shape:
            // Values are immutable and row-major, so a reshape is its operand's storage.
            if (n.op == OpCode::reshape) return alias(n, *n.operands[0]);
            if (n.op == OpCode::full) return elementwise(n);
            if (n.op == OpCode::broadcast && fused) {
                storage_[&n] = Storage{"v" + id(&n), true, n.type.count(), &n};
                return;
            }
            return in_block(n, &Emitter::emit_relayout);
        case ir::OpCategory::reduction: return in_block(n, &Emitter::emit_reduce);
        case ir::OpCategory::scan: return in_block(n, &Emitter::emit_scan);
        case ir::OpCategory::arg_reduction: return in_block(n, &Emitter::emit_arg_reduce);
        case ir::OpCategory::sort: return in_block(n, &Emitter::emit_sort);
        case ir::OpCategory::contraction:
            if (in_place_mma_.count(&n)) {
                alias(n, *n.operands[2]);  // the carried slot (find_in_place_mma)
                open("");
                emit_mma(n);
                close();
                return;
            }
            return in_block(n, &Emitter::emit_mma);
        case ir::OpCategory::movement:
            return in_block(n, n.op == OpCode::gather ? &Emitter::emit_gather : &Emitter::emit_reindex);
        case ir::OpCategory::memory:
            // An explicit memory<T> resource holds the value unchanged (a snapshot).
            if (n.op == OpCode::mem_store || n.op == OpCode::mem_load) return alias(n, *n.operands[0]);
            break;
        case ir::OpCategory::control: break;
    }
    internal_fail("cpu emitter: no lowering for op '" + std::string(detail::op_name(n.op)) + "'");
}

// The result is declared in the enclosing scope; the op's temporaries live in a
// block of their own.
void Emitter::in_block(const Node& n, void (Emitter::*emit)(const Node&)) {
    define(n);
    open("");
    (this->*emit)(n);
    close();
}

// out[p] = x[sum of p's coordinates times per-dim source coefficients + base].
void Emitter::emit_relayout(const Node& n) {
    const Node* x = n.operands[0];
    const auto& od = n.type.dims;
    const auto& xd = x->type.dims;
    auto xs = ir::strides_of(xd);
    std::vector<std::int64_t> coef(od.size(), 0);
    std::int64_t base = 0;
    for (std::size_t d = 0; d < od.size(); ++d) {
        if (n.op == OpCode::permute) coef[d] = xs[static_cast<std::size_t>(ir::dim_map(n)[d])];
        if (n.op == OpCode::slice) {
            coef[d] = xs[d];
            base += ir::slice_starts(n)[d] * xs[d];
        }
    }
    if (n.op == OpCode::broadcast)
        for (std::size_t d = 0; d < xd.size(); ++d)
            if (xd[d].extent != 1) coef[static_cast<std::size_t>(ir::dim_map(n)[d])] += xs[d];
    loop_nest(extents_of(od), "i", [&](const std::vector<std::string>& vars) {
        line(at(&n, linear(vars, ir::strides_of(od))) + " = " + at(x, linear(vars, coef, base)) + ";");
    });
}


// Inclusive scan along one dim, left to right; vectorised across lines when the
// scanned dim is not the innermost.
void Emitter::emit_scan(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    const Kind k = n.type.kind;
    auto xs = ir::strides_of(xd);
    std::vector<std::size_t> others;
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (d != axis) others.push_back(d);
    const std::string L = std::to_string(xd[axis].extent), step = std::to_string(xs[axis]);
    if (axis == xd.size() - 1) {
        auto vars = open_loops(pick(extents_of(xd), others), "k");
        std::string base = linear(vars, pick(xs, others));
        line(ctype(k) + " acc = " + at(x, base) + ";");
        line(at(&n, base) + " = acc;");
        open("for (int j = 1; j < " + L + "; ++j)");
        line("acc = " + combine(n.op, k, "acc", at(x, base + " + j * " + step)) + ";");
        line(at(&n, base + " + j * " + step) + " = acc;");
        close();
        close_loops(vars);
        return;
    }
    auto vars = open_loops(pick(extents_of(xd), others), "k");
    std::string base = linear(vars, pick(xs, others));
    line(at(&n, base) + " = " + at(x, base) + ";");
    close_loops(vars);
    open("for (int j = 1; j < " + L + "; ++j)");
    vars = open_loops(pick(extents_of(xd), others), "k");
    std::string here = base + " + j * " + step, prev = base + " + (j - 1) * " + step;
    line(at(&n, here) + " = " + combine(n.op, k, at(&n, prev), at(x, here)) + ";");
    close_loops(vars);
    close();
}

// The index of the first extreme element of each line; NaN counts as extreme.
void Emitter::emit_arg_reduce(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    auto xs = ir::strides_of(xd);
    std::vector<std::size_t> others;
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (d != axis) others.push_back(d);
    auto vars = open_loops(pick(extents_of(xd), others), "k");
    std::string base = linear(vars, pick(xs, others)), step = std::to_string(xs[axis]);
    line("long long best = 0;");
    open("for (int j = 1; j < " + std::to_string(xd[axis].extent) + "; ++j)");
    line("const " + ctype(x->type.kind) + " v = " + at(x, base + " + j * " + step) + ", bv = " + at(x, base + " + best * " + step) + ";");
    const char* cmp = n.op == OpCode::argmax ? ">" : "<";
    if (is_float(x->type.kind)) line(std::string("if (!(bv != bv) && (v != v || v ") + cmp + " bv)) best = j;");
    else line(std::string("if (v ") + cmp + " bv) best = j;");
    close();
    line(at(&n, linear(vars, ir::strides_of(n.type.dims))) + " = best;");
    close_loops(vars);
}

// sort / topk: each line's stable order (prelude sort_line), then the first
// `count` values or source indices.
void Emitter::emit_sort(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    const bool topk = n.op == OpCode::topk_values || n.op == OpCode::topk_indices;
    const bool want_index = n.op == OpCode::sort_indices || n.op == OpCode::topk_indices;
    const std::int64_t L = xd[axis].extent, count = topk ? ir::topk_count(n) : L;
    auto xs = ir::strides_of(xd), os = ir::strides_of(n.type.dims);
    std::vector<std::size_t> others;
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (d != axis) others.push_back(d);
    const std::string Ls = std::to_string(L);
    line(ctype(x->type.kind) + " line[" + Ls + "];");
    line("long long order[" + Ls + "], scratch[" + Ls + "];");
    frame_bytes_ += L * (ctype_bytes(x->type.kind) + 16);
    auto vars = open_loops(pick(extents_of(xd), others), "k");
    std::string base = linear(vars, pick(xs, others)), obase = linear(vars, pick(os, others));
    line("for (int j = 0; j < " + Ls + "; ++j) line[j] = " + at(x, base + " + j * " + std::to_string(xs[axis])) + ";");
    line(std::string("kiln_cpu::sort_line(line, order, scratch, ") + Ls + ", " + (topk ? "true" : "false") + ");");
    line("for (int j = 0; j < " + std::to_string(count) + "; ++j) " + at(&n, obase + " + j * " + std::to_string(os[axis])) + " = " +
         (want_index ? "order[j]" : "line[order[j]]") + ";");
    close_loops(vars);
}


// out[p] = x[p with dim `axis` := index[p]], 0 when the index is outside.
void Emitter::emit_gather(const Node& n) {
    const Node *x = n.operands[0], *index = n.operands[1];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    auto xs = ir::strides_of(xd);
    std::vector<std::size_t> others;
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (d != axis) others.push_back(d);
    auto vars = open_loops(extents_of(n.type.dims), "i");
    std::string o = linear(vars, ir::strides_of(n.type.dims));
    line("const long long j = " + at(index, o) + ";");
    line(at(&n, o) + " = j >= 0 && j < " + std::to_string(xd[axis].extent) + " ? " +
         at(x, linear(vars, pick(xs, others)) + " + j * " + std::to_string(xs[axis])) + " : (" + ctype(n.type.kind) + ")0;");
    close_loops(vars);
}

// out[p] = x[c0(p), ..., cn(p)], 0 when any coordinate is outside.
void Emitter::emit_reindex(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    auto xs = ir::strides_of(xd);
    open("for (int e = 0; e < " + std::to_string(n.type.count()) + "; ++e)");
    std::string inside, offset;
    for (std::size_t d = 0; d < xd.size(); ++d) {
        std::string c = "c" + std::to_string(d);
        line("const long long " + c + " = " + at(n.operands[d + 1], "e") + ";");
        inside += (d ? " && " : "") + c + " >= 0 && " + c + " < " + std::to_string(xd[d].extent);
        offset += (d ? " + " : "") + c + " * " + std::to_string(xs[d]);
    }
    line(at(&n, "e") + " = " + inside + " ? " + at(x, offset) + " : (" + ctype(n.type.kind) + ")0;");
    close();
}

}  // namespace kiln::native
