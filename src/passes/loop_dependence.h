// Which values of a loop's body can be computed ahead of their iteration: those
// that depend only on the loop's own indices, constants and values from outside
// the loop. The pipeline analysis (prefetching a `pipeline` loop's loads) and the
// grid prefetch (issuing the next instance's loads early) ask the same question.
#pragma once

#include <string>
#include <unordered_set>

#include "ir/ir.h"

namespace kiln::passes {

// The nodes defined inside a region (nested ones included) and its arguments.
void collect_inside(const ir::Region& r, std::unordered_set<const ir::Node*>& inside);

// Why v cannot be computed ahead of its iteration of `loop` (whose body's nodes and
// arguments are `inside`): empty when it depends only on the loop's indices,
// constants and values from outside the loop. `ok` caches the values found to be
// computable.
std::string dependence(const ir::Node* v, const ir::Node& loop, const std::unordered_set<const ir::Node*>& inside,
                       std::unordered_set<const ir::Node*>& ok);

}  // namespace kiln::passes
