// Shape and kind rules shared by eager evaluation and tracing: one place decides
// what a well-formed operation is and words the diagnostic.
#pragma once

#include <string>
#include <vector>

#include <kiln/detail/frontend.h>

#include "ir/axis_names.h"

namespace kiln::check {

using detail::Dim;
using detail::Type;
using ir::axis_name;
using ir::dims_str;

// Fails unless kind k suits op's operands (ops.def's kinds column), in the user's words.
void operand_kind(detail::OpCode op, Kind k, Loc loc);

[[noreturn]] void shape_mismatch(Loc loc, std::string_view op, const Type& a, const Type& b);

// The dims two operands broadcast to (named axes by identity, anonymous by
// position, scalars to anything); fails with "op: shape mismatch: A vs B".
std::vector<Dim> unify(const Type& a, const Type& b, Loc loc, std::string_view op);
// For broadcasting x to `to`: result position of each of x's dims, or nullopt-like
// failure (empty vector with ok=false).
bool broadcast_map(const std::vector<Dim>& from, const std::vector<Dim>& to, std::vector<std::int64_t>& map);
// Position of an axis (id > 0) or of an anonymous position encoded -(p+1).
int find_axis(const Type& t, int axis, Loc loc, std::string_view op);

// The mma dimension map: attr ints = [n_out, (a, b) per output dim, n_con, (a, b) per contraction].
std::vector<std::int64_t> mma_map(const Type& a, const Type& b, const Type& acc, Loc loc, std::string_view op);


}  // namespace kiln::check
