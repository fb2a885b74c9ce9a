// The host side of a launch: the width of element offsets, the grid size, and
// the kernel's parameters packed as cuLaunchKernel takes them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"
#include "passes/index_width.h"
#include "targets/cuda/driver.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/tensor_map_cache.h"

namespace kiln::cu {

using passes::needs_64bit_offsets;

// Parameters in the order of kernel_signature(): each value in an 8-byte slot
// (cuLaunchKernel reads each parameter's size from the start of its slot).
struct PackedParams {
    std::vector<std::uint64_t> slots;
    std::vector<void*> pointers;  // into slots, one per kernel parameter
};
PackedParams pack_params(const ir::Program& p, const std::vector<detail::Arg>& args);

// A launch of the Hopper GEMM kernel (emit_gemm.h): the tensor maps of A and B,
// then the kernel's own scalars (tile counts, covered rows and columns), then
// pack_params's parameters. Pinned in memory: `pointers` points into it.
struct GemmLaunch {
    TensorMap maps[2];                           // A, B
    PackedParams params;                         // the scalars, then pack_params's slots
    std::vector<void*> pointers;                 // one per kernel parameter
    unsigned ctas = 0;                           // persistent: at most one per multiprocessor
    GemmLaunch() = default;
    GemmLaunch(const GemmLaunch&) = delete;
    GemmLaunch& operator=(const GemmLaunch&) = delete;
};

// The GEMM kernel's launch for these arguments, or null (with `why`) when they do
// not suit TMA: A and B need a unit inner stride, a 16-byte aligned base and row
// stride, and extents below 2^31; C a unit inner stride, an even row stride and a
// base aligned for a pair of elements. Then the ordinary kernel runs instead.
// `p` is the program g was emitted from (its k loop is found where g records it,
// not matched again); the tensor maps come from tensor_map_cache(), so repeated
// launches over the same buffers encode nothing.
std::unique_ptr<GemmLaunch> gemm_launch(const ir::Program& p, const std::vector<detail::Arg>& args, const GemmKernel& g, const Device& d,
                                        std::string* why = nullptr);

}  // namespace kiln::cu
