// The Metal shim's side of a kernel: its MSL compiled, unchanged, as C++ by the
// host compiler against kiln's shim header (shim/metal_stdlib), with a few lines
// of host glue that play the part of a Metal command encoder: they call the
// kernel function for every thread of a range of threadgroups (as fibers when
// the kernel has barriers). Built into a shared object through the disk cache,
// like the cpu target's kernels (targets/common/shared_objects.h).
//
// The build directory holds kernel.metal (the MSL, byte for byte what
// `kiln source --target metal` prints and what a Mac harness compiles),
// metal_stdlib (the shim) and kernel.cpp (the glue, which includes kernel.metal).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "targets/common/host_compiler.h"
#include "targets/metal/emit_msl.h"

namespace kiln::mtl {

// Runs threadgroups [begin, end) of a launch of `groups`: buffers[k] is view k's
// data (null for scalars), `launch` the launch block. Returns 0, or 1 with a
// message in `error` (a barrier not reached alike by every thread: kiln's bug).
typedef int (*ShimRunFn)(void* const* buffers, const long* launch, long begin, long end, long groups, long stack_bytes, char* error,
                         int error_size);

struct ShimModule {
    ShimRunFn run = nullptr;
    std::string key;
};

// Flags the shim compiles with, after the host compiler's: MSL's char is signed.
const std::vector<std::string>& shim_flags();

// The glue for kernel `e` of program `p` (C++; see above).
std::string shim_glue(const ir::Program& p, const Emitted& e);

// The glue without its include of kernel.metal: the part that calls the kernel
// and exports kiln_metal_run (a batch of kernels carries one per kernel).
std::string shim_glue_body(const ir::Program& p, const Emitted& e);

// The stack each fiber (or, in the per-thread lowering, each launcher thread)
// needs for kernel e's private tiles.
std::int64_t shim_stack_bytes(const Emitted& e);

// The cache key of the shared object: everything it is built from.
std::string shim_key(const Emitted& e, const std::string& glue, const native::HostCompiler& compiler);

// The module for `e`, from this process, the disk cache or the compiler.
ShimModule shim_module(const ir::Program& p, const Emitted& e, const native::HostCompiler& compiler);

}  // namespace kiln::mtl
