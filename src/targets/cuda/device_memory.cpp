// Device memory for Tensor::to(cuda()): the hooks declared in kiln/view.h.
#include <kiln/view.h>

#include "targets/cuda/driver.h"

namespace kiln::detail {

struct DeviceBuffer {
    const cu::Device* device = nullptr;
    cu::CUdeviceptr ptr = 0;
    std::size_t bytes = 0;

    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    // Errors are ignored: at process exit the driver may already be shut down.
    ~DeviceBuffer() {
        if (ptr) device->api.cuMemFree(ptr);
    }
};

std::shared_ptr<DeviceBuffer> device_alloc(std::size_t bytes, Loc loc) {
    std::string why;
    const cu::Device* found = cu::device(&why);
    if (!found) fail(loc, "to", "cannot copy a tensor to cuda: " + why);
    const cu::Device& d = *found;
    cu::make_current(d);
    auto b = std::make_shared<DeviceBuffer>();
    b->device = &d;
    b->bytes = bytes;
    // A zero-byte tensor still gets a distinct (one-byte) allocation, so its pointer
    // is valid and unique like a host vector's would be.
    cu::check(d, d.api.cuMemAlloc(&b->ptr, bytes ? bytes : 1), "cuMemAlloc of " + std::to_string(bytes) + " bytes");
    return b;
}

void device_upload(DeviceBuffer& b, const void* src, std::size_t bytes) {
    if (bytes > b.bytes) internal_fail("device_upload past the end of the buffer");
    if (!bytes) return;
    cu::make_current(*b.device);
    cu::check(*b.device, b.device->api.cuMemcpyHtoD(b.ptr, src, bytes), "copy to device");
}

void device_download(const DeviceBuffer& b, void* dst, std::size_t bytes) {
    if (bytes > b.bytes) internal_fail("device_download past the end of the buffer");
    if (!bytes) return;
    cu::make_current(*b.device);
    // Synchronous on the default stream: kernels launched before have finished.
    cu::check(*b.device, b.device->api.cuMemcpyDtoH(dst, b.ptr, bytes), "copy from device");
}

void* device_pointer(const DeviceBuffer& b) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(b.ptr)); }

}  // namespace kiln::detail
