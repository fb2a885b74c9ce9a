// Element expressions of the cpu emitter (emit_expr.h).
#include "targets/cpu/emit_expr.h"

#include "ir/op_traits.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

std::string utype(Kind k) { return k == Kind::I8 ? "unsigned char" : k == Kind::I32 ? "unsigned" : "unsigned long long"; }

std::string paren(const std::string& x) { return "(" + x + ")"; }

std::string round_to(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F32: return "kiln_cpu::r32(" + x + ")";
        case Kind::F16: return "kiln_cpu::r16(" + x + ")";
        case Kind::BF16: return "kiln_cpu::rbf16(" + x + ")";
        default: return x;
    }
}
std::string round_float_to(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return "(double)kiln_cpu::round_f16_of(" + x + ")";
        case Kind::BF16: return "(double)kiln_cpu::round_bf16_of(" + x + ")";
        default: return "kiln_cpu::c32(" + x + ")";
    }
}
std::string widen(Kind k, const std::string& x) { return k == Kind::F32 ? "(double)" + paren(x) : x; }

std::string math_fn(OpCode op) { return "kiln_rt::" + std::string(ir::traits(op).kiln_fn); }

// Integer and exact float unary ops; math functions go through Emitter::math.
std::string unary(OpCode op, Kind k, const std::string& x) {
    const std::string T = ctype(k);
    if (is_float(k)) {
        if (op == OpCode::neg) return "-" + paren(x);  // exact in every kind
        if (op == OpCode::abs) return "kiln_cpu::abs_float(" + x + ")";
        internal_fail("cpu emitter: a math function outside Emitter::math");
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
        std::string o(ir::infix_operator(op));
        if (!o.empty() && k == Kind::F32) return "kiln_cpu::c32(" + infix(o.c_str()) + ")";
        if (!o.empty()) return round_to(k, paren(infix(o.c_str())));
        if (ir::is_math(op)) return round_to(k, math_fn(op) + "(" + widen(k, a) + ", " + widen(k, b) + ")");
        switch (op) {
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
    return "(unsigned char)(" + paren(a) + " " + std::string(ir::infix_operator(op)) + " " + paren(b) + ")";
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
    // f16/bf16 -> f32 is exact (only a NaN is made canonical); f32 -> f16/bf16
    // rounds the float once, in float arithmetic that vectorises.
    if (to == Kind::F32 && (from == Kind::F16 || from == Kind::BF16)) return "kiln_cpu::c32((float)" + paren(x) + ")";
    if (from == Kind::F32 && (to == Kind::F16 || to == Kind::BF16)) return round_float_to(to, x);
    return round_to(to, "(double)" + paren(x));
}

// The fold step of reduce_* and scan_*.
std::string combine(OpCode op, Kind k, const std::string& acc, const std::string& x) {
    return binary(*ir::combiner_of(op), k, acc, x);
}

std::string linear(const std::vector<std::string>& vars, const std::vector<std::int64_t>& coefs, std::int64_t base) {
    std::string s;
    for (std::size_t k = 0; k < vars.size(); ++k) {
        if (coefs[k] == 0) continue;
        s += (s.empty() ? "" : " + ") + (coefs[k] == 1 ? vars[k] : vars[k] + " * " + std::to_string(coefs[k]));
    }
    if (base != 0 || s.empty()) s += (s.empty() ? "" : " + ") + std::to_string(base);
    return s;
}


std::vector<std::int64_t> extents_of(const std::vector<ir::Dim>& dims) {
    std::vector<std::int64_t> e;
    for (auto& d : dims) e.push_back(d.extent);
    return e;
}

}  // namespace kiln::native
