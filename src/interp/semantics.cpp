#include "interp/semantics.h"

#include <kiln/detail/kround.h>
#include <kiln/detail/kmath.h>

namespace kiln::ref {

using detail::OpCode;

double round_to(Kind k, double x) {
    switch (k) {
        case Kind::F32: return kiln_rt::round_f32(x);
        case Kind::F16: return kiln_rt::round_f16(x);
        case Kind::BF16: return kiln_rt::round_bf16(x);
        default: return x;
    }
}

std::int64_t wrap_to(Kind k, std::int64_t x) {
    switch (k) {
        case Kind::I8: return kiln_rt::wrap_i8(x);
        case Kind::I32: return kiln_rt::wrap_i32(x);
        case Kind::Bool: return x != 0;
        default: return x;
    }
}

double float_unary(OpCode op, Kind k, double x) {
    double r = 0;
    switch (op) {
        case OpCode::neg: return -x;  // exact in every kind
        case OpCode::abs: return x < 0 || (x == 0 && __builtin_signbit(x)) ? -x : x;
        // The one-operand math functions of math.def.
#define KILN_MATH(op, arity, kiln_fn, device_fn) KILN_MATH_CASE_##arity(op, kiln_fn)
#define KILN_MATH_CASE_1(op, kiln_fn) case OpCode::op: r = kiln_rt::kiln_fn(x); break;
#define KILN_MATH_CASE_2(op, kiln_fn)
#include <kiln/detail/math.def>
#undef KILN_MATH_CASE_2
#undef KILN_MATH_CASE_1
#undef KILN_MATH
        default: internal_fail("float_unary: unexpected op " + std::string(detail::op_name(op)));
    }
    return round_to(k, r);
}

std::int64_t int_unary(OpCode op, Kind k, std::int64_t x) {
    auto ux = static_cast<std::uint64_t>(x);
    switch (op) {
        case OpCode::neg: return wrap_to(k, static_cast<std::int64_t>(0 - ux));
        case OpCode::abs: return wrap_to(k, x < 0 ? static_cast<std::int64_t>(0 - ux) : x);
        case OpCode::logical_not: return k == Kind::Bool ? !x : wrap_to(k, ~x);
        default: internal_fail("int_unary: unexpected op " + std::string(detail::op_name(op)));
    }
}

double float_binary(OpCode op, Kind k, double a, double b) {
    double r = 0;
    switch (op) {
        case OpCode::add: r = a + b; break;
        case OpCode::sub: r = a - b; break;
        case OpCode::mul: r = a * b; break;
        case OpCode::div: r = a / b; break;
        // The two-operand math functions of math.def.
#define KILN_MATH(op, arity, kiln_fn, device_fn) KILN_MATH_CASE_##arity(op, kiln_fn)
#define KILN_MATH_CASE_1(op, kiln_fn)
#define KILN_MATH_CASE_2(op, kiln_fn) case OpCode::op: r = kiln_rt::kiln_fn(a, b); break;
#include <kiln/detail/math.def>
#undef KILN_MATH_CASE_2
#undef KILN_MATH_CASE_1
#undef KILN_MATH
        case OpCode::maximum: return kiln_rt::k_max(a, b);
        case OpCode::minimum: return kiln_rt::k_min(a, b);
        default: internal_fail("float_binary: unexpected op " + std::string(detail::op_name(op)));
    }
    return round_to(k, r);
}

std::int64_t int_binary(OpCode op, Kind k, std::int64_t a, std::int64_t b) {
    auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    switch (op) {
        case OpCode::add: return wrap_to(k, static_cast<std::int64_t>(ua + ub));
        case OpCode::sub: return wrap_to(k, static_cast<std::int64_t>(ua - ub));
        case OpCode::mul: return wrap_to(k, static_cast<std::int64_t>(ua * ub));
        case OpCode::div: return wrap_to(k, kiln_rt::idiv(a, b, int_bits(k)));
        case OpCode::mod: return wrap_to(k, kiln_rt::imod(a, b, int_bits(k)));
        case OpCode::maximum: return a > b ? a : b;
        case OpCode::minimum: return a < b ? a : b;
        case OpCode::logical_and: return a & b;
        case OpCode::logical_or: return a | b;
        case OpCode::logical_xor: return a ^ b;
        default: internal_fail("int_binary: unexpected op " + std::string(detail::op_name(op)));
    }
}

namespace {
// The six comparisons, alike for floats (NaN compares unequal, as IEEE says) and integers.
template <class T> bool compare(OpCode op, T a, T b) {
    switch (op) {
        case OpCode::eq: return a == b;
        case OpCode::ne: return a != b;
        case OpCode::lt: return a < b;
        case OpCode::le: return a <= b;
        case OpCode::gt: return a > b;
        case OpCode::ge: return a >= b;
        default: internal_fail("compare: unexpected op " + std::string(detail::op_name(op)));
    }
}
}  // namespace

bool float_compare(OpCode op, double a, double b) { return compare(op, a, b); }

bool int_compare(OpCode op, std::int64_t a, std::int64_t b) { return compare(op, a, b); }

double cast_to_float(Kind from, double f, std::int64_t i, Kind to) {
    if (is_float(from)) return round_to(to, f);
    if (to == Kind::F32 && (i > (std::int64_t{1} << 53) || i < -(std::int64_t{1} << 53)))
        return static_cast<double>(static_cast<float>(i));  // one rounding, not two, for large integers
    return round_to(to, static_cast<double>(i));
}

std::int64_t cast_to_int(Kind from, double f, std::int64_t i, Kind to) {
    if (to == Kind::Bool) return is_float(from) ? (f != 0) : (i != 0);
    if (is_float(from)) return kiln_rt::f64_to_int_sat(f, int_bits(to));
    return wrap_to(to, i);
}

}  // namespace kiln::ref
