// Dead-code elimination: marks what the program needs (effects: stores, loads
// that can raise, loops and yields; and everything they read); every target
// emits only that.
#pragma once

#include "passes/lowered.h"

namespace kiln::passes {

void dce(Lowered& l);

}  // namespace kiln::passes
