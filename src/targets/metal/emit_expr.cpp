#include "targets/metal/emit_expr.h"

#include "ir/op_traits.h"
#include "targets/common/literals.h"

namespace kiln::mtl {

namespace {

bool in_float(Kind k) { return k == Kind::F32 || k == Kind::F16 || k == Kind::BF16; }

// A float (f32 arithmetic's correctly rounded result) rounded once more to k.
std::string round_float(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return "kiln_r16(" + x + ")";
        case Kind::BF16: return "kiln_rbf16(" + x + ")";
        default: return x;
    }
}

// An f64 result (kf64) rounded once to k (the interpreter's round_to).
std::string round_f64(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F32: return "kiln_r32d(" + x + ")";
        case Kind::F16: return "kiln_r16d(" + x + ")";
        case Kind::BF16: return "kiln_rbf16d(" + x + ")";
        default: return x;
    }
}

std::string widen(Kind k, const std::string& x) { return k == Kind::F64 ? x : "kf64(" + x + ")"; }

// A ulong computation's low bits as an integer kind (two's complement).
std::string wrap(Kind k, const std::string& u) {
    switch (k) {
        case Kind::I8: return "(char)(uchar)(" + u + ")";
        case Kind::I32: return "(int)(uint)(" + u + ")";
        case Kind::Bool: return "((" + u + ") != 0)";
        default: return "(long)(" + u + ")";
    }
}
std::string as_u64(const std::string& x) { return "(ulong)(long)" + paren(x); }

std::string math_call(OpCode op, const std::string& args) { return "kiln_rt::" + std::string(ir::traits(op).kiln_fn) + "(" + args + ")"; }

}  // namespace

std::string paren(const std::string& x) { return "(" + x + ")"; }

std::string mtype(Kind k) {
    switch (k) {
        case Kind::Bool: return "bool";
        case Kind::I8: return "char";
        case Kind::I32: return "int";
        case Kind::I64: return "long";
        case Kind::F16: case Kind::BF16: case Kind::F32: return "float";
        case Kind::F64: return "kf64";
    }
    return "?";
}

std::string stype(Kind k) {
    switch (k) {
        case Kind::Bool: return "uchar";
        case Kind::I8: return "char";
        case Kind::I32: return "int";
        case Kind::I64: return "long";
        case Kind::F16: case Kind::BF16: return "ushort";
        case Kind::F32: return "float";
        case Kind::F64: return "ulong";
    }
    return "?";
}

std::string from_memory(Kind k, const std::string& m) {
    switch (k) {
        case Kind::Bool: return paren(m + " != 0");
        case Kind::F16: return "kiln_f16_value(" + m + ")";
        case Kind::BF16: return "kiln_bf16_value(" + m + ")";
        case Kind::F64: return "kf64_from_bits(" + m + ")";
        default: return m;
    }
}

std::string to_memory(Kind k, const std::string& v) {
    switch (k) {
        case Kind::Bool: return "(uchar)(" + v + " ? 1 : 0)";
        case Kind::F16: return "kiln_f16_bits(" + v + ")";
        case Kind::BF16: return "kiln_bf16_bits(" + v + ")";
        case Kind::F64: return paren(v) + ".bits";
        default: return v;
    }
}

std::string literal(Kind k, double f, std::int64_t i) { return targets::literal(k, f, i, targets::kMetalDialect); }

std::string unary(OpCode op, Kind k, const std::string& x) {
    if (ir::is_math(op)) {
        if (k == Kind::F64) return math_call(op, x);
        return round_f64(k, math_call(op, widen(k, x)));
    }
    if (is_float(k)) {
        if (op == OpCode::neg) return "-" + paren(x);  // exact in every kind
        if (op == OpCode::abs) return (k == Kind::F64 ? "kiln_abs64(" : "kiln_abs(") + x + ")";
        internal_fail("metal emitter: unexpected float unary op " + std::string(detail::op_name(op)));
    }
    switch (op) {
        case OpCode::neg: return wrap(k, "0UL - " + as_u64(x));
        case OpCode::abs: return k == Kind::Bool ? x : paren(paren(x) + " < 0 ? " + wrap(k, "0UL - " + as_u64(x)) + " : " + paren(x));
        case OpCode::logical_not: return k == Kind::Bool ? "!" + paren(x) : "(" + mtype(k) + ")~" + paren(x);
        default: internal_fail("metal emitter: unexpected integer unary op " + std::string(detail::op_name(op)));
    }
}

std::string binary(OpCode op, Kind k, const std::string& a, const std::string& b) {
    auto infix = [&](std::string_view o) { return paren(a) + " " + std::string(o) + " " + paren(b); };
    if (is_float(k)) {
        const std::string_view o = ir::infix_operator(op);
        if (!o.empty()) return k == Kind::F64 ? paren(infix(o)) : round_float(k, paren(infix(o)));
        if (ir::is_math(op)) return k == Kind::F64 ? math_call(op, a + ", " + b) : round_f64(k, math_call(op, widen(k, a) + ", " + widen(k, b)));
        switch (op) {
            // An operand (or the NaN sum), never a rounded value.
            case OpCode::maximum: return k == Kind::F64 ? "kiln_rt::k_max(" + a + ", " + b + ")" : "kiln_max(" + a + ", " + b + ")";
            case OpCode::minimum: return k == Kind::F64 ? "kiln_rt::k_min(" + a + ", " + b + ")" : "kiln_min(" + a + ", " + b + ")";
            default: internal_fail("metal emitter: unexpected float binary op " + std::string(detail::op_name(op)));
        }
    }
    const std::string bits = std::to_string(int_bits(k));
    switch (op) {
        case OpCode::add: return wrap(k, as_u64(a) + " + " + as_u64(b));
        case OpCode::sub: return wrap(k, as_u64(a) + " - " + as_u64(b));
        case OpCode::mul: return wrap(k, as_u64(a) + " * " + as_u64(b));
        case OpCode::div: return wrap(k, "(ulong)kiln_rt::idiv((long)" + paren(a) + ", (long)" + paren(b) + ", " + bits + ")");
        case OpCode::mod: return wrap(k, "(ulong)kiln_rt::imod((long)" + paren(a) + ", (long)" + paren(b) + ", " + bits + ")");
        case OpCode::maximum: return paren(infix(">") + " ? " + paren(a) + " : " + paren(b));
        case OpCode::minimum: return paren(infix("<") + " ? " + paren(a) + " : " + paren(b));
        case OpCode::logical_and: case OpCode::logical_or: case OpCode::logical_xor:
            return k == Kind::Bool ? paren(infix(ir::infix_operator(op)) + " != 0") : "(" + mtype(k) + ")" + paren(infix(ir::infix_operator(op)));
        default: internal_fail("metal emitter: unexpected integer binary op " + std::string(detail::op_name(op)));
    }
}

std::string compare(OpCode op, const std::string& a, const std::string& b) {
    return paren(paren(a) + " " + std::string(ir::infix_operator(op)) + " " + paren(b));
}

// interp/semantics.cpp cast_to_float / cast_to_int.
std::string cast(Kind from, Kind to, const std::string& x) {
    if (to == Kind::Bool) return is_float(from) ? paren(paren(x) + " != " + (from == Kind::F64 ? "kf64(0)" : "0.0f")) : paren(paren(x) + " != 0");
    if (!is_float(to)) {
        const std::string bits = std::to_string(int_bits(to));
        if (from == Kind::F64) return "(" + mtype(to) + ")kiln_rt::f64_to_int_sat(" + x + ", " + bits + ")";
        if (is_float(from)) return "(" + mtype(to) + ")kiln_f32_to_int(" + x + ", " + bits + ")";
        if (from == Kind::Bool) return "(" + mtype(to) + ")" + paren(paren(x) + " ? 1 : 0");
        return wrap(to, as_u64(x));
    }
    // To a float kind.
    if (!is_float(from)) {
        const std::string v = from == Kind::Bool ? "(long)" + paren(paren(x) + " ? 1 : 0") : "(long)" + paren(x);
        if (to == Kind::F32) return "kiln_i64_to_f32(" + v + ")";  // one rounding, never via a rounded double
        return round_f64(to, "kf64(" + v + ")");
    }
    if (from == Kind::F64) return round_f64(to, x);
    if (to == Kind::F64) return "kf64(" + x + ")";  // exact
    return in_float(to) && to != Kind::F32 ? round_float(to, x) : x;  // f16/bf16/f32 values are exact in float
}

std::string mma_product(Kind k, Kind a_kind, const std::string& a, const std::string& b) {
    if (!is_float(k)) return binary(OpCode::mul, k, a, b);
    if (k == Kind::F64) return widen(a_kind, a) + " * " + widen(a_kind, b);  // exact for narrower operands
    if (a_kind == Kind::F64) return round_f64(k, paren(a) + " * " + paren(b));
    // Float operands: the product of two floats rounded once (exact for f16/bf16).
    return round_float(k, paren(paren(a) + " * " + paren(b)));
}

std::string mma_step(Kind k, const std::string& acc, const std::string& p) { return binary(OpCode::add, k, acc, p); }

std::string linear(const std::vector<std::string>& vars, const std::vector<std::int64_t>& coefs, std::int64_t base) {
    std::string s;
    for (std::size_t k = 0; k < vars.size(); ++k) {
        if (coefs[k] == 0) continue;
        s += (s.empty() ? "" : " + ") + (coefs[k] == 1 ? vars[k] : vars[k] + " * " + std::to_string(coefs[k]));
    }
    if (base != 0 || s.empty()) s += (s.empty() ? "" : " + ") + std::to_string(base);
    return s;
}

std::string coordinate(const std::string& e, const std::vector<ir::Dim>& dims, std::size_t d) {
    std::int64_t stride = 1;
    for (std::size_t k = d + 1; k < dims.size(); ++k) stride *= dims[k].extent;
    std::string s = stride == 1 ? paren(e) : paren(e + " / " + std::to_string(stride));
    return d == 0 ? s : paren(s + " % " + std::to_string(dims[d].extent));
}

}  // namespace kiln::mtl
