#include "targets/cuda/stream_workspace.h"

#include <map>
#include <mutex>
#include <tuple>

namespace kiln::cu {

namespace {

struct Buffer {
    CUdeviceptr at = 0;
    std::size_t bytes = 0;
};

std::mutex g_mutex;
std::map<std::tuple<const Device*, CUstream, WorkspaceSlot>, Buffer> g_buffers;
std::size_t g_allocations = 0;

// Sizes grow by powers of two so that a mix of shapes settles after a few launches.
std::size_t rounded(std::size_t bytes) {
    std::size_t r = 256;
    while (r < bytes) r *= 2;
    return r;
}

}  // namespace

CUdeviceptr stream_workspace(const Device& d, CUstream stream, WorkspaceSlot slot, std::size_t bytes, bool zero, std::string* why) {
    auto no = [&](const char* w) -> CUdeviceptr {
        if (why) *why = w;
        return 0;
    };
    if (!d.api.cuMemAllocAsync || !d.api.cuMemFreeAsync || (zero && !d.api.cuMemsetD8Async))
        return no("the driver has no stream-ordered allocation");
    std::lock_guard<std::mutex> lock(g_mutex);
    Buffer& b = g_buffers[{&d, stream, slot}];
    if (b.bytes >= bytes) return b.at;
    int capturing = 0;
    if (d.api.cuStreamIsCapturing && d.api.cuStreamIsCapturing(stream, &capturing) == CUDA_SUCCESS && capturing != 0)
        return no("the stream is being captured into a CUDA graph, and a workspace would have to grow");
    if (b.at) check(d, d.api.cuMemFreeAsync(b.at, stream), "freeing a launch workspace");
    b = {};
    const std::size_t size = rounded(bytes);
    check(d, d.api.cuMemAllocAsync(&b.at, size, stream), "allocating a launch workspace");
    ++g_allocations;
    b.bytes = size;
    if (zero) check(d, d.api.cuMemsetD8Async(b.at, 0, size, stream), "zeroing a launch workspace");
    return b.at;
}

std::size_t stream_workspace_allocations() {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_allocations;
}

}  // namespace kiln::cu
