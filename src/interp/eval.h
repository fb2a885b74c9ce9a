// Evaluates one Tile IR operation on eager data: the interpreter's definition of
// every op (except memory and structure, which run_kernel handles).
#pragma once

#include <memory>
#include <vector>

#include "ir/ir.h"

namespace kiln::ref {

using DataPtr = std::shared_ptr<const ir::EagerData>;

// n's operands give the operand types; `in` their data, in the same order.
DataPtr eval(const ir::Node& n, const std::vector<const ir::EagerData*>& in);

}  // namespace kiln::ref
