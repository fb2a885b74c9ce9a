// A metal kernel's launch values: one array of 64-bit words bound after the
// views ([[buffer(views)]]), the same bytes in kiln's shim and in a Mac harness.
//   word 0: the number of program instances (the grid's size);
//   then for each parameter, in order: a view's extents, then its strides (in
//   elements); a scalar's value as the kernel holds it, rounded or wrapped to its
//   kind as the interpreter does (f32, f16, bf16: the float's bits; f64: the
//   double's bits; integers: the value; bool: 0 or 1).
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"

namespace kiln::mtl {

struct LaunchSlots {
    std::vector<int> first;  // per parameter: its first word
    int size = 1;            // words in all
};
LaunchSlots launch_slots(const ir::Program& p);

std::vector<std::int64_t> launch_block(const ir::Program& p, const std::vector<detail::Arg>& args, std::int64_t instances);

// Threadgroups a launch of `instances` dispatches: one per instance (simdgroup
// lowering) or per kThreadsPerGroup instances, at most kMaxGroups (the kernel's
// grid-stride loop takes the rest).
constexpr std::int64_t kMaxGroups = std::int64_t{1} << 20;
std::int64_t dispatch_groups(bool simdgroup, int threads_per_group, std::int64_t instances);

}  // namespace kiln::mtl
