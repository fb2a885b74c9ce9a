// Host-scalar evaluation: the one evaluator of a program's launch-time scalars
// (grid and loop extents, trip counts, tile origins a launch needs) on the host,
// with the interpreter's semantics. Every target asks it; none re-derives it.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <kiln/target.h>

#include "interp/eval.h"
#include "ir/ir.h"

namespace kiln::passes {

// Whether the host can evaluate n before a launch: a scalar computed from
// parameters, view extents and strides and constants only (no memory, no loop
// index, no carried value).
bool host_evaluable(const ir::Node& n);

// Evaluates host-evaluable scalars for one launch's arguments, memoised. Integer
// index arithmetic (extents are usually ceil_div of a view's extent) takes a
// direct path through the interpreter's integer semantics without allocating;
// every other op goes through the interpreter's eval.
class HostScalars {
public:
    explicit HostScalars(const std::vector<detail::Arg>& args) : args_(args) {}

    // An integer scalar; `where` names the op whose value needs it (for errors).
    std::int64_t integer(const ir::Node* n, const ir::Node& where);
    // Any scalar, or nullopt when the host cannot evaluate it.
    std::optional<ref::DataPtr> try_value(const ir::Node* n);

private:
    ref::DataPtr value(const ir::Node* n, const ir::Node& where);

    const std::vector<detail::Arg>& args_;
    // A handful: a linear search beats hashing, and an array on the stack spares a
    // warm launch any allocation.
    static constexpr std::size_t kInline = 32;
    std::pair<const ir::Node*, std::int64_t> ints_[kInline];
    std::vector<std::pair<const ir::Node*, std::int64_t>> more_ints_;
    std::size_t count_ = 0;
    std::unordered_map<const ir::Node*, ref::DataPtr> values_;
};

// The value a scalar parameter holds inside the program: rounded (floats) or
// wrapped (integers) once to its kind, as the interpreter does.
double scalar_param_float(Kind k, double value);
std::int64_t scalar_param_int(Kind k, std::int64_t value);

// The parallel nest's extents for these arguments (empty without a grid; nullopt
// when they depend on something only a launch computes). Fails like the
// interpreter on a negative extent.
std::optional<std::vector<std::int64_t>> grid_extents(const ir::Program& p, const std::vector<detail::Arg>& args);

// The number of program instances for these arguments (1 without a grid): what a
// device target launches. Fails like the interpreter on a negative extent and
// names an overflow of 2^63.
std::int64_t grid_instances(const ir::Program& p, const std::vector<detail::Arg>& args);

}  // namespace kiln::passes
