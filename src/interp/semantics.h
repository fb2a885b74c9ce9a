// The scalar semantics of the contract: rounding to a kind, integer wrapping,
// and the elementwise operations, written once for the interpreter and for eager
// tiles. Emitters reproduce exactly these definitions.
#pragma once

#include <cstdint>

#include <kiln/detail/opcode.h>
#include <kiln/error.h>
#include <kiln/kind.h>
#include <kiln/numeric.h>

namespace kiln::ref {

// A float result rounded once to kind k (f64: unchanged).
double round_to(Kind k, double x);
// An integer result wrapped to kind k's width (bool: x != 0).
std::int64_t wrap_to(Kind k, std::int64_t x);

double float_unary(detail::OpCode op, Kind k, double x);
std::int64_t int_unary(detail::OpCode op, Kind k, std::int64_t x);
double float_binary(detail::OpCode op, Kind k, double a, double b);
std::int64_t int_binary(detail::OpCode op, Kind k, std::int64_t a, std::int64_t b);
bool float_compare(detail::OpCode op, double a, double b);
bool int_compare(detail::OpCode op, std::int64_t a, std::int64_t b);

// cast: one element from kind `from` (as double or int64) to kind `to`.
double cast_to_float(Kind from, double f, std::int64_t i, Kind to);
std::int64_t cast_to_int(Kind from, double f, std::int64_t i, Kind to);

}  // namespace kiln::ref
