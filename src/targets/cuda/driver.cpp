#include "targets/cuda/driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include <kiln/error.h>

namespace kiln::cu {

namespace {

// Binds every entry point; the first missing symbol is reported (an old driver).
bool bind(void* lib, DriverApi& api, std::string& missing) {
    auto sym = [&](auto& slot, const char* name, const char* fallback = nullptr) {
        void* p = dlsym(lib, name);
        if (!p && fallback) p = dlsym(lib, fallback);
        if (!p && missing.empty()) missing = name;
        slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(p);
    };
    sym(api.cuInit, "cuInit");
    sym(api.cuDriverGetVersion, "cuDriverGetVersion");
    sym(api.cuDeviceGetCount, "cuDeviceGetCount");
    sym(api.cuDeviceGet, "cuDeviceGet");
    sym(api.cuDeviceGetAttribute, "cuDeviceGetAttribute");
    sym(api.cuDeviceGetName, "cuDeviceGetName");
    sym(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(api.cuCtxSetCurrent, "cuCtxSetCurrent");
    sym(api.cuCtxSynchronize, "cuCtxSynchronize");
    sym(api.cuMemAlloc, "cuMemAlloc_v2");
    sym(api.cuMemFree, "cuMemFree_v2");
    sym(api.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    sym(api.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
    sym(api.cuModuleLoadData, "cuModuleLoadData");
    sym(api.cuModuleGetFunction, "cuModuleGetFunction");
    sym(api.cuFuncSetAttribute, "cuFuncSetAttribute");
    sym(api.cuFuncGetAttribute, "cuFuncGetAttribute");
    sym(api.cuLaunchKernel, "cuLaunchKernel");
    sym(api.cuStreamSynchronize, "cuStreamSynchronize");
    sym(api.cuStreamCreate, "cuStreamCreate");
    sym(api.cuStreamDestroy, "cuStreamDestroy_v2");
    sym(api.cuCtxGetCurrent, "cuCtxGetCurrent");
    sym(api.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
    sym(api.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    sym(api.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    sym(api.cuMemsetD8Async, "cuMemsetD8Async");
    sym(api.cuEventCreate, "cuEventCreate");
    sym(api.cuEventRecord, "cuEventRecord");
    sym(api.cuEventSynchronize, "cuEventSynchronize");
    sym(api.cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
    sym(api.cuEventDestroy, "cuEventDestroy_v2");
    sym(api.cuGetErrorName, "cuGetErrorName");
    sym(api.cuGetErrorString, "cuGetErrorString");
    // Optional: without it the GEMM kernel is never launched (the ordinary one is).
    api.cuTensorMapEncodeTiled = reinterpret_cast<decltype(api.cuTensorMapEncodeTiled)>(dlsym(lib, "cuTensorMapEncodeTiled"));
    // Optional: without them, operands TMA cannot read in place take the ordinary kernel.
    api.cuMemAllocAsync = reinterpret_cast<decltype(api.cuMemAllocAsync)>(dlsym(lib, "cuMemAllocAsync"));
    api.cuMemFreeAsync = reinterpret_cast<decltype(api.cuMemFreeAsync)>(dlsym(lib, "cuMemFreeAsync"));
    api.cuMemcpy2DAsync = reinterpret_cast<decltype(api.cuMemcpy2DAsync)>(dlsym(lib, "cuMemcpy2DAsync_v2"));
    api.cuStreamIsCapturing = reinterpret_cast<decltype(api.cuStreamIsCapturing)>(dlsym(lib, "cuStreamIsCapturing"));
    api.cuOccupancyMaxActiveClusters = reinterpret_cast<decltype(api.cuOccupancyMaxActiveClusters)>(dlsym(lib, "cuOccupancyMaxActiveClusters"));
    return missing.empty();
}

std::string error_text(const DriverApi& api, CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
    if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
    return std::string(name ? name : "CUDA error " + std::to_string(r)) + (text ? std::string(": ") + text : "");
}

// The driver: its entry points and the number of devices, probed once.
struct Driver {
    DriverApi api{};
    int count = 0;
    std::string why;  // empty when the driver works and has a device
};

// The driver library is never closed and the probe never destroyed: device
// buffers owned by static objects are freed during exit, after which a closed
// library would be a crash.
const Driver& driver() {
    static const Driver* probed = [] {
        auto* p = new Driver;
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            p->why = "no CUDA driver (libcuda.so.1 not found)";
            return p;
        }
        std::string missing;
        if (!bind(lib, p->api, missing)) {
            p->why = "the CUDA driver is too old (libcuda.so.1 lacks " + missing + ")";
            return p;
        }
        CUresult r = p->api.cuInit(0);
        if (r == CUDA_ERROR_NO_DEVICE) {
            p->why = "no CUDA device";
            return p;
        }
        if (r != CUDA_SUCCESS) {
            p->why = "the CUDA driver failed to initialise (" + error_text(p->api, r) + ")";
            return p;
        }
        if (p->api.cuDeviceGetCount(&p->count) != CUDA_SUCCESS || p->count == 0) {
            p->count = 0;
            p->why = "no CUDA device";
        }
        return p;
    }();
    return *probed;
}

struct Probe {
    Device device;
    bool ok = false;
    std::string why;
};

Probe* open_device(const Driver& drv, int ordinal) {
    auto* p = new Probe;
    const DriverApi& api = drv.api;
    p->device.api = api;
    Device& d = p->device;
    char name[256] = {};
    auto attr = [&](int a) {
        int v = 0;
        api.cuDeviceGetAttribute(&v, a, d.ordinal);
        return v;
    };
    CUresult r;
    if ((r = api.cuDeviceGet(&d.ordinal, ordinal)) != CUDA_SUCCESS || (r = api.cuDeviceGetName(name, sizeof name - 1, d.ordinal)) != CUDA_SUCCESS) {
        p->why = "CUDA device " + std::to_string(ordinal) + " cannot be opened (" + error_text(api, r) + ")";
        return p;
    }
    d.name = name;
    d.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    d.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    d.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    d.max_shared_bytes = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d.arch_name = d.arch();
    api.cuDriverGetVersion(&d.driver_version);
    // Generated code uses bf16 conversions and mma.sync m16n8k16 (sm_80 and newer).
    if (d.cc_major < 8) {
        p->why = "CUDA device '" + d.name + "' has compute capability " + std::to_string(d.cc_major) + "." +
                 std::to_string(d.cc_minor) + "; kiln's cuda target needs 8.0 or newer";
        return p;
    }
    if ((r = api.cuDevicePrimaryCtxRetain(&d.context, d.ordinal)) != CUDA_SUCCESS) {
        p->why = "the CUDA device's context cannot be created (" + error_text(api, r) + ")";
        return p;
    }
    p->ok = true;
    return p;
}

// Each device is opened (its primary context retained) when first asked for, so
// that a process using one GPU of eight holds no context on the others.
constexpr int kMaxDevices = 64;
const Probe* the_probe(int ordinal) {
    static std::atomic<const Probe*> probes[kMaxDevices] = {};
    static std::mutex opening;
    if (ordinal >= 0 && ordinal < kMaxDevices)
        if (const Probe* p = probes[ordinal].load(std::memory_order_acquire)) return p;
    const Driver& drv = driver();
    if (!drv.why.empty() || ordinal < 0 || ordinal >= drv.count || ordinal >= kMaxDevices) {
        static std::mutex failed_mutex;
        static std::vector<std::unique_ptr<Probe>> failed;  // answers for a bad ordinal, kept so that pointers stay valid
        std::lock_guard<std::mutex> g(failed_mutex);
        auto p = std::make_unique<Probe>();
        p->why = !drv.why.empty() ? drv.why
                                  : "no CUDA device " + std::to_string(ordinal) + " (this machine has " + std::to_string(drv.count) + ")";
        failed.push_back(std::move(p));
        return failed.back().get();
    }
    std::lock_guard<std::mutex> g(opening);
    if (const Probe* p = probes[ordinal].load(std::memory_order_acquire)) return p;
    const Probe* p = open_device(drv, ordinal);
    probes[ordinal].store(p, std::memory_order_release);
    return p;
}

}  // namespace

std::string Device::arch() const {
    // The 'a' variant unlocks wgmma/setmaxnreg on Hopper; code for it runs only on
    // that exact architecture, which is the one we are compiling for.
    return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + (cc_major == 9 ? "a" : "");
}

const Device* device_at(int ordinal, std::string* why) {
    const Probe* p = the_probe(ordinal);
    if (why) *why = p->why;
    return p->ok ? &p->device : nullptr;
}

const Device* device(std::string* why) { return device_at(0, why); }

const Device& require_device(int ordinal, std::string_view what) {
    std::string why;
    const Device* d = device_at(ordinal, &why);
    if (!d) throw Error("cuda: " + std::string(what) + ": " + why);
    return *d;
}

const Device& require_device(std::string_view what) { return require_device(0, what); }

void make_current(const Device& d) {
    CUcontext current = nullptr;
    if (d.api.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == d.context) return;
    check(d, d.api.cuCtxSetCurrent(d.context), "cuCtxSetCurrent");
}

std::string error_text(const Device& d, CUresult r) { return error_text(d.api, r); }

void check(const Device& d, CUresult r, std::string_view what) {
    if (r != CUDA_SUCCESS) throw Error("cuda: " + std::string(what) + ": " + error_text(d.api, r));
}

}  // namespace kiln::cu

namespace kiln::cu {
// CUDA_MEMCPY2D on LP64: two 56-byte sides (x, y, type with its padding, four
// pointers-or-sizes) and the width and height.
static_assert(sizeof(Memcpy2D) == 128 && offsetof(Memcpy2D, dst_x_bytes) == 56 && offsetof(Memcpy2D, width_bytes) == 112,
              "Memcpy2D must have CUDA_MEMCPY2D's layout");
}  // namespace kiln::cu
