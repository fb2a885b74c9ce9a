#include "targets/cuda/split_k_workspace.h"

#include <map>
#include <mutex>
#include <utility>

namespace kiln::cu {

namespace {

struct Buffer {
    CUdeviceptr at = 0;
    std::size_t bytes = 0;
};

struct Workspace {
    Buffer counters, partials;
};

std::mutex g_mutex;
std::map<std::pair<const Device*, CUstream>, Workspace> g_workspaces;
std::size_t g_allocations = 0;

// Sizes grow by powers of two so that a mix of shapes settles after a few launches.
std::size_t rounded(std::size_t bytes) {
    std::size_t r = 256;
    while (r < bytes) r *= 2;
    return r;
}

// Makes `b` hold at least `bytes` (freeing the old buffer after the work already
// on the stream); zeroes a new buffer when `zero`.
void grow(const Device& d, CUstream stream, Buffer& b, std::size_t bytes, bool zero) {
    if (b.bytes >= bytes) return;
    if (b.at) check(d, d.api.cuMemFreeAsync(b.at, stream), "freeing a split-K workspace");
    b = {};
    const std::size_t size = rounded(bytes);
    check(d, d.api.cuMemAllocAsync(&b.at, size, stream), "allocating a split-K workspace");
    ++g_allocations;
    b.bytes = size;
    if (zero) check(d, d.api.cuMemsetD8Async(b.at, 0, size, stream), "zeroing split-K counters");
}

}  // namespace

SplitKScratch split_k_scratch(const Device& d, CUstream stream, std::size_t counter_bytes, std::size_t partial_bytes, std::string* why) {
    if (!d.api.cuMemAllocAsync || !d.api.cuMemFreeAsync || !d.api.cuMemsetD8Async) {
        if (why) *why = "the driver has no stream-ordered allocation for split-K's partial sums";
        return {};
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    Workspace& w = g_workspaces[{&d, stream}];
    // While the stream is captured into a CUDA graph, an allocation would become the
    // graph's own (freed with it) and the memset a node of it: a workspace that must
    // grow there is refused, and the launch runs unsplit. One that fits is used as is.
    if (w.counters.bytes < counter_bytes || w.partials.bytes < partial_bytes) {
        int capturing = 0;
        if (d.api.cuStreamIsCapturing && d.api.cuStreamIsCapturing(stream, &capturing) == CUDA_SUCCESS && capturing != 0) {
            if (why) *why = "the stream is being captured into a CUDA graph, and split-K's workspace would have to grow";
            return {};
        }
    }
    grow(d, stream, w.counters, counter_bytes, /*zero=*/true);
    grow(d, stream, w.partials, partial_bytes, /*zero=*/false);
    return {w.counters.at, w.partials.at};
}

std::size_t split_k_allocations() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_allocations;
}

}  // namespace kiln::cu
