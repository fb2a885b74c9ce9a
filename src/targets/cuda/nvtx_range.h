// An NVTX range around each cuda launch, named after the kernel, so that Nsight
// Systems shows kiln's launches on the timeline. NVTX v3 is header-only and calls
// nothing until a profiler injects itself (then its functions are bound), so
// without one a range costs a test of a function pointer. Built without the
// header (no CUDA toolkit), ranges are nothing.
#pragma once

#if defined(KILN_HAVE_NVTX) && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define KILN_NVTX 1
#endif

namespace kiln::cu {

class NvtxRange {
public:
#ifdef KILN_NVTX
    explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
    ~NvtxRange() { nvtxRangePop(); }
#else
    explicit NvtxRange(const char*) {}
#endif
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace kiln::cu
