// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so that
// kiln builds and runs (everything but kernel execution) on machines without a
// driver. Only the entry points kiln uses are declared here, with the ABI of the
// symbols they are bound to (the _v2 names where cuda.h remaps the plain name).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

// The few enumerators kiln passes (values from cuda.h; they are ABI).
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
inline constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
inline constexpr int CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
inline constexpr int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;  // bytes: i8 operands
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;  // f32 operands read as tf32
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
inline constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
inline constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
inline constexpr int CU_TENSOR_MAP_L2_PROMOTION_NONE = 0;
inline constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3;
inline constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0;  // out-of-bounds elements read as zero
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;         // no implicit ordering with the legacy default stream
inline constexpr unsigned CU_EVENT_DEFAULT = 0;
inline constexpr int CU_MEMORYTYPE_DEVICE = 2;

// cuMemcpy2DAsync's description of a pitched copy (CUDA_MEMCPY2D in cuda.h; the
// layout is ABI). kiln copies device to device only: the host and array fields stay null.
struct Memcpy2D {
    std::size_t src_x_bytes = 0, src_y = 0;
    int src_memory_type = CU_MEMORYTYPE_DEVICE;
    const void* src_host = nullptr;
    unsigned long long src_device = 0;
    void* src_array = nullptr;
    std::size_t src_pitch = 0;
    std::size_t dst_x_bytes = 0, dst_y = 0;
    int dst_memory_type = CU_MEMORYTYPE_DEVICE;
    void* dst_host = nullptr;
    unsigned long long dst_device = 0;
    void* dst_array = nullptr;
    std::size_t dst_pitch = 0;
    std::size_t width_bytes = 0, height = 0;
};

// cuOccupancyMaxActiveClusters's description of a launch (CUlaunchConfig in cuda.h;
// the layout is ABI). kiln passes no attributes: its kernels name their cluster
// size at compile time (__cluster_dims__).
struct LaunchConfig {
    unsigned grid_x = 1, grid_y = 1, grid_z = 1;
    unsigned block_x = 1, block_y = 1, block_z = 1;
    unsigned shared_bytes = 0;
    CUstream stream = nullptr;
    void* attributes = nullptr;
    unsigned attribute_count = 0;
};

// Entry points, bound by symbol name (see driver.cpp for the names).
struct DriverApi {
    CUresult (*cuInit)(unsigned flags);
    CUresult (*cuDriverGetVersion)(int* version);
    CUresult (*cuDeviceGetCount)(int* count);
    CUresult (*cuDeviceGet)(CUdevice* dev, int ordinal);
    CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice dev);
    CUresult (*cuDeviceGetName)(char* name, int len, CUdevice dev);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* ctx, CUdevice dev);
    CUresult (*cuCtxSetCurrent)(CUcontext ctx);
    CUresult (*cuCtxSynchronize)();
    CUresult (*cuMemAlloc)(CUdeviceptr* ptr, std::size_t bytes);                     // cuMemAlloc_v2
    CUresult (*cuMemFree)(CUdeviceptr ptr);                                          // cuMemFree_v2
    CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void* src, std::size_t bytes);   // cuMemcpyHtoD_v2
    CUresult (*cuMemcpyDtoH)(void* dst, CUdeviceptr src, std::size_t bytes);         // cuMemcpyDtoH_v2
    CUresult (*cuModuleLoadData)(CUmodule* module, const void* image);
    CUresult (*cuModuleGetFunction)(CUfunction* fn, CUmodule module, const char* name);
    CUresult (*cuFuncSetAttribute)(CUfunction fn, int attribute, int value);
    CUresult (*cuFuncGetAttribute)(int* value, int attribute, CUfunction fn);
    CUresult (*cuLaunchKernel)(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               unsigned shared_bytes, CUstream stream, void** params, void** extra);
    CUresult (*cuStreamSynchronize)(CUstream stream);
    CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags);
    CUresult (*cuStreamDestroy)(CUstream stream);                                    // cuStreamDestroy_v2
    CUresult (*cuCtxGetCurrent)(CUcontext* ctx);
    CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream);  // _v2
    CUresult (*cuMemcpyDtoHAsync)(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream);        // _v2
    CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream);  // _v2
    CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, std::size_t count, CUstream stream);
    CUresult (*cuEventCreate)(CUevent* event, unsigned flags);
    CUresult (*cuEventRecord)(CUevent event, CUstream stream);
    CUresult (*cuEventSynchronize)(CUevent event);
    CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end);          // _v2 where exported
    CUresult (*cuEventDestroy)(CUevent event);                                       // cuEventDestroy_v2
    CUresult (*cuGetErrorName)(CUresult error, const char** text);
    CUresult (*cuGetErrorString)(CUresult error, const char** text);
    // Optional (CUDA 12+; null on older drivers): a TMA descriptor (CUtensorMap, 128
    // bytes) for the Hopper GEMM kernel. Enums are passed as their int values.
    CUresult (*cuTensorMapEncodeTiled)(void* map, int data_type, unsigned rank, void* base, const std::uint64_t* dims,
                                       const std::uint64_t* strides_bytes, const unsigned* box, const unsigned* element_strides,
                                       int interleave, int swizzle, int l2_promotion, int oob_fill);
    // Optional (CUDA 11.2+): stream-ordered scratch and pitched copies, for operands
    // the GEMM kernel's TMA cannot read in place (gemm_staging.h).
    CUresult (*cuMemAllocAsync)(CUdeviceptr* ptr, std::size_t bytes, CUstream stream);
    CUresult (*cuMemFreeAsync)(CUdeviceptr ptr, CUstream stream);
    CUresult (*cuMemcpy2DAsync)(const Memcpy2D* copy, CUstream stream);                // cuMemcpy2DAsync_v2
    // Optional (CUDA 10+): whether a stream is being captured into a CUDA graph
    // (status 0: not capturing), where split_k_workspace.h must not allocate.
    CUresult (*cuStreamIsCapturing)(CUstream stream, int* status);
    // Optional (CUDA 12+): how many clusters of a kernel fit on the device at once,
    // for the persistent grid of rows spread over clusters (occupancy.h).
    CUresult (*cuOccupancyMaxActiveClusters)(int* clusters, CUfunction fn, const LaunchConfig* config);
};

// What was found: the driver's entry points, a device and its properties.
// Probed once per process and device.
struct Device {
    DriverApi api{};
    CUcontext context = nullptr;  // the device's primary context (the one the CUDA runtime, and so PyTorch, uses)
    CUdevice ordinal = 0;
    int cc_major = 0, cc_minor = 0;
    int multiprocessors = 0;
    int max_shared_bytes = 0;     // per block, opt-in limit
    int driver_version = 0;
    std::string name;
    std::string arch_name;        // arch(), found once
    std::string arch() const;     // NVRTC --gpu-architecture value: "sm_90a" on Hopper
};

// The device, or nullptr when there is none; `why` (if given) then says what is
// missing: "no CUDA driver (libcuda.so.1 not found)", "no CUDA device", ...
const Device* device(std::string* why = nullptr);
// Device `ordinal` (0 is device()), opened on first use; nullptr with `why` when
// there is no such device.
const Device* device_at(int ordinal, std::string* why = nullptr);
// The device, or a kiln::Error naming `what` and the reason there is none.
const Device& require_device(std::string_view what);
const Device& require_device(int ordinal, std::string_view what);

// Makes the device's primary context current on the calling thread. Another
// library (PyTorch, CuPy) may have made another context current since, so the
// driver is asked which one is (a thread-local read in the driver).
void make_current(const Device& d);
// Throws kiln::Error("cuda: <what>: <error name>: <error text>") unless r is success.
void check(const Device& d, CUresult r, std::string_view what);
// "<error name>: <error text>".
std::string error_text(const Device& d, CUresult r);

}  // namespace kiln::cu
