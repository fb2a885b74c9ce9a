// Tile operations as C++ loop nests, each reproducing interp/eval.cpp and
// interp/semantics.cpp exactly. Floats: f64 natively; f32 natively in float (the
// correctly rounded f32 operation) with NaN made canonical as round_f32 does;
// f16/bf16 in f64 rounded once; math through kiln_rt in f64, rounded once.
// Integers: two's-complement wrap at the kind's width (C++20 conversions are
// modular). Reductions, scans and mma keep the pinned orders: loops are only
// interchanged where every output still sees its inputs in the same order.
#include <algorithm>

#include "interp/eval.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

namespace {

int int_bits(Kind k) { return k == Kind::I8 ? 8 : k == Kind::I32 ? 32 : 64; }

// The unsigned type of an integer kind's width, for wrapping arithmetic.
std::string utype(Kind k) { return k == Kind::I8 ? "unsigned char" : k == Kind::I32 ? "unsigned" : "unsigned long long"; }

std::string paren(const std::string& x) { return "(" + x + ")"; }

// An f64 result rounded once to kind k.
std::string round_to(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F32: return "kiln_cpu::r32(" + x + ")";
        case Kind::F16: return "kiln_cpu::r16(" + x + ")";
        case Kind::BF16: return "kiln_cpu::rbf16(" + x + ")";
        default: return x;
    }
}
std::string widen(Kind k, const std::string& x) { return k == Kind::F32 ? "(double)" + paren(x) : x; }

std::string math_fn(OpCode op) {
    switch (op) {
        case OpCode::exp: return "kiln_rt::k_exp";
        case OpCode::log: return "kiln_rt::k_log";
        case OpCode::sqrt: return "kiln_rt::k_sqrt";
        case OpCode::rsqrt: return "kiln_rt::k_rsqrt";
        case OpCode::tanh: return "kiln_rt::k_tanh";
        case OpCode::erf: return "kiln_rt::k_erf";
        case OpCode::sin: return "kiln_rt::k_sin";
        case OpCode::cos: return "kiln_rt::k_cos";
        default: internal_fail("cpu emitter: not a math op");
    }
}

std::string unary(OpCode op, Kind k, const std::string& x) {
    const std::string T = ctype(k);
    if (is_float(k)) {
        if (op == OpCode::neg) return "-" + paren(x);  // exact in every kind
        if (op == OpCode::abs) return "kiln_cpu::abs_float(" + x + ")";
        return round_to(k, math_fn(op) + "(" + widen(k, x) + ")");
    }
    const std::string negated = "(" + T + ")(0ULL - (unsigned long long)" + paren(x) + ")";
    switch (op) {
        case OpCode::neg: return negated;
        case OpCode::abs: return k == Kind::Bool ? x : paren(paren(x) + " < 0 ? " + negated + " : " + paren(x));
        case OpCode::logical_not: return k == Kind::Bool ? "(unsigned char)!" + paren(x) : "(" + T + ")~" + paren(x);
        default: internal_fail("cpu emitter: unexpected integer unary op " + std::string(detail::op_name(op)));
    }
}

std::string binary(OpCode op, Kind k, const std::string& a, const std::string& b) {
    const std::string T = ctype(k);
    auto infix = [&](const char* o) { return paren(a) + " " + o + " " + paren(b); };
    if (is_float(k)) {
        const char* o = op == OpCode::add ? "+" : op == OpCode::sub ? "-" : op == OpCode::mul ? "*" : op == OpCode::div ? "/" : nullptr;
        if (o && k == Kind::F32) return "kiln_cpu::c32(" + infix(o) + ")";
        if (o) return round_to(k, paren(infix(o)));
        switch (op) {
            case OpCode::pow: return round_to(k, "kiln_rt::k_pow(" + widen(k, a) + ", " + widen(k, b) + ")");
            // k_max/k_min return one of their operands (or their NaN sum), never a rounded value.
            case OpCode::maximum:
            case OpCode::minimum: {
                std::string call = std::string(op == OpCode::maximum ? "kiln_rt::k_max(" : "kiln_rt::k_min(") + widen(k, a) + ", " + widen(k, b) + ")";
                return k == Kind::F32 ? "(float)" + call : call;
            }
            default: internal_fail("cpu emitter: unexpected float binary op " + std::string(detail::op_name(op)));
        }
    }
    const std::string U = utype(k);
    auto wrapped = [&](const char* o) { return "(" + T + ")((" + U + ")" + paren(a) + " " + o + " (" + U + ")" + paren(b) + ")"; };
    switch (op) {
        case OpCode::add: return wrapped("+");
        case OpCode::sub: return wrapped("-");
        case OpCode::mul: return wrapped("*");
        case OpCode::div: return "(" + T + ")kiln_rt::idiv(" + a + ", " + b + ", " + std::to_string(int_bits(k)) + ")";
        case OpCode::mod: return "(" + T + ")kiln_rt::imod(" + a + ", " + b + ", " + std::to_string(int_bits(k)) + ")";
        case OpCode::maximum: return paren(infix(">") + " ? " + paren(a) + " : " + paren(b));
        case OpCode::minimum: return paren(infix("<") + " ? " + paren(a) + " : " + paren(b));
        case OpCode::logical_and: return "(" + T + ")" + paren(infix("&"));
        case OpCode::logical_or: return "(" + T + ")" + paren(infix("|"));
        case OpCode::logical_xor: return "(" + T + ")" + paren(infix("^"));
        default: internal_fail("cpu emitter: unexpected integer binary op " + std::string(detail::op_name(op)));
    }
}

std::string compare(OpCode op, const std::string& a, const std::string& b) {
    const char* o = op == OpCode::eq ? "==" : op == OpCode::ne ? "!=" : op == OpCode::lt ? "<" : op == OpCode::le ? "<=" : op == OpCode::gt ? ">" : ">=";
    return "(unsigned char)(" + paren(a) + " " + o + " " + paren(b) + ")";
}

// interp/semantics.cpp cast_to_float / cast_to_int.
std::string cast(Kind from, Kind to, const std::string& x) {
    const std::string T = ctype(to);
    if (to == Kind::Bool) return "(unsigned char)(" + paren(x) + " != 0)";
    if (is_float(from) && !is_float(to)) return "(" + T + ")kiln_rt::f64_to_int_sat((double)" + paren(x) + ", " + std::to_string(int_bits(to)) + ")";
    if (!is_float(to)) return "(" + T + ")" + paren(x);
    // To a float kind. An integer converts to f32 in one rounding (never via a
    // rounded double); every other source is exact in double, rounded once.
    if (to == Kind::F32 && !is_float(from)) return "(float)" + paren(x);
    return round_to(to, "(double)" + paren(x));
}

// The fold step of reduce_* and scan_*.
std::string combine(OpCode op, Kind k, const std::string& acc, const std::string& x) {
    OpCode c = (op == OpCode::reduce_add || op == OpCode::scan_add) ? OpCode::add
             : (op == OpCode::reduce_max || op == OpCode::scan_max) ? OpCode::maximum : OpCode::minimum;
    return binary(c, k, acc, x);
}

// "i0 * 8 + i1 + 3", skipping zero coefficients.
std::string linear(const std::vector<std::string>& vars, const std::vector<std::int64_t>& coefs, std::int64_t base = 0) {
    std::string s;
    for (std::size_t k = 0; k < vars.size(); ++k) {
        if (coefs[k] == 0) continue;
        s += (s.empty() ? "" : " + ") + (coefs[k] == 1 ? vars[k] : vars[k] + " * " + std::to_string(coefs[k]));
    }
    if (base != 0 || s.empty()) s += (s.empty() ? "" : " + ") + std::to_string(base);
    return s;
}

template <class T> std::vector<T> pick(const std::vector<T>& v, const std::vector<std::size_t>& at) {
    std::vector<T> r;
    for (auto k : at) r.push_back(v[k]);
    return r;
}

std::vector<std::int64_t> extents_of(const std::vector<ir::Dim>& dims) {
    std::vector<std::int64_t> e;
    for (auto& d : dims) e.push_back(d.extent);
    return e;
}

}  // namespace

void Emitter::emit_op(const Node& n) {
    line("// %" + id(&n) + " = " + std::string(detail::op_name(n.op)) + " : " + ir::print_type(p_, n.type));
    const Kind k = n.type.kind;
    auto operand = [&](std::size_t i) { return n.operands[i]; };
    switch (n.op) {
        case OpCode::iota: elementwise(n, [](const std::string& e) { return "(long long)" + e; }); break;
        case OpCode::full: elementwise(n, [&](const std::string&) { return at(operand(0), "0"); }); break;
        case OpCode::neg: case OpCode::abs: case OpCode::logical_not: case OpCode::exp: case OpCode::log: case OpCode::sqrt:
        case OpCode::rsqrt: case OpCode::tanh: case OpCode::erf: case OpCode::sin: case OpCode::cos:
            elementwise(n, [&](const std::string& e) { return unary(n.op, k, at(operand(0), e)); });
            break;
        case OpCode::cast:
            elementwise(n, [&](const std::string& e) { return cast(operand(0)->type.kind, k, at(operand(0), e)); });
            break;
        case OpCode::add: case OpCode::sub: case OpCode::mul: case OpCode::div: case OpCode::mod: case OpCode::pow:
        case OpCode::maximum: case OpCode::minimum: case OpCode::logical_and: case OpCode::logical_or: case OpCode::logical_xor:
            elementwise(n, [&](const std::string& e) { return binary(n.op, k, at(operand(0), e), at(operand(1), e)); });
            break;
        case OpCode::eq: case OpCode::ne: case OpCode::lt: case OpCode::le: case OpCode::gt: case OpCode::ge:
            elementwise(n, [&](const std::string& e) { return compare(n.op, at(operand(0), e), at(operand(1), e)); });
            break;
        case OpCode::select:
            elementwise(n, [&](const std::string& e) { return paren(at(operand(0), e) + " ? " + at(operand(1), e) + " : " + at(operand(2), e)); });
            break;
        // Values are immutable and row-major, so these are the operand's storage.
        case OpCode::reshape: case OpCode::mem_store: case OpCode::mem_load: alias(n, *operand(0)); break;
        case OpCode::broadcast: case OpCode::permute: case OpCode::slice: in_block(n, &Emitter::emit_relayout); break;
        case OpCode::reduce_add: case OpCode::reduce_max: case OpCode::reduce_min: in_block(n, &Emitter::emit_reduce); break;
        case OpCode::scan_add: case OpCode::scan_max: case OpCode::scan_min: in_block(n, &Emitter::emit_scan); break;
        case OpCode::argmax: case OpCode::argmin: in_block(n, &Emitter::emit_arg_reduce); break;
        case OpCode::sort_values: case OpCode::sort_indices: case OpCode::topk_values: case OpCode::topk_indices:
            in_block(n, &Emitter::emit_sort);
            break;
        case OpCode::mma: in_block(n, &Emitter::emit_mma); break;
        case OpCode::gather: in_block(n, &Emitter::emit_gather); break;
        case OpCode::reindex: in_block(n, &Emitter::emit_reindex); break;
        default: internal_fail("cpu emitter: no lowering for op '" + std::string(detail::op_name(n.op)) + "'");
    }
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
    auto xs = ref::strides_of(xd);
    std::vector<std::int64_t> coef(od.size(), 0);
    std::int64_t base = 0;
    for (std::size_t d = 0; d < od.size(); ++d) {
        if (n.op == OpCode::permute) coef[d] = xs[static_cast<std::size_t>(n.ints[d])];
        if (n.op == OpCode::slice) {
            coef[d] = xs[d];
            base += n.ints[d] * xs[d];
        }
    }
    if (n.op == OpCode::broadcast)
        for (std::size_t d = 0; d < xd.size(); ++d)
            if (xd[d].extent != 1) coef[static_cast<std::size_t>(n.ints[d])] += xs[d];
    auto vars = open_loops(extents_of(od), "i");
    line(at(&n, linear(vars, ref::strides_of(od))) + " = " + at(x, linear(vars, coef, base)) + ";");
    close_loops(vars);
}

// Each output folds its reduced elements left to right in row-major order,
// starting from the first. With the innermost dim kept, the fold steps run as
// the outer loop and the kept elements as the inner one: the same order per
// output, vectorised across outputs.
void Emitter::emit_reduce(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const Kind k = n.type.kind;
    auto xs = ref::strides_of(xd);
    std::vector<std::size_t> kept, red;
    for (std::size_t d = 0; d < xd.size(); ++d)
        (std::find(n.ints.begin(), n.ints.end(), static_cast<std::int64_t>(d)) != n.ints.end() ? red : kept).push_back(d);
    std::vector<ir::Dim> red_dims;
    for (auto d : red) red_dims.push_back(xd[d]);
    std::int64_t count = 1;
    for (auto& d : red_dims) count *= d.extent;
    // Offset in x of reduced position r (row-major over the reduced dims).
    auto red_offset = [&](const std::string& r) {
        bool suffix = red.back() == xd.size() - 1 && red.back() - red.front() + 1 == red.size();
        if (suffix) return r;
        if (red.size() == 1) return r + " * " + std::to_string(xs[red[0]]);
        auto rs = ref::strides_of(red_dims);
        std::string s;
        for (std::size_t j = 0; j < red.size(); ++j)
            s += (j ? " + " : "") + paren(r + " / " + std::to_string(rs[j]) + " % " + std::to_string(red_dims[j].extent)) + " * " + std::to_string(xs[red[j]]);
        return paren(s);
    };
    auto kept_extents = pick(extents_of(xd), kept);
    auto os = ref::strides_of(pick(xd, kept));
    const std::string T = ctype(k);
    if (kept.empty() || kept.back() != xd.size() - 1) {
        auto vars = open_loops(kept_extents, "k");
        std::string base = linear(vars, pick(xs, kept));
        line(T + " acc = " + at(x, base) + ";");
        line("for (int r = 1; r < " + std::to_string(count) + "; ++r) acc = " + combine(n.op, k, "acc", at(x, base + " + " + red_offset("r"))) + ";");
        line(at(&n, linear(vars, os)) + " = acc;");
        close_loops(vars);
        return;
    }
    auto vars = open_loops(kept_extents, "k");
    std::string base = linear(vars, pick(xs, kept)), o = at(&n, linear(vars, os));
    line(o + " = " + at(x, base) + ";");
    close_loops(vars);
    open("for (int r = 1; r < " + std::to_string(count) + "; ++r)");
    vars = open_loops(kept_extents, "k");
    line(o + " = " + combine(n.op, k, o, at(x, base + " + " + red_offset("r"))) + ";");
    close_loops(vars);
    close();
}

// Inclusive scan along one dim, left to right; vectorised across lines when the
// scanned dim is not the innermost.
void Emitter::emit_scan(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(n.i);
    const Kind k = n.type.kind;
    auto xs = ref::strides_of(xd);
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
    const auto axis = static_cast<std::size_t>(n.i);
    auto xs = ref::strides_of(xd);
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
    line(at(&n, linear(vars, ref::strides_of(n.type.dims))) + " = best;");
    close_loops(vars);
}

// sort / topk: each line's stable order (prelude sort_line), then the first
// `count` values or source indices.
void Emitter::emit_sort(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(n.i);
    const bool topk = n.op == OpCode::topk_values || n.op == OpCode::topk_indices;
    const bool want_index = n.op == OpCode::sort_indices || n.op == OpCode::topk_indices;
    const std::int64_t L = xd[axis].extent, count = topk ? n.j : L;
    auto xs = ref::strides_of(xd), os = ref::strides_of(n.type.dims);
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

// out[o] = acc[o]; then for each contraction point in row-major order,
// out[o] = round(out[o] + round(a * b)). Loop order: outer output dims, the
// contraction points, then the innermost output dim, so each output sees the
// contraction in order while the inner loop vectorises across outputs.
void Emitter::emit_mma(const Node& n) {
    const Node *a = n.operands[0], *b = n.operands[1], *acc = n.operands[2];
    const auto& m = n.ints;
    const auto n_out = static_cast<std::size_t>(m[0]);
    const auto n_con = static_cast<std::size_t>(m[1 + 2 * n_out]);
    const Kind k = n.type.kind, in = a->type.kind;
    auto as = ref::strides_of(a->type.dims), bs = ref::strides_of(b->type.dims), os = ref::strides_of(n.type.dims);
    const Storage& out_s = storage(&n);
    const std::string out = out_s.name;
    if (out_s.array) line("for (int e = 0; e < " + std::to_string(out_s.count) + "; ++e) " + out + "[e] = " + at(acc, "e") + ";");
    else line(out + " = " + at(acc, "0") + ";");
    // f16/bf16 products are exact in float, so f16|bf16 -> f32 runs in float.
    std::string A = storage(a).name, B = storage(b).name;
    bool a_array = storage(a).array, b_array = storage(b).array;
    if (k == Kind::F32 && in != Kind::F32) {
        for (auto [src, name] : {std::pair{a, &A}, std::pair{b, &B}}) {
            *name = out + (src == a ? "_a" : "_b");
            line("alignas(64) float " + *name + "[" + std::to_string(src->type.count()) + "];");
            line("for (int e = 0; e < " + std::to_string(src->type.count()) + "; ++e) " + *name + "[e] = (float)" + at(src, "e") + ";");
            frame_bytes_ += src->type.count() * 4;
        }
        a_array = b_array = true;
    }
    std::vector<std::int64_t> out_ext, con_ext;
    for (auto& d : n.type.dims) out_ext.push_back(d.extent);
    for (std::size_t c = 0; c < n_con; ++c) con_ext.push_back(a->type.dims[static_cast<std::size_t>(m[2 + 2 * n_out + 2 * c])].extent);
    std::vector<std::string> out_vars, con_vars;
    for (std::size_t d = 0; d < n_out; ++d) out_vars.push_back("o" + std::to_string(d));
    for (std::size_t c = 0; c < n_con; ++c) con_vars.push_back("c" + std::to_string(c));
    // Element offsets into a and b as linear forms over out_vars ++ con_vars.
    std::vector<std::string> all = out_vars;
    all.insert(all.end(), con_vars.begin(), con_vars.end());
    std::vector<std::int64_t> ac(all.size(), 0), bc(all.size(), 0);
    for (std::size_t d = 0; d < n_out; ++d) {
        if (m[1 + 2 * d] >= 0) ac[d] = as[static_cast<std::size_t>(m[1 + 2 * d])];
        if (m[2 + 2 * d] >= 0) bc[d] = bs[static_cast<std::size_t>(m[2 + 2 * d])];
    }
    for (std::size_t c = 0; c < n_con; ++c) {
        ac[n_out + c] = as[static_cast<std::size_t>(m[2 + 2 * n_out + 2 * c])];
        bc[n_out + c] = bs[static_cast<std::size_t>(m[3 + 2 * n_out + 2 * c])];
    }
    auto open_for = [&](const std::string& v, std::int64_t e) { open("for (int " + v + " = 0; " + v + " < " + std::to_string(e) + "; ++" + v + ")"); };
    std::size_t outer = n_out == 0 ? 0 : n_out - 1;
    for (std::size_t d = 0; d < outer; ++d) open_for(out_vars[d], out_ext[d]);
    for (std::size_t c = 0; c < n_con; ++c) open_for(con_vars[c], con_ext[c]);
    if (n_out > 0) open_for(out_vars.back(), out_ext.back());
    std::string av = a_array ? A + "[" + linear(all, ac) + "]" : A, bv = b_array ? B + "[" + linear(all, bc) + "]" : B;
    std::string o = out_s.array ? out + "[" + linear(out_vars, os) + "]" : out;
    if (k == Kind::F32 || k == Kind::F64) {
        line(o + " = " + o + " + " + av + " * " + bv + ";");  // two roundings: no FMA (-ffp-contract=off)
    } else if (is_float(k)) {
        line(o + " = " + round_to(k, o + " + " + round_to(k, av + " * " + bv)) + ";");
    } else {
        line(o + " = " + binary(OpCode::add, k, o, binary(OpCode::mul, k, av, bv)) + ";");
    }
    for (std::size_t d = 0; d < outer + n_con + (n_out > 0 ? 1 : 0); ++d) close();
    // A NaN anywhere in an output's chain ends it as NaN; round_f32 would have made it canonical.
    if (k == Kind::F32) {
        if (out_s.array) line("for (int e = 0; e < " + std::to_string(out_s.count) + "; ++e) " + out + "[e] = kiln_cpu::c32(" + out + "[e]);");
        else line(out + " = kiln_cpu::c32(" + out + ");");
    }
}

// out[p] = x[p with dim `axis` := index[p]], 0 when the index is outside.
void Emitter::emit_gather(const Node& n) {
    const Node *x = n.operands[0], *index = n.operands[1];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(n.i);
    auto xs = ref::strides_of(xd);
    std::vector<std::size_t> others;
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (d != axis) others.push_back(d);
    auto vars = open_loops(extents_of(n.type.dims), "i");
    std::string o = linear(vars, ref::strides_of(n.type.dims));
    line("const long long j = " + at(index, o) + ";");
    line(at(&n, o) + " = j >= 0 && j < " + std::to_string(xd[axis].extent) + " ? " +
         at(x, linear(vars, pick(xs, others)) + " + j * " + std::to_string(xs[axis])) + " : (" + ctype(n.type.kind) + ")0;");
    close_loops(vars);
}

// out[p] = x[c0(p), ..., cn(p)], 0 when any coordinate is outside.
void Emitter::emit_reindex(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    auto xs = ref::strides_of(xd);
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
