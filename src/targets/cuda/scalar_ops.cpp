// The contract's elementwise rules (interp/semantics.cpp) as CUDA expressions.
//
// Floats: f16 and bf16 values are held as the float holding their exact value.
// + - * / sqrt are done in float and rounded once more to the narrow kind, which
// equals the f64 operation rounded once (float has >= 2p + 2 bits for p = 11, 8);
// f32 ones are IEEE float operations (correctly rounded: NVRTC runs with
// --prec-div=true --prec-sqrt=true --ftz=false), equal to f64-then-round for the
// same reason. Transcendental functions: exact mode calls kiln's f64 math and
// rounds once to the kind (bit-exact with every engine); standard mode calls
// CUDA's (<= 2 ulp), in float for the narrow kinds.
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {
std::string call(const std::string& f, const std::string& x) { return f + "(" + x + ")"; }
std::string call(const std::string& f, const std::string& a, const std::string& b) { return f + "(" + a + ", " + b + ")"; }
int bits(Kind k) { return k == Kind::I8 ? 8 : k == Kind::I32 ? 32 : 64; }
}  // namespace

std::string round_float(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return call("kc::r16", x);
        case Kind::BF16: return call("kc::rb16", x);
        default: return x;  // f32 (already one float rounding), f64
    }
}

std::string round_double(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F32: return call("kc::d2f32", x);
        case Kind::F16: return call("kc::d2f16", x);
        case Kind::BF16: return call("kc::d2bf16", x);
        default: return x;
    }
}

std::string unary_expr(Emitter& e, OpCode op, Kind k, const std::string& x) {
    if (!is_float(k)) {
        switch (op) {
            case OpCode::neg:
                if (k == Kind::I64) return call("kc::sub64", "0LL", x);
                return k == Kind::I8 ? call("kc::w8", "-(long long)" + x) : call("kc::sub32", "0", x);
            case OpCode::abs:
                if (k == Kind::I64) return "(" + x + " < 0 ? kc::sub64(0LL, " + x + ") : " + x + ")";
                if (k == Kind::I8) return call("kc::w8", "(" + x + " < 0 ? -(long long)" + x + " : (long long)" + x + ")");
                return "(" + x + " < 0 ? kc::sub32(0, " + x + ") : " + x + ")";
            case OpCode::logical_not: return k == Kind::Bool ? "!" + x : "~" + x;  // ~ of an in-range value stays in range
            default: break;
        }
        internal_fail("cuda: integer unary op " + std::string(detail::op_name(op)));
    }
    bool f64 = k == Kind::F64;
    switch (op) {
        case OpCode::neg: return "-" + x;
        case OpCode::abs: return call(f64 ? "fabs" : "fabsf", x);
        case OpCode::sqrt: return f64 ? call("__dsqrt_rn", x) : round_float(k, call("__fsqrt_rn", x));
        default: break;
    }
    const char* kiln_fn = nullptr;
    const char* cuda_fn = nullptr;
    switch (op) {
        case OpCode::exp: kiln_fn = "kiln_rt::k_exp", cuda_fn = "exp"; break;
        case OpCode::log: kiln_fn = "kiln_rt::k_log", cuda_fn = "log"; break;
        case OpCode::rsqrt: kiln_fn = "kiln_rt::k_rsqrt", cuda_fn = "rsqrt"; break;
        case OpCode::tanh: kiln_fn = "kiln_rt::k_tanh", cuda_fn = "tanh"; break;
        case OpCode::erf: kiln_fn = "kiln_rt::k_erf", cuda_fn = "erf"; break;
        case OpCode::sin: kiln_fn = "kiln_rt::k_sin", cuda_fn = "sin"; break;
        case OpCode::cos: kiln_fn = "kiln_rt::k_cos", cuda_fn = "cos"; break;
        default: internal_fail("cuda: float unary op " + std::string(detail::op_name(op)));
    }
    if (e.exact()) {
        e.use_math();
        return round_double(k, call(kiln_fn, "(double)" + x));
    }
    if (f64) return call(cuda_fn, x);
    return round_float(k, call(std::string(cuda_fn) + "f", x));
}

std::string binary_expr(Emitter& e, OpCode op, Kind k, const std::string& a, const std::string& b) {
    if (is_float(k)) {
        std::string sym;
        switch (op) {
            case OpCode::add: sym = " + "; break;
            case OpCode::sub: sym = " - "; break;
            case OpCode::mul: sym = " * "; break;
            case OpCode::div: sym = " / "; break;
            case OpCode::maximum: return call("kc::kmax", a, b);
            case OpCode::minimum: return call("kc::kmin", a, b);
            case OpCode::pow:
                if (e.exact()) {
                    e.use_math();
                    return round_double(k, call("kiln_rt::k_pow", "(double)" + a, "(double)" + b));
                }
                return k == Kind::F64 ? call("pow", a, b) : round_float(k, call("powf", a, b));
            default: internal_fail("cuda: float binary op " + std::string(detail::op_name(op)));
        }
        return round_float(k, "(" + a + sym + b + ")");
    }
    switch (op) {
        case OpCode::maximum: return call("kc::imax", a, b);
        case OpCode::minimum: return call("kc::imin", a, b);
        case OpCode::logical_and: return "(" + a + " & " + b + ")";
        case OpCode::logical_or: return "(" + a + " | " + b + ")";
        case OpCode::logical_xor: return "(" + a + " ^ " + b + ")";
        case OpCode::div:
        case OpCode::mod: {
            std::string f = op == OpCode::div ? "kiln_rt::idiv" : "kiln_rt::imod";
            std::string r = f + "((long long)" + a + ", (long long)" + b + ", " + std::to_string(bits(k)) + ")";
            return k == Kind::I64 ? r : "(int)" + r;  // already wrapped to the width
        }
        default: break;
    }
    const char* word = op == OpCode::add ? "add" : op == OpCode::sub ? "sub" : op == OpCode::mul ? "mul" : nullptr;
    if (!word) internal_fail("cuda: integer binary op " + std::string(detail::op_name(op)));
    if (k == Kind::I64) return call(std::string("kc::") + word + "64", a, b);
    if (k == Kind::I32) return call(std::string("kc::") + word + "32", a, b);
    const char* sym = op == OpCode::add ? " + " : op == OpCode::sub ? " - " : " * ";
    return call("kc::w8", "(long long)" + a + sym + "(long long)" + b);  // i8: exact in 64 bits, then wrapped
}

std::string compare_expr(OpCode op, const std::string& a, const std::string& b) {
    const char* sym = nullptr;
    switch (op) {
        case OpCode::eq: sym = " == "; break;
        case OpCode::ne: sym = " != "; break;
        case OpCode::lt: sym = " < "; break;
        case OpCode::le: sym = " <= "; break;
        case OpCode::gt: sym = " > "; break;
        case OpCode::ge: sym = " >= "; break;
        default: internal_fail("cuda: comparison " + std::string(detail::op_name(op)));
    }
    return "(" + a + sym + b + ")";
}

std::string cast_expr(Kind from, Kind to, const std::string& x) {
    if (from == to) return x;
    if (to == Kind::Bool) return "(" + x + " != 0)";
    if (from == Kind::Bool) return is_float(to) ? "(" + x + " ? " + literal(to, 1, 1) + " : " + literal(to, 0, 0) + ")"
                                                : "(" + ctype(to) + ")(" + x + " ? 1 : 0)";
    if (is_float(from) && is_float(to)) {
        if (to == Kind::F64) return "(double)" + x;
        if (from == Kind::F64) return round_double(to, x);
        return round_float(to, x);  // between float-held kinds: the value is exact in float
    }
    if (is_float(from)) {  // truncate toward zero, saturate, NaN -> 0
        std::string r = "kiln_rt::f64_to_int_sat((double)" + x + ", " + std::to_string(bits(to)) + ")";
        return to == Kind::I64 ? r : "(int)" + r;
    }
    if (is_float(to)) {
        // One rounding of the integer, as the interpreter does (i64 -> f32 directly;
        // narrower kinds through the exact-or-rounded double, as there).
        if (to == Kind::F64) return "(double)(long long)" + x;
        if (to == Kind::F32) return "__ll2float_rn((long long)" + x + ")";
        return round_double(to, "(double)(long long)" + x);
    }
    if (to == Kind::I64) return "(long long)" + x;
    if (to == Kind::I32) return "(int)" + x;  // wraps: NVCC converts modulo 2^32
    return call("kc::w8", "(long long)" + x);
}

}  // namespace kiln::cu
