#include "targets/cuda/split_k_workspace.h"

#include "targets/cuda/stream_workspace.h"

namespace kiln::cu {

SplitKScratch split_k_scratch(const Device& d, CUstream stream, std::size_t counter_bytes, std::size_t partial_bytes, std::string* why) {
    std::string w;
    const CUdeviceptr counters = stream_workspace(d, stream, WorkspaceSlot::split_k_counters, counter_bytes, /*zero=*/true, &w);
    const CUdeviceptr partials = counters ? stream_workspace(d, stream, WorkspaceSlot::split_k_partials, partial_bytes, /*zero=*/false, &w) : 0;
    if (!counters || !partials) {
        if (why) *why = "split-K's partial sums: " + w;
        return {};
    }
    return {counters, partials};
}

}  // namespace kiln::cu
