// The host side of a launch: the width of element offsets, the grid size, and
// the kernel's parameters packed as cuLaunchKernel takes them.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::cu {

// True when some view's reachable span (its largest element offset + 1) does not
// fit in 32 bits; then the kernel computes offsets in 64 bits.
bool needs_64bit_offsets(const std::vector<detail::Arg>& args);

// Instances of the program's parallel nest for these arguments (1 without one),
// evaluated on the host from the same IR the kernel evaluates. Fails like the
// interpreter on a negative extent.
std::int64_t grid_instances(const ir::Program& p, const std::vector<detail::Arg>& args);

// Parameters in the order of kernel_signature(): each value in an 8-byte slot
// (cuLaunchKernel reads each parameter's size from the start of its slot).
struct PackedParams {
    std::vector<std::uint64_t> slots;
    std::vector<void*> pointers;  // into slots, one per kernel parameter
};
PackedParams pack_params(const ir::Program& p, const std::vector<detail::Arg>& args);

}  // namespace kiln::cu
