#include "targets/cuda/driver.h"

#include <dlfcn.h>

#include <cstddef>

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
    return missing.empty();
}

std::string error_text(const DriverApi& api, CUresult r) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
    if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
    return std::string(name ? name : "CUDA error " + std::to_string(r)) + (text ? std::string(": ") + text : "");
}

struct Probe {
    Device device;
    bool ok = false;
    std::string why;
};

// The driver library is never closed and the probe never destroyed: device
// buffers owned by static objects are freed during exit, after which a closed
// library would be a crash.
Probe* probe() {
    auto* p = new Probe;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        p->why = "no CUDA driver (libcuda.so.1 not found)";
        return p;
    }
    std::string missing;
    DriverApi& api = p->device.api;
    if (!bind(lib, api, missing)) {
        p->why = "the CUDA driver is too old (libcuda.so.1 lacks " + missing + ")";
        return p;
    }
    CUresult r = api.cuInit(0);
    if (r == CUDA_ERROR_NO_DEVICE) {
        p->why = "no CUDA device";
        return p;
    }
    if (r != CUDA_SUCCESS) {
        p->why = "the CUDA driver failed to initialise (" + error_text(api, r) + ")";
        return p;
    }
    int count = 0;
    if (api.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        p->why = "no CUDA device";
        return p;
    }
    Device& d = p->device;
    char name[256] = {};
    auto attr = [&](int a) {
        int v = 0;
        api.cuDeviceGetAttribute(&v, a, d.ordinal);
        return v;
    };
    if ((r = api.cuDeviceGet(&d.ordinal, 0)) != CUDA_SUCCESS || (r = api.cuDeviceGetName(name, sizeof name - 1, d.ordinal)) != CUDA_SUCCESS) {
        p->why = "CUDA device 0 cannot be opened (" + error_text(api, r) + ")";
        return p;
    }
    d.name = name;
    d.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    d.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    d.multiprocessors = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    d.max_shared_bytes = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
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

const Probe& the_probe() {
    static const Probe* p = probe();
    return *p;
}

}  // namespace

std::string Device::arch() const {
    // The 'a' variant unlocks wgmma/setmaxnreg on Hopper; code for it runs only on
    // that exact architecture, which is the one we are compiling for.
    return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + (cc_major == 9 ? "a" : "");
}

const Device* device(std::string* why) {
    const Probe& p = the_probe();
    if (why) *why = p.why;
    return p.ok ? &p.device : nullptr;
}

const Device& require_device(std::string_view what) {
    std::string why;
    const Device* d = device(&why);
    if (!d) throw Error("cuda: " + std::string(what) + ": " + why);
    return *d;
}

void make_current(const Device& d) {
    thread_local CUcontext current = nullptr;
    if (current == d.context) return;
    check(d, d.api.cuCtxSetCurrent(d.context), "cuCtxSetCurrent");
    current = d.context;
}

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
