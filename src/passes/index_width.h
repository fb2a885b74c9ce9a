// Index width: element offsets are 32-bit when every view's reachable span fits,
// otherwise 64-bit (the contract's rule). Decided from the launch's views; part of
// every target's cache key.
#pragma once

#include <vector>

#include <kiln/target.h>

#include "passes/lowered.h"

namespace kiln::passes {

// The largest element offset a view can reach: the sum of (extent - 1) * stride
// (0 for an empty view).
std::int64_t view_span(const detail::Arg& a);
// Some view's span does not fit in a 32-bit offset.
bool needs_64bit_offsets(const std::vector<detail::Arg>& args);

// Sets l.options.index64 from the launch's views (without them, keeps the option).
void index_width(Lowered& l);

}  // namespace kiln::passes
