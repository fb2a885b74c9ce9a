// The Hopper GEMM lowering: recognises the canonical tiled GEMM in the traced IR
// by its dataflow and emits, next to the ordinary kernel, a second kernel for it
// built on TMA, an mbarrier ring and wgmma (emit_gemm_sm90.cuh). The launcher
// takes the second kernel when the launch's views suit TMA and the first one
// otherwise, so both compute the same function.
//
// The pattern is passes/gemm_match.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "passes/gemm_match.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/gemm_schedule.h"

namespace kiln::cu {

class Emitter;

using passes::GemmMatch;

// Appends the GEMM kernel to the translation unit's text and describes it in k.gemm.
// Call only for a match; the emitter supplies the scalar-op helpers.
std::string emit_gemm_kernel(Emitter& E, const GemmMatch& m, const std::string& entry, GemmKernel& info);

// Whether the kernel of `m` is batched: batch axes in its nest, or a view of rank
// above 2 (read and written at leading coordinates of the batch's).
bool batched(const GemmMatch& m);

// The kernel's tile for a program's bm x bn x bk tile when no launch asks for
// another (EmitOptions::gemm_bm, gemm_bn): the program's where wgmma and TMA take it
// directly (bm 64 or 128, bn a multiple of 64 up to 256, bk 64 or 128; any bk for
// operands `in` of i8), else 128x128. A launch chooses its tile from this one
// (launch_args.h), whichever variant of the kernel it holds.
GemmTile own_tile(std::int64_t bm, std::int64_t bn, std::int64_t bk, Kind in);

}  // namespace kiln::cu
