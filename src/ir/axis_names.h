// Axis names for messages and the printer: axes are identified by number in the IR,
// and the name a user gave an axis is registered when the axis is made.
#pragma once

#include <string>
#include <vector>

#include <kiln/detail/value.h>

namespace kiln::ir {

void register_axis_name(int id, const std::string& name);
std::string axis_name(int id);                          // "_" for anonymous axes
std::string dims_str(const std::vector<detail::Dim>& dims);  // "2x3" or "8x4 (m, k)"
// For a shape-mismatch message between `a` and `b`: "" or, where two different axes
// among them have the same name (two axis("c", ...) calls, which make two axes), a
// sentence saying so, since "(r, c) vs (r, c)" alone would read as no mismatch.
std::string same_name_note(const std::vector<detail::Dim>& a, const std::vector<detail::Dim>& b);

}  // namespace kiln::ir
