// Split-K's scratch (gemm_schedule.h), kept from launch to launch. Allocating it
// per launch cost about 60 us on an H200 (the stream-ordered pool returns its
// memory to the system at every synchronisation, so each launch mapped it anew,
// then zeroed the counters with a second operation): more than the 10 us a decode
// GEMM takes. So each (device, stream) keeps one workspace, grown when a launch
// needs more: the counters are zeroed once, when allocated, and the kernel leaves
// each counter it used at zero again; the partial sums need no initial value.
// During a CUDA graph capture a workspace too small is not grown (the launch runs
// unsplit); one that fits is used, and each replay leaves its counters at zero.
// Launches on one stream run in order, so they never share a workspace at once;
// another stream gets its own. A workspace lives until the process ends (tens of
// MB at most: split-K runs only when the tiles number fewer than the
// multiprocessors); a program that makes a new stream per request keeps one per
// stream it launched a split GEMM on.
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

// Allocations made so far, for tests: a launch that fits the workspace makes none.
std::size_t split_k_allocations();

}  // namespace kiln::cu
