// Device memory for Tensor::to(cuda()): the hooks declared in kiln/view.h. A
// buffer placed with a stream copies on that stream: uploads are enqueued (the
// driver stages pageable host memory before returning, so the source may be
// reused at once), downloads wait for the stream and report a failed kernel
// naming it. Without a stream, copies are synchronous on the legacy default stream.
#include <kiln/view.h>

#include "targets/cuda/driver.h"
#include "targets/cuda/stream_state.h"

namespace kiln::detail {

struct DeviceBuffer {
    const cu::Device* device = nullptr;
    cu::CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    std::shared_ptr<StreamState> stream;  // null: synchronous copies

    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    // Errors are ignored: at process exit the driver may already be shut down.
    // cuMemFree synchronises the device first, so a buffer that an enqueued
    // kernel still uses is not freed under it.
    ~DeviceBuffer() {
        if (ptr) device->api.cuMemFree(ptr);
    }
};

std::shared_ptr<DeviceBuffer> device_alloc(const Placement& where, std::size_t bytes, Loc loc) {
    std::string why;
    const cu::Device* found = cu::device_at(where.ordinal, &why);
    if (!found) fail(loc, "to", "cannot copy a tensor to cuda: " + why);
    const cu::Device& d = *found;
    cu::make_current(d);
    auto b = std::make_shared<DeviceBuffer>();
    b->device = &d;
    b->bytes = bytes;
    b->stream = where.stream;
    // A zero-byte tensor still gets a distinct (one-byte) allocation, so its pointer
    // is valid and unique like a host vector's would be.
    cu::check(d, d.api.cuMemAlloc(&b->ptr, bytes ? bytes : 1), "cuMemAlloc of " + std::to_string(bytes) + " bytes");
    return b;
}

std::shared_ptr<DeviceBuffer> device_alloc(std::size_t bytes) { return device_alloc(Placement{Device::cuda, 0, nullptr}, bytes); }

void device_upload(DeviceBuffer& b, const void* src, std::size_t bytes) {
    if (bytes > b.bytes) internal_fail("device_upload past the end of the buffer");
    if (!bytes) return;
    const cu::Device& d = *b.device;
    cu::make_current(d);
    if (b.stream) b.stream->check(d.api.cuMemcpyHtoDAsync(b.ptr, src, bytes, b.stream->handle), "copy to device", {});
    else cu::check(d, d.api.cuMemcpyHtoD(b.ptr, src, bytes), "copy to device");
}

void device_download(const DeviceBuffer& b, void* dst, std::size_t bytes) {
    if (bytes > b.bytes) internal_fail("device_download past the end of the buffer");
    if (!bytes) return;
    const cu::Device& d = *b.device;
    cu::make_current(d);
    if (b.stream) {
        b.stream->check(d.api.cuMemcpyDtoHAsync(dst, b.ptr, bytes, b.stream->handle), "copy from device", {});
        b.stream->synchronize({});
        return;
    }
    // Synchronous on the default stream: kernels launched before have finished.
    cu::check(d, d.api.cuMemcpyDtoH(dst, b.ptr, bytes), "copy from device");
}

// Device to device, ordered after the source's work and before the destination's:
// on the destination's stream once the source's stream is done with it.
void device_copy(DeviceBuffer& to, const DeviceBuffer& from, std::size_t bytes) {
    if (bytes > to.bytes || bytes > from.bytes) internal_fail("device_copy past the end of a buffer");
    if (!bytes) return;
    const cu::Device& d = *to.device;
    if (from.stream && from.stream != to.stream) from.stream->synchronize({});
    cu::make_current(d);
    cu::CUstream s = to.stream ? to.stream->handle : nullptr;
    cu::CUresult r = d.api.cuMemcpyDtoDAsync(to.ptr, from.ptr, bytes, s);
    if (to.stream) {
        to.stream->check(r, "copy on device", {});
        return;
    }
    cu::check(d, r, "copy on device");
    cu::check(d, d.api.cuStreamSynchronize(nullptr), "copy on device");
}

void* device_pointer(const DeviceBuffer& b) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(b.ptr)); }
int device_ordinal(const DeviceBuffer& b) { return b.device->ordinal; }

}  // namespace kiln::detail
