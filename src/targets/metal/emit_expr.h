// How the Metal emitter spells one element of an operation, reproducing
// interp/semantics.cpp exactly on the types msl/kiln_metal.h describes:
// f32 + - * / as float operations; f16 and bf16 ones in float rounded once more
// (kiln_r16, kiln_rbf16); f64 on kf64; math functions through kiln's math on
// kf64, rounded once to the kind; integers wrap at their width through ulong
// arithmetic (signed overflow is undefined in MSL as in C++).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::mtl {

using detail::OpCode;

std::string mtype(Kind k);  // the type a kernel holds a value of kind k in
std::string stype(Kind k);  // the type a view of kind k stores in device memory
std::string from_memory(Kind k, const std::string& m);  // a stored element as a value
std::string to_memory(Kind k, const std::string& v);    // a value as a stored element
std::string paren(const std::string& x);

// An exact literal of kind k in MSL (targets::literal, Metal dialect).
std::string literal(Kind k, double f, std::int64_t i);

std::string unary(OpCode op, Kind k, const std::string& x);  // neg, abs, logical_not, math functions
std::string binary(OpCode op, Kind k, const std::string& a, const std::string& b);
std::string compare(OpCode op, const std::string& a, const std::string& b);
std::string cast(Kind from, Kind to, const std::string& x);
// round(product of a and b) in an accumulator of kind k, and the accumulation step
// acc + p (mma): the interpreter's round_to(k, a * b) and round_to(k, acc + p).
std::string mma_product(Kind k, Kind a_kind, const std::string& a, const std::string& b);
std::string mma_step(Kind k, const std::string& acc, const std::string& p);

// "i0 * 8 + i1 + 3", skipping zero coefficients.
std::string linear(const std::vector<std::string>& vars, const std::vector<std::int64_t>& coefs, std::int64_t base = 0);
// The row-major coordinate d of element `e` of a tile of these dims.
std::string coordinate(const std::string& e, const std::vector<ir::Dim>& dims, std::size_t d);

}  // namespace kiln::mtl
