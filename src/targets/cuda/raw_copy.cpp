#include "targets/cuda/raw_copy.h"

#include <cstdint>
#include <string>

#include "targets/cuda/driver.h"

namespace kiln::cu {

namespace {
CUdeviceptr address(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)); }

const Device& synchronized(int ordinal, std::string_view what) {
    const Device& d = require_device(ordinal, what);
    make_current(d);
    check(d, d.api.cuCtxSynchronize(), std::string(what) + ": waiting for the device");
    return d;
}
}  // namespace

void copy_from_device(int ordinal, const void* device_ptr, void* host, std::size_t bytes, std::string_view what) {
    if (!bytes) return;
    const Device& d = synchronized(ordinal, what);
    check(d, d.api.cuMemcpyDtoH(host, address(device_ptr), bytes), std::string(what) + ": copy from device");
}

void copy_to_device(int ordinal, void* device_ptr, const void* host, std::size_t bytes, std::string_view what) {
    if (!bytes) return;
    const Device& d = synchronized(ordinal, what);
    check(d, d.api.cuMemcpyHtoD(address(device_ptr), host, bytes), std::string(what) + ": copy to device");
}

}  // namespace kiln::cu
