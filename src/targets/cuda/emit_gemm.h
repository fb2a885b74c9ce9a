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

namespace kiln::cu {

class Emitter;

using passes::GemmMatch;

// Appends the GEMM kernel to the translation unit's text and describes it in k.gemm.
// Call only for a match; the emitter supplies the scalar-op helpers.
std::string emit_gemm_kernel(Emitter& E, const GemmMatch& m, const std::string& entry, GemmKernel& info);

}  // namespace kiln::cu
