// The contract's elementwise rules (interp/semantics.cpp) as CUDA expressions.
//
// Floats: f16 and bf16 values are held as the float holding their exact value.
// + - * / sqrt are done in float and rounded once more to the narrow kind, which
// equals the f64 operation rounded once (float has >= 2p + 2 bits for p = 11, 8);
// f32 ones are IEEE float operations (correctly rounded: NVRTC runs with
// --prec-div=true --prec-sqrt=true --ftz=false), equal to f64-then-round for the
// same reason. Transcendental functions: exact mode calls kiln's f64 math and
// rounds once to the kind (bit-exact with every engine); standard mode calls
// CUDA's (<= 2 ulp), in float for the narrow kinds; fast mode computes exp of
// f32 and narrower on the special function unit (prelude: kc::exp_fast).
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {
std::string call(const std::string& f, const std::string& x) { return f + "(" + x + ")"; }
std::string call(const std::string& f, const std::string& a, const std::string& b) { return f + "(" + a + ", " + b + ")"; }

// f32, and f16/bf16 held in float: the kinds whose selects ptxas compiles as
// prelude.cpp's "ptxas and -0.0" says.
bool held_in_float(Kind k) { return k == Kind::F32 || k == Kind::F16 || k == Kind::BF16; }
}  // namespace

// Whether NVVM can know every element of n while compiling: constants and what
// elementwise and shape ops make of them (math included: kiln's functions inline).
// Conservative past a depth, where a chain of folds is unlikely.
bool compile_time_known(const Node& n, int depth) {
    if (depth > 8) return false;
    switch (ir::category(n.op)) {
        case ir::OpCategory::leaf: return n.op == OpCode::constant;
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast: case ir::OpCategory::shape:
            for (const auto& x : n.operands)
                if (!compile_time_known(*x, depth + 1)) return false;
            return true;
        default: return false;
    }
}

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
                return k == Kind::I8 ? call("kc::w8", "-(long long)" + x) : call("kc::neg32", x);  // prelude: "ptxas and negated int32 operands"
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
        case OpCode::neg: return f64 ? "-" + x : call("kc::fneg", x);  // prelude: "ptxas and -0.0"
        case OpCode::abs: return call(f64 ? "fabs" : "kc::fabs_bits", x);  // prelude: "ptxas and |x| against a constant <= 0"
        case OpCode::sqrt: return f64 ? call("__dsqrt_rn", x) : round_float(k, call("__fsqrt_rn", x));
        default: break;
    }
    if (!ir::is_math(op)) internal_fail("cuda: float unary op " + std::string(detail::op_name(op)));
    std::string kiln_fn = "kiln_rt::" + std::string(ir::traits(op).kiln_fn), cuda_fn(ir::traits(op).device_fn);
    if (e.exact()) {
        e.use_math();
        return round_double(k, call(kiln_fn, "(double)" + x));
    }
    if (f64) return call(cuda_fn, x);
    if (e.fast() && op == OpCode::exp) return round_float(k, call("kc::exp_fast", x));
    return round_float(k, call(cuda_fn + "f", x));
}

std::string binary_expr(Emitter& e, OpCode op, Kind k, const std::string& a, const std::string& b) {
    if (is_float(k)) {
        if (op == OpCode::div && held_in_float(k)) {
            // Precision fast: within 2 ulp, no range check and no call (prelude: kc::fdiv_full).
            if (e.fast() && e.options().fast_division) return round_float(k, call("kc::fdiv_full", a, b));
            // Correctly rounded as `/` is, without div.rn.f32's call (prelude: "f32 division").
            if (e.options().inline_division) return round_float(k, call("kc::fdiv", a, b));
        }
        std::string sym(ir::infix_operator(op));
        if (!sym.empty()) return round_float(k, "(" + a + " " + sym + " " + b + ")");
        if (op == OpCode::maximum) return call("kc::kmax", a, b);
        if (op == OpCode::minimum) return call("kc::kmin", a, b);
        if (!ir::is_math(op)) internal_fail("cuda: float binary op " + std::string(detail::op_name(op)));
        if (e.exact()) {
            e.use_math();
            return round_double(k, call("kiln_rt::" + std::string(ir::traits(op).kiln_fn), "(double)" + a, "(double)" + b));
        }
        std::string fn(ir::traits(op).device_fn);
        return k == Kind::F64 ? call(fn, a, b) : round_float(k, call(fn + "f", a, b));
    }
    switch (op) {
        // i8 and i32 are held in ints: prelude, "ptxas and negated int32 operands".
        case OpCode::maximum: return call(k == Kind::I8 || k == Kind::I32 ? "kc::smax32" : "kc::imax", a, b);
        case OpCode::minimum: return call(k == Kind::I8 || k == Kind::I32 ? "kc::smin32" : "kc::imin", a, b);
        case OpCode::logical_and: case OpCode::logical_or: case OpCode::logical_xor:
            return "(" + a + " " + std::string(ir::infix_operator(op)) + " " + b + ")";
        case OpCode::div:
        case OpCode::mod: {
            std::string f = op == OpCode::div ? "kiln_rt::idiv" : "kiln_rt::imod";
            std::string r = f + "((long long)" + a + ", (long long)" + b + ", " + std::to_string(int_bits(k)) + ")";
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
    return "(" + a + " " + std::string(ir::infix_operator(op)) + " " + b + ")";
}

namespace {

// Whether operand `d` of elementwise `n` is one value for a thread's whole run of
// elements (runs lie along the last dimension): a scalar, or a value broadcast
// along the last dimension (softmax's row sum, cross-entropy's label). What is
// computed from it alone NVVM then computes once a run.
bool uniform_along_run(const Node& n, const Node& d) {
    if (d.type.dims.empty()) return true;
    if (d.op != OpCode::broadcast) return false;
    const std::int64_t last = static_cast<std::int64_t>(n.type.dims.size()) - 1;
    for (std::int64_t to : ir::dim_map(d))
        if (to == last) return false;
    return true;
}

// Whether the divisor of float division `n` is one value for a thread's run:
// then kc::fdiv_shared computes its reciprocal once for the run (prelude). A
// divisor known at compile time is left to NVVM, which turns a power of two into
// a multiplication.
bool divisor_shared_along_run(const Node& n) {
    const Node& d = *n.operands[1];
    return !n.type.dims.empty() && !compile_time_known(d) && uniform_along_run(n, d);
}

// The number of elements of the axis whose index `x` is (iota, or iota broadcast:
// every element in [0, n)), else 0.
std::int64_t index_bound(const Node& x) {
    const Node* c = &x;
    while (c->op == OpCode::broadcast) c = c->operands[0];
    return c->op == OpCode::iota && c->type.dims.size() == 1 ? c->type.dims[0].extent : 0;
}

// A compare of i64 values where one side is an index of an axis of fewer than 2^31
// elements and the other an index too or a value shared by the thread's run (the
// cross-entropy's `label == iota(c)`): the same result in 32 bits, the shared value
// clamped once a run (prelude: kc::clamp_to_index). A 64-bit compare is two
// instructions an element on sm_90 and keeps its operands in register pairs.
std::optional<std::string> index_compare(const Node& n, const std::vector<std::string>& x) {
    const Node &a = *n.operands[0], &b = *n.operands[1];
    if (a.type.kind != Kind::I64 || n.type.dims.empty()) return std::nullopt;
    constexpr std::int64_t kIntMax = 2147483647;
    auto fits = [&](std::int64_t bound) { return bound > 0 && bound < kIntMax; };
    auto narrow = [&](const Node& side, std::int64_t own, std::int64_t other, const std::string& text) -> std::optional<std::string> {
        if (fits(own)) return "(int)" + text;
        if (fits(other) && uniform_along_run(n, side)) return call("kc::clamp_to_index", text, std::to_string(other));
        return std::nullopt;
    };
    const std::int64_t na = index_bound(a), nb = index_bound(b);
    auto l = narrow(a, na, nb, x[0]), r = narrow(b, nb, na, x[1]);
    if (!l || !r) return std::nullopt;
    return compare_expr(n.op, *l, *r);
}

}  // namespace

namespace {

// The node n repeats (through full and broadcast).
const Node* repeated(const Node& n) {
    const Node* c = &n;
    while (c->op == OpCode::full || c->op == OpCode::broadcast) c = c->operands[0];
    return c;
}

}  // namespace

std::optional<double> float_constant(const Node& n) {
    const Node* c = repeated(n);
    if (c->op != OpCode::constant || c->type.count() != 1 || !is_float(c->type.kind) || !c->data || c->data->floats.size() != 1) return std::nullopt;
    return c->data->floats[0];
}

namespace {

// The value of an integer constant (through full and broadcast), if n is one.
std::optional<std::int64_t> int_constant(const Node& n) {
    const Node* c = repeated(n);
    if (c->op != OpCode::constant || c->type.count() != 1 || is_float(c->type.kind) || !c->data || c->data->ints.size() != 1) return std::nullopt;
    return c->data->ints[0];
}

// An i32 add or subtract with an operand NVVM knows (prelude: "NVVM and the i32 sign
// bit", "NVVM and i32 sums with a constant"): of INT_MIN, the sign bit flipped in PTX;
// of another constant, or a value NVVM would know only after folding, added in PTX;
// "" for the rest (plain kc::add32 / kc::sub32).
std::string i32_with_known_operand(const Node& n, const std::vector<std::string>& x) {
    if (n.type.kind != Kind::I32 || (n.op != OpCode::add && n.op != OpCode::sub)) return "";
    constexpr std::int64_t kMin = -2147483648LL;
    const auto a = int_constant(*n.operands[0]), b = int_constant(*n.operands[1]);
    if (b == kMin) return "kc::flip_sign32(" + x[0] + ")";  // x + MIN, x - MIN
    if (a == kMin) return n.op == OpCode::add ? "kc::flip_sign32(" + x[1] + ")" : "kc::flip_sign32(kc::sub32(0, " + x[1] + "))";
    if (compile_time_known(*n.operands[0]) || compile_time_known(*n.operands[1]))
        return call(n.op == OpCode::add ? "kc::add32_opaque" : "kc::sub32_opaque", x[0], x[1]);
    return "";
}

}  // namespace

std::string element_expr(Emitter& e, const Node& n, const std::vector<std::string>& x) {
    Kind k = n.type.kind;
    switch (ir::category(n.op)) {
        case ir::OpCategory::unary: return unary_expr(e, n.op, k, x[0]);
        case ir::OpCategory::binary:
            if (std::string known = i32_with_known_operand(n, x); !known.empty()) return known;
            // The same bits as a / b, in fewer instructions a quotient (prelude: "f32 division by a divisor many quotients share").
            if (n.op == OpCode::div && e.options().shared_divisor && held_in_float(k) && divisor_shared_along_run(n))
                return round_float(k, call("kc::fdiv_shared", x[0], x[1]));
            // 2^y as exp2, one special-function op where powf is a long sequence (Triton-style
            // attention writes its exp2 this way): standard, CUDA's exp2f within its 2 ulp;
            // fast, the SFU's ex2.approx.ftz.
            if (n.op == OpCode::pow && !e.exact() && held_in_float(k) && float_constant(*n.operands[0]) == 2.0)
                return round_float(k, call(e.fast() ? "kc::ex2_approx" : "exp2f", x[1]));
            return binary_expr(e, n.op, k, x[0], x[1]);
        case ir::OpCategory::compare:
            if (e.options().index_facts || e.options().narrow_index_compares)
                if (auto narrow = index_compare(n, x)) return *narrow;
            return compare_expr(n.op, x[0], x[1]);
        case ir::OpCategory::select:
            // Arms NVVM knows could become the select of -1.0 and -0.0 ptxas gets wrong (prelude: "ptxas and -0.0").
            if (held_in_float(k) && compile_time_known(*n.operands[1]) && compile_time_known(*n.operands[2]))
                return "kc::select_opaque(" + x[0] + ", " + x[1] + ", " + x[2] + ")";
            return "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")";
        case ir::OpCategory::cast: return cast_expr(n.operands[0]->type.kind, k, x[0]);
        case ir::OpCategory::leaf: case ir::OpCategory::shape: case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction:
        case ir::OpCategory::scan: case ir::OpCategory::contraction: case ir::OpCategory::movement: case ir::OpCategory::sort:
        case ir::OpCategory::memory: case ir::OpCategory::control: break;
    }
    internal_fail("cuda: '" + std::string(detail::op_name(n.op)) + "' is not elementwise");
}

std::string cast_expr(Kind from, Kind to, const std::string& x) {
    if (from == to) return x;
    if (to == Kind::Bool) return "(" + x + " != 0)";
    if (from == Kind::Bool) {
        if (held_in_float(to)) return call("kc::bool_to_float", x);  // not a select NVVM can fold into (prelude: "ptxas and -0.0")
        if (to == Kind::F64) return cast_expr(Kind::I32, to, "(" + x + " ? 1 : 0)");  // not a select either (below)
        return is_float(to) ? "(" + x + " ? " + literal(to, 1, 1) + " : " + literal(to, 0, 0) + ")" : "(" + ctype(to) + ")(" + x + " ? 1 : 0)";
    }
    // Conversions to f64 pass an empty asm: NVVM would fold one of a select of
    // constants into an f64 select of constants (prelude: "ptxas and f64 values built
    // from halves").
    if (is_float(from) && is_float(to)) {
        if (to == Kind::F64) return call("kc::float_to_double", x);
        if (from == Kind::F64) return round_double(to, x);
        return round_float(to, x);  // between float-held kinds: the value is exact in float
    }
    if (is_float(from)) {  // truncate toward zero, saturate, NaN -> 0
        std::string r = "kiln_rt::f64_to_int_sat((double)" + x + ", " + std::to_string(int_bits(to)) + ")";
        return to == Kind::I64 ? r : "(int)" + r;
    }
    if (is_float(to)) {
        // One rounding of the integer, as the interpreter does (i64 -> f32 directly;
        // narrower kinds through the exact-or-rounded double, as there).
        if (to == Kind::F64) return call("kc::int_to_double", "(long long)" + x);
        if (to == Kind::F32) return "__ll2float_rn((long long)" + x + ")";
        return round_double(to, call("kc::int_to_double", "(long long)" + x));
    }
    if (to == Kind::I64) return "(long long)" + x;
    if (to == Kind::I32) return "(int)" + x;  // wraps: NVCC converts modulo 2^32
    return call("kc::w8", "(long long)" + x);
}

}  // namespace kiln::cu
