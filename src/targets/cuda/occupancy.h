// How many CTAs of a compiled kernel fit on one multiprocessor at once, and the
// grid a launch uses: one CTA per `instances_per_cta` program instances, except for
// a persistent kernel (EmittedKernel::persistent: it prefetches its next instance),
// whose grid is no larger than the CTAs that fit on the device at once.
#pragma once

#include <cstdint>

#include "targets/cuda/driver.h"
#include "targets/cuda/kernel_cache.h"

namespace kiln::cu {

// From the kernel's registers (ptxas's count), threads and dynamic shared memory, by
// the rules of compute capability 9.0 (and 8.x, the same limits but fewer threads):
// registers are allocated per warp in units of 256 out of 65536, at most 2048
// threads (1536 before 9.0) and 32 CTAs, shared memory up to the device's per-block
// limit plus 1 KB, with 1 KB reserved per CTA. At least 1.
int resident_ctas(const CompiledKernel& k, const Device& d);

// KILN_CUDA_MAX_CTAS (1 to 2^31 - 1; 0 when unset): a cap on every generic
// kernel's grid, for testing. The kernel's instances are a grid-stride loop, so a
// capped grid still covers them, each CTA running several in turn, as a persistent
// kernel's do: the code between one instance and the next (barriers, shared memory
// reused, buffers loaded once or ahead) then runs on every kernel, on the device.
std::int64_t max_ctas();

// The CTAs for `instances` program instances, `cluster` CTAs for each when an
// instance spans a cluster (instances beyond the grid are covered by the kernel's
// grid-stride loop), capped by max_ctas() (whole clusters, at least one). A
// persistent kernel's grid: resident_ctas() on every SM, or for clusters the
// driver's count of those that fit at once (CompiledKernel::active_clusters).
unsigned grid_ctas(std::int64_t instances, const CompiledKernel& k, const Device& d);

}  // namespace kiln::cu
