// How the cpu emitter spells one element of an operation as a C++ expression,
// reproducing interp/semantics.cpp exactly. Floats: f64 natively; f32 natively in
// float (the correctly rounded f32 operation) with NaN made canonical as
// round_f32 does; f16/bf16 in f64 rounded once; math through kiln_rt in f64,
// rounded once (Emitter::math). Integers: two's-complement wrap at the kind's
// width (C++20 conversions are modular). Plus the index arithmetic the loop
// nests share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::native {

using detail::OpCode;

// The unsigned type of an integer kind's width, for wrapping arithmetic.
std::string utype(Kind k);
std::string paren(const std::string& x);
// An f64 result rounded once to kind k; an f32 value widened to f64.
std::string round_to(Kind k, const std::string& x);
std::string widen(Kind k, const std::string& x);
// An f32 value rounded once to kind k (f32, f16 or bf16), as the tile holds it.
std::string round_float_to(Kind k, const std::string& x);
// The kiln_rt function of a math op (exp, log, ...).
std::string math_fn(OpCode op);

// Element expressions. unary covers neg, abs and logical_not (math functions go
// through Emitter::math); combine is the fold step of reduce_* and scan_*.
std::string unary(OpCode op, Kind k, const std::string& x);
std::string binary(OpCode op, Kind k, const std::string& a, const std::string& b);
std::string compare(OpCode op, const std::string& a, const std::string& b);
std::string cast(Kind from, Kind to, const std::string& x);
std::string combine(OpCode op, Kind k, const std::string& acc, const std::string& x);

// "i0 * 8 + i1 + 3", skipping zero coefficients.
std::string linear(const std::vector<std::string>& vars, const std::vector<std::int64_t>& coefs, std::int64_t base = 0);
template <class T> std::vector<T> pick(const std::vector<T>& v, const std::vector<std::size_t>& at) {
    std::vector<T> r;
    for (auto k : at) r.push_back(v[k]);
    return r;
}
std::vector<std::int64_t> extents_of(const std::vector<ir::Dim>& dims);

}  // namespace kiln::native
