// The verifier of traced programs: a table of per-op rules (arity, operand kinds
// and dims, attribute ranges) read from ops.def's columns, over a structural walk
// (regions, dominance, the grid); verify.cpp lists the rules. It runs after tracing
// and, with KILN_VERIFY_PASSES set (as the test suite does), after every pass.
// The user-facing checks of single operations live in shape_rules.
#pragma once

#include <kiln/kernel.h>

#include "ir/ir.h"

namespace kiln::check {

// Throws kiln::Error for a user error, InternalError for a malformed program.
void verify(const ir::Program& p);

}  // namespace kiln::check
