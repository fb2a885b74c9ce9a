// Tile operations as C++ loop nests, each reproducing interp/eval.cpp exactly
// (element expressions: emit_expr.h). Scans and the arg-reductions keep the
// pinned orders: loops are only interchanged where every output still sees its
// inputs in the same order. Reductions: emit_reduce.cpp; mma: emit_mma.cpp.
#include <algorithm>

#include "targets/cpu/emit_expr.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

namespace {

// x without an outermost kiln_cpu::c32(...): for operands of functions whose NaN
// result is canonical whatever the NaN they are given (exp32_fast), where making
// the operand's NaN canonical first costs a compare and a blend an element.
std::string without_nan_canonicalisation(std::string x) {
    // Parentheses around the whole of x (a fused value's expression) first.
    while (x.size() >= 2 && x.front() == '(' && x.back() == ')') {
        int depth = 0;
        std::size_t close = 0;
        for (std::size_t i = 0; i < x.size() && !close; ++i)
            if ((depth += x[i] == '(' ? 1 : x[i] == ')' ? -1 : 0) == 0) close = i;
        if (close != x.size() - 1) break;
        x = x.substr(1, x.size() - 2);
    }
    const std::string head = "kiln_cpu::c32(";
    if (x.rfind(head, 0) != 0 || x.back() != ')') return x;
    int depth = 0;
    for (std::size_t i = head.size() - 1; i < x.size(); ++i) {
        depth += x[i] == '(' ? 1 : x[i] == ')' ? -1 : 0;
        if (depth == 0) return i == x.size() - 1 ? x.substr(head.size(), x.size() - head.size() - 1) : x;  // the call is all of x
    }
    return x;
}

}  // namespace

std::string Emitter::math(OpCode op, Kind k, const std::string& x) {
    // Precision standard: the target's own f32 exp (within 2 ulp, docs/semantics.md);
    // f16 and bf16 values are exact in float, and their exp is rounded once more.
    if (op == OpCode::exp && !opts_.exact) {
        if (k == Kind::F32) return "kiln_cpu::exp32_fast(" + without_nan_canonicalisation(x) + ")";
        if (k == Kind::F16 || k == Kind::BF16) return round_float_to(k, "kiln_cpu::exp32_fast((float)" + paren(x) + ")");
    }
    if (op == OpCode::exp && k == Kind::F32 && !math_flag_.empty()) {
        math_flag_used_ = true;
        return "kiln_cpu::exp32(" + x + ", " + math_flag_ + ")";
    }
    return round_to(k, math_fn(op) + "(" + widen(k, x) + ")");
}

// Element e of an elementwise op (or of iota, full, or a fused broadcast).
std::string Emitter::element_expr(const Node& n, const Index& e) {
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
            if (n.op == OpCode::iota) return "(long long)" + paren(e.linear);
            break;
        case ir::OpCategory::shape:
            if (n.op == OpCode::full) return at(n.operands[0], "0");
            if (n.op == OpCode::broadcast) return at(n.operands[0], broadcast_source(n, e));
            break;
        case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan: case ir::OpCategory::contraction:
        case ir::OpCategory::movement: case ir::OpCategory::sort: case ir::OpCategory::memory: case ir::OpCategory::control: break;
    }
    internal_fail("cpu emitter: '" + std::string(detail::op_name(n.op)) + "' has no element expression");
}

// A broadcast's operand element for result element e: the result's coordinates
// along the operand's dims (dim_map), 0 along the operand's dims of extent 1.
// A broadcast that only inserts dims (as many elements, dims in order) keeps
// the linear index.
Index Emitter::broadcast_source(const Node& n, const Index& e) const {
    const Node* x = n.operands[0];
    if (x->type.count() == 1) return Index("0");
    const auto xe = extents_of(x->type.dims);
    const auto map = ir::dim_map(n);
    if (inserts_dims_only(n)) {
        if (e.coords.empty() || e.extents != extents_of(n.type.dims)) return Index(e.linear);
        std::vector<std::string> c;
        for (std::size_t d = 0; d < xe.size(); ++d) c.push_back(xe[d] == 1 ? "0" : e.coords[static_cast<std::size_t>(map[d])]);
        return Index(e.linear, c, xe);
    }
    const auto out = e.coords_along(extents_of(n.type.dims));
    std::vector<std::string> c;
    for (std::size_t d = 0; d < xe.size(); ++d) c.push_back(xe[d] == 1 ? "0" : out[static_cast<std::size_t>(map[d])]);
    return Index(linear(c, ir::strides_of(x->type.dims)), c, xe);
}

bool Emitter::inserts_dims_only(const Node& n) {
    if (n.op != OpCode::broadcast || n.operands[0]->type.count() != n.type.count()) return false;
    const auto map = ir::dim_map(n);
    const auto& xd = n.operands[0]->type.dims;
    std::int64_t last = -1;
    for (std::size_t d = 0; d < xd.size(); ++d) {
        if (xd[d].extent == 1) continue;
        if (map[d] <= last) return false;
        last = map[d];
    }
    return true;
}

bool Emitter::reads_by_coords(const Node& n) const {
    if (n.op == OpCode::broadcast && n.operands[0]->type.count() > 1 && !inserts_dims_only(n)) return true;
    for (const Node* o : n.operands) {
        auto it = storage_.find(o);
        if (it == storage_.end() || it->second.count == 1) continue;
        const Storage& s = it->second;
        if (!s.strides.empty() || (s.fused && reads_by_coords(*s.fused))) return true;
    }
    return false;
}

void Emitter::emit_op(const Node& n) {
    const bool fused = fusible_.count(&n) != 0;
    const bool spread = n.op == OpCode::broadcast && n.operands[0]->type.count() > 1;
    const char* how = !fused ? "" : spread ? " (read in place by its consumers)" : " (fused into its use)";
    if (fused && spread)
        note(n, "read in place by its consumers through an index map, not copied");
    else if (fused)
        note(n, copies_only(n) ? "evaluated where each consumer reads it" : "fused into its consumer's loop");
    if (n.op == OpCode::cast && n.type.kind == Kind::F32 && (n.operands[0]->type.kind == Kind::F16 || n.operands[0]->type.kind == Kind::BF16))
        note(n, "exact widening, branch-free");
    if (n.op == OpCode::cast && n.operands[0]->type.kind == Kind::F32 && (n.type.kind == Kind::F16 || n.type.kind == Kind::BF16))
        note(n, "rounded once in float arithmetic, branch-free");
    line("// %" + id(&n) + " = " + std::string(detail::op_name(n.op)) + " : " + ir::print_type(p_, n.type) + how);
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
        case ir::OpCategory::sort: {
            // topk values and indices of one line come from one selection (find_topk_twins).
            auto twin = topk_twin_.find(&n);
            if (storage_.count(&n)) return line("// selected with %" + id(twin->second));
            define(n);
            if (twin != topk_twin_.end()) define(*twin->second);
            open("");
            emit_sort(n);
            return close();
        }
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
    const ir::AffineSource src = ir::relayout_source(n);
    loop_nest(extents_of(od), "i", [&](const std::vector<std::string>& vars) {
        line(at(&n, linear(vars, ir::strides_of(od))) + " = " + at(x, linear(vars, src.coef, src.base)) + ";");
    });
}


// Inclusive scan along one dim, left to right; vectorised across lines when the
// scanned dim is not the innermost. Along the innermost dim, lines of 16 and
// more run in vector lanes (prelude scan_lanes) where no result can tell the
// order: integer scans (sums wrap), max and min (a line holding a NaN is
// scanned again in order), and f32/f64 sums in precision standard, which may
// reassociate them. Otherwise in order, an f32 sum keeping only the addition on
// its chain (a NaN stays a NaN; it is made canonical as it is written).
void Emitter::emit_scan(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    const Kind k = n.type.kind;
    auto xs = ir::strides_of(xd);
    std::vector<std::size_t> others;
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (d != axis) others.push_back(d);
    const std::int64_t length = xd[axis].extent;
    const std::string L = std::to_string(length), step = std::to_string(xs[axis]);
    if (axis == xd.size() - 1) {
        const bool integer = k == Kind::I8 || k == Kind::I32 || k == Kind::I64, sum = n.op == OpCode::scan_add;
        const bool lanes = length >= 16 && (integer || (is_float(k) && !sum) || (sum && !opts_.exact && (k == Kind::F32 || k == Kind::F64)));
        const Storage& source = storage(x);
        const bool direct = source.array && !source.fused && source.convert.empty() && source.strides.empty() && source.count > 1;
        if (lanes && !direct) {
            line(ctype(k) + " line[" + L + "];");
            frame_bytes_ += length * ctype_bytes(k);
        }
        auto vars = open_loops(pick(extents_of(xd), others), "k");
        std::string base = linear(vars, pick(xs, others));
        auto element = [&](const std::string& j) {
            std::vector<std::string> c = vars;
            c.insert(c.begin() + static_cast<std::ptrdiff_t>(axis), j);
            return at(x, Index(base + " + " + j, c, extents_of(xd)));
        };
        auto in_order = [&] {
            const bool f32_sum = k == Kind::F32 && sum;
            line(ctype(k) + " acc = " + element("0") + ";");
            line(at(&n, base) + " = " + (f32_sum ? "kiln_cpu::c32(acc)" : "acc") + ";");
            open("for (int j = 1; j < " + L + "; ++j)");
            line("acc = " + (f32_sum ? "acc + " + element("j") : combine(n.op, k, "acc", element("j"))) + ";");
            line(at(&n, base + " + j") + " = " + (f32_sum ? "kiln_cpu::c32(acc)" : "acc") + ";");
            close();
        };
        if (!lanes) note(n, "in order along the line" + std::string(sum && is_float(k) && opts_.exact ? " (exact precision)" : ""));
        else if (integer) note(n, "vector lanes, log-step within a vector, carried between vectors (integer: any order gives the same bits)");
        else if (sum) note(n, "vector lanes, log-step within a vector, carried between vectors (standard precision: reassociated)");
        else note(n, "vector lanes on order keys (any order gives the same element); a line holding a NaN again in order");
        if (!lanes) {
            in_order();
            return close_loops(vars);
        }
        std::string src = "line";
        if (direct) src = "(" + source.name + " + " + paren(base) + ")";
        else line("for (int j = 0; j < " + L + "; ++j) line[j] = " + element("j") + ";");
        const std::string dst = "(" + storage(&n).name + " + " + paren(base) + ")";
        const std::string op = sum ? "kiln_cpu::Add{}" : n.op == OpCode::scan_max ? "kiln_cpu::Max{}" : "kiln_cpu::Min{}";
        if (integer) {
            line("kiln_cpu::scan_int_lanes(" + src + ", " + dst + ", " + L + ", " + op + ");");
        } else if (sum) {
            line("kiln_cpu::scan_add_lanes(" + src + ", " + dst + ", " + L + ");");
        } else {
            open("if (!kiln_cpu::scan_float_lanes(" + src + ", " + dst + ", " + L + ", " + op + "))");
            in_order();
            close();
        }
        return close_loops(vars);
    }
    auto vars = open_loops(pick(extents_of(xd), others), "k");
    std::string base = linear(vars, pick(xs, others));
    auto x_at = [&](const std::string& offset, const std::string& j) {
        std::vector<std::string> c = vars;
        c.insert(c.begin() + static_cast<std::ptrdiff_t>(axis), j);
        return at(x, Index(offset, c, extents_of(xd)));
    };
    line(at(&n, base) + " = " + x_at(base, "0") + ";");
    close_loops(vars);
    open("for (int j = 1; j < " + L + "; ++j)");
    vars = open_loops(pick(extents_of(xd), others), "k");
    std::string here = base + " + j * " + step, prev = base + " + (j - 1) * " + step;
    line(at(&n, here) + " = " + combine(n.op, k, at(&n, prev), x_at(here, "j")) + ";");
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

// sort: each line's stable order (prelude sort_line), then its values or
// source indices. topk: the first `count` of that order by selection (prelude
// top_line), values and indices (both when its twin is live).
void Emitter::emit_sort(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    const bool topk = n.op == OpCode::topk_values || n.op == OpCode::topk_indices;
    const std::int64_t L = xd[axis].extent, count = topk ? ir::topk_count(n) : L;
    auto xs = ir::strides_of(xd), os = ir::strides_of(n.type.dims);
    std::vector<std::size_t> others;
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (d != axis) others.push_back(d);
    std::vector<const Node*> results = {&n};
    if (auto twin = topk_twin_.find(&n); twin != topk_twin_.end()) results.push_back(twin->second);
    const std::string Ls = std::to_string(L), Ks = std::to_string(count);
    // A line that lies contiguous in an array of x's kind is read where it is.
    const Storage& xs_storage = storage(x);
    const bool direct = topk && xs[axis] == 1 && xs_storage.array && !xs_storage.fused && xs_storage.convert.empty() && xs_storage.strides.empty() &&
                        xs_storage.count > 1;
    if (!direct) {
        line(ctype(x->type.kind) + " line[" + Ls + "];");
        frame_bytes_ += L * ctype_bytes(x->type.kind);
    }
    line("long long order[" + (topk ? Ks : Ls) + "], scratch[" + Ls + "];");
    frame_bytes_ += ((topk ? count : L) + L) * 8;
    auto vars = open_loops(pick(extents_of(xd), others), "k");
    std::string base = linear(vars, pick(xs, others)), obase = linear(vars, pick(os, others));
    std::string src = "line";
    if (direct) {
        src = "(" + xs_storage.name + " + " + base + ")";
    } else {
        std::vector<std::string> c = vars;
        c.insert(c.begin() + static_cast<std::ptrdiff_t>(axis), "j");
        line("for (int j = 0; j < " + Ls + "; ++j) line[j] = " + at(x, Index(base + " + j * " + std::to_string(xs[axis]), c, extents_of(xd))) + ";");
    }
    if (topk) {
        const std::string how = std::string("a selection per line, not a sort: ") + (count <= 8 && x->type.kind != Kind::I64 ? "k vectorised passes over the line's order keys" : "a heap of the k first") +
                                (results.size() > 1 ? "; values and indices together" : "") + (direct ? "; the line read where it lies" : "");
        for (const Node* r : results) note(*r, how);
    }
    if (topk) line("kiln_cpu::top_line(" + src + ", order, " + Ls + ", " + Ks + ", scratch);");
    else line("kiln_cpu::sort_line(line, order, scratch, " + Ls + ", false);");
    for (const Node* r : results) {
        const bool want_index = r->op == OpCode::sort_indices || r->op == OpCode::topk_indices;
        line("for (int j = 0; j < " + Ks + "; ++j) " + at(r, obase + " + j * " + std::to_string(os[axis])) + " = " +
             (want_index ? "order[j]" : src + "[order[j]]") + ";");
    }
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
