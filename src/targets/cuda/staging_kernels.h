// The operand staging kernels of the Hopper GEMM (operand_staging.cuh), one module
// shared by every GEMM: packing 2-byte operands to whole 128-byte lines for TMA, and
// transposing 8-bit and tf32 operands that wgmma reads K-major only. They depend on
// no program, so they are compiled once (the disk cache keeps them) and loaded on a
// device at the first launch that stages an operand (gemm_staging.h); a GEMM whose
// operands TMA reads in place never compiles them.
#pragma once

#include <string>

#include "targets/cuda/driver.h"

namespace kiln::cu {

struct StagingKernels {
    CUfunction pack_rows = nullptr;        // 2-byte elements to rows of whole lines (kg::pack_rows)
    CUfunction transpose_bytes = nullptr;  // 8-bit operands stored k outermost, transposed (kg::transpose_bytes)
    CUfunction transpose_words = nullptr;  // tf32 ones likewise (kg::transpose_words)
};

// The module's entry points.
inline constexpr const char* kPackRowsEntry = "kiln_stage_pack_rows";
inline constexpr const char* kTransposeBytesEntry = "kiln_stage_transpose_bytes";
inline constexpr const char* kTransposeWordsEntry = "kiln_stage_transpose_words";

// The module's CUDA source.
std::string staging_module_source();

// The kernels loaded on `d` (a device the driver opened: device_at, which lives as
// long as the process): compiled (or read from the disk cache) and loaded at the
// first call for the device, then kept; calls from other threads meanwhile wait.
// Null, with `why`, where that failed (no NVRTC, a driver error); a failure is kept
// too, so the launches after it do not try again, and the caller stages another way
// or refuses the launch.
const StagingKernels* staging_kernels(const Device& d, std::string* why = nullptr);

// Whether staging_kernels(d) is known to have failed (starts nothing, waits for no
// load: every GEMM launch asks).
bool staging_kernels_failed(const Device& d);

}  // namespace kiln::cu
