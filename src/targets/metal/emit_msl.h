// The Metal emitter: a verified Tile IR program to one Metal Shading Language
// translation unit holding one kernel, in the lowering the contraction pass
// chose (passes/metal_lowering.h):
//   - per-thread: a threadgroup of kThreadsPerGroup threads, one program instance
//     per thread (a grid-stride loop over instances), tiles in private arrays;
//   - simdgroup: a threadgroup of one 32-lane simdgroup per instance, tiles in
//     threadgroup arrays, each op's elements (lines, for folds and sorts)
//     strided across the lanes and followed by a barrier; scalars are computed
//     by every lane alike; contractions in 8x8 blocks on simdgroup matrices.
// Every op reproduces the interpreter exactly (emit_expr.h for elements); the
// kernel's launch values (grid size, view extents and strides, scalar
// arguments) come in one array of 64-bit words (launch_block.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::mtl {

constexpr int kThreadsPerGroup = 64;  // per-thread lowering
constexpr int kSimdWidth = 32;        // simdgroup lowering: one simdgroup per threadgroup

struct EmitOptions {
    bool index64 = false;      // 64-bit element offsets (some view's span needs them)
    bool exact = false;        // Precision::exact
    bool thread_only = false;  // KILN_METAL_LOWERING=thread
};

struct Emitted {
    std::string source;             // the MSL, complete: what a Mac compiles
    std::string entry;              // the kernel function's name
    bool simdgroup = false;         // the lowering
    std::string lowering;           // the lowering and why (the plan's line)
    int threads_per_group = kThreadsPerGroup;
    bool barriers = false;          // has threadgroup barriers (the shim runs its threads as fibers)
    std::int64_t private_bytes = 0; // per thread: private tile arrays (the shim sizes stacks from it)
    std::int64_t threadgroup_bytes = 0;
    std::vector<std::string> contractions;  // how each mma is computed, and why not faster
};

Emitted emit_msl(const ir::Program& p, const EmitOptions& o);

// The text every kernel starts with: <metal_stdlib>, the math pragmas, kf64,
// kiln's rounding and math in kiln's MSL dialect (msl_dialect.h) and the helpers
// (msl/kiln_metal.h), guarded so that kernels can share a translation unit.
const std::string& msl_prelude();

}  // namespace kiln::mtl
