// Split-K's scratch (gemm_schedule.h): the stream's workspace (stream_workspace.h),
// kept from launch to launch. The counters are zeroed once, when allocated, and the
// kernel leaves each counter it used at zero again; the partial sums need no
// initial value. During a CUDA graph capture a workspace too small is not grown
// (the launch runs unsplit); one that fits is used, and each replay leaves its
// counters at zero. A workspace lives until the process ends (tens of MB at most:
// split-K runs only when the tiles number fewer than the multiprocessors).
#pragma once

#include <cstddef>
#include <string>

#include "targets/cuda/driver.h"

namespace kiln::cu {

struct SplitKScratch {
    CUdeviceptr counters = 0;  // at least the asked bytes, zero
    CUdeviceptr partials = 0;  // at least the asked bytes, 256-byte aligned
};

// The workspace of `stream` on `d` with room for the asked bytes, growing it (the
// old buffers freed in stream order, the new counters zeroed on the stream), or
// nullopt-like zeros with `why` when the driver has no stream-ordered allocation.
SplitKScratch split_k_scratch(const Device& d, CUstream stream, std::size_t counter_bytes, std::size_t partial_bytes, std::string* why);

}  // namespace kiln::cu
