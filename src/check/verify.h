// The kernel-level verifier: rules that span operations (structure, dominance,
// memory layouts). Per-operation shape and kind rules live in shape_rules.
#pragma once

#include <kiln/kernel.h>

#include "ir/ir.h"

namespace kiln::check {

// Throws kiln::Error for a user error, InternalError for a malformed program.
void verify(const ir::Program& p);

}  // namespace kiln::check
