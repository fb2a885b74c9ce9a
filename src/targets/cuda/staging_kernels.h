// The operand staging kernels of the Hopper GEMM (operand_staging.cuh): packing
// 2-byte operands to whole 128-byte lines for TMA, and transposing 8-bit and tf32
// operands that wgmma reads K-major only. They depend on no program, so they are
// shared by every GEMM, not a part of each GEMM's module: each kernel is a module of
// its own, compiled once (the disk cache keeps it) and loaded on a device at the
// first launch that needs that kernel (gemm_staging.h). A GEMM whose operands TMA
// reads in place compiles none; one whose bf16 rows are packed compiles only the
// packing kernel (the byte transposition alone takes three times its compile:
// NVRTC's CPU time offline 0.17 s for pack_rows, 0.50 s for transpose_bytes,
// 0.11 s for transpose_words).
#pragma once

#include <string>

#include "targets/cuda/driver.h"

namespace kiln::cu {

enum class StagingKernel {
    pack_rows,        // 2-byte elements to rows of whole lines (kg::pack_rows)
    transpose_bytes,  // 8-bit operands stored k outermost, transposed (kg::transpose_bytes)
    transpose_words,  // tf32 ones likewise (kg::transpose_words)
};
inline constexpr int kStagingKernels = 3;

// The kernel's entry point, and its module's CUDA source (the entry alone).
const char* staging_entry(StagingKernel k);
std::string staging_module_source(StagingKernel k);

// The kernel loaded on `d` (a device the driver opened: device_at, which lives as
// long as the process): compiled (or read from the disk cache) and loaded at the
// first call for the device and kernel, then kept; calls from other threads
// meanwhile wait. Null, with `why`, where that failed (no NVRTC, a driver error); a
// failure is kept too, so the launches after it do not try again, and the caller
// stages another way or refuses the launch.
CUfunction staging_kernel(const Device& d, StagingKernel k, std::string* why = nullptr);

// Whether staging_kernel(d, k) is known to have failed (starts nothing, waits for no
// load: every GEMM launch asks).
bool staging_kernel_failed(const Device& d, StagingKernel k);

}  // namespace kiln::cu
