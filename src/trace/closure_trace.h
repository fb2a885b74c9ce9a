// Tracing seed 000's closures for a device (run_metal): the closure is called
// once, inside a parallel nest over the launch's instances, with the nest's
// index as its instance id; the host-vector windows it performs (eager.h's
// load_or, load_rows, store_clipped, store_rows) become loads and stores of 1-D
// view parameters, one per vector, and everything else it computes on tiles is
// traced as in any kernel. The result is an ordinary verified program.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::detail {

struct TracedClosure {
    std::shared_ptr<ir::Program> program;
    std::vector<Arg> args;  // the vectors, as views (data, extents, strides)
};

TracedClosure trace_closure(std::int64_t instances, const std::function<void(const Scalar<i64>&)>& f, Loc loc);

}  // namespace kiln::detail
