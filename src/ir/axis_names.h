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

}  // namespace kiln::ir
