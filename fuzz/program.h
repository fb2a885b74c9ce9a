// A fuzz program as a kiln kernel. The recipe fixes the parameters, the grid,
// the loop and where each instance's tiles sit in the views; the body between
// the loads and the stores is drawn while the kernel is traced (body_gen.h).
#pragma once

#include <kiln/kiln.h>

#include "fuzz/recipe.h"

namespace kiln::fuzz {

// The kernel is built with kernel()'s own parts: a lambda's parameter list is a
// compile-time type, but a fuzz program's is chosen at run time.
Kernel build_kernel(const Recipe& r);

}  // namespace kiln::fuzz
