// Device buffers kept from launch to launch, one per (device, stream, slot), grown
// when a launch needs more. Allocating per launch costs more than small kernels
// take: the stream-ordered pool returns its memory to the system at every
// synchronisation, so each launch mapped it anew (about 60 us on an H200 for
// split-K's scratch; for the 112 MB of a 3000 x 5000 x 7000 GEMM's packed operands,
// about as long as the copy itself). Launches on one stream run in order, so they
// never use a slot's buffer at once; another stream gets its own. A grown buffer's
// old memory is freed in stream order. Buffers live until the process ends.
//
// While the stream is captured into a CUDA graph, an allocation would become the
// graph's own (freed with it): a buffer that would have to grow there is refused
// (the caller does without: runs unsplit, or allocates for the launch), and one
// that fits is used as is.
#pragma once

#include <cstddef>
#include <string>

#include "targets/cuda/driver.h"

namespace kiln::cu {

enum class WorkspaceSlot {
    split_k_counters,  // zeroed when allocated; the kernel leaves each counter it used at zero
    split_k_partials,
    staged_a,          // GEMM operands packed for TMA (gemm_staging.h)
    staged_b,
    attention_tiles,   // the FlashAttention kernel's tile counter: zeroed when allocated, left at zero by the kernel
};

// The slot's buffer for `stream` on `d` with at least `bytes` (zeroed when new and
// `zero`), 256-byte aligned; 0 with `why` when the driver has no stream-ordered
// allocation or the buffer would have to grow during a graph capture.
CUdeviceptr stream_workspace(const Device& d, CUstream stream, WorkspaceSlot slot, std::size_t bytes, bool zero, std::string* why);

// Allocations made so far, for tests: a launch that fits its buffers makes none.
std::size_t stream_workspace_allocations();

}  // namespace kiln::cu
