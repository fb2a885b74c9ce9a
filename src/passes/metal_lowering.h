// The metal target's lowering, decided by the contraction pass. Two are chosen
// automatically (seed 000, "Matrix units"):
//   - per-thread: one program instance per GPU thread, its tiles in the thread's
//     private memory, every op an ordered loop: bit-exact with the interpreter on
//     the device, in any precision;
//   - simdgroup: one instance per 32-lane simdgroup (a threadgroup of one
//     simdgroup), its tiles in threadgroup memory, each op's elements (or lines)
//     strided across the lanes behind a barrier, and the 2-D contractions
//     a[m, k] b[k, n] or a[m, k] b[n, k] (b loaded transposed) whose
//     extents are multiples of 8 run as 8x8 blocks on simdgroup matrices
//     (simdgroup_float8x8 / simdgroup_half8x8 multiply-accumulate).
// The matrix units fuse and reorder a block's products and sums, so the
// simdgroup lowering is only taken in standard precision; exact precision, and
// KILN_METAL_LOWERING=thread, keep the per-thread lowering. As in seed 000, a
// contraction whose order is pinned (dot, mma without allow_reassociation) takes
// the matrix units too in standard precision: on a device its blocks' sums come
// out in the hardware's order, within the harness's tolerance, and exact
// precision or the knob are how a kernel asks for the order there. kiln's shim
// emulates each block in the interpreter's order, so in the shim both lowerings
// are bit-exact.
#pragma once

#include <cstdint>
#include <string>

#include "ir/ir.h"
#include "passes/contraction.h"
#include "passes/lowered.h"

namespace kiln::passes {

// Threadgroup memory a kernel may use: 32 KiB on every Apple GPU family.
constexpr std::int64_t kMetalThreadgroupBytes = 32768;

// Whether the metal target may run this mma on simdgroup matrices; else why not.
bool simdgroup_mma(const ir::Node& mma, const LowerOptions& o, std::string& why);

// The kernel's lowering: simdgroup when some mma takes simdgroup matrices and the
// tiles fit threadgroup memory (the plans of the mma go back to ordered
// otherwise, with the reason), else per-thread.
MetalLowering metal_lowering(Lowered& l);

// The bytes the simdgroup lowering keeps in threadgroup memory: every live tile
// value that is not another's storage (reshapes, memory<T> round trips and loop
// results alias their operand), each loop's carried tiles twice (the slot and
// the next value), and half staging for the f16 blocks.
std::int64_t metal_threadgroup_bytes(const Lowered& l);

// The bytes one element of a tile of kind k takes in a metal kernel's registers
// and threadgroup memory (f16 and bf16 are held in float, f64 as its bits).
std::int64_t metal_value_bytes(Kind k);

// An mma the simdgroup lowering computes on simdgroup_half8x8 (f16 operands and
// accumulator); the others take simdgroup_float8x8.
bool metal_half_blocks(const ir::Node& mma);

}  // namespace kiln::passes
