// Copies between the host and device memory that a caller's view points at (a
// pointer kiln did not allocate, so no DeviceBuffer knows it): the autotuner saves
// and restores a launch's writable views this way. Each copy first waits for all of
// the device's work (cuCtxSynchronize), so kernels enqueued on any stream have
// finished with the memory; failures are kiln::Errors naming `what`.
#pragma once

#include <cstddef>
#include <string_view>

namespace kiln::cu {

void copy_from_device(int ordinal, const void* device_ptr, void* host, std::size_t bytes, std::string_view what);
void copy_to_device(int ordinal, void* device_ptr, const void* host, std::size_t bytes, std::string_view what);

}  // namespace kiln::cu
