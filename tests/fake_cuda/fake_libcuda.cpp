/* A stand-in for the CUDA driver (libcuda.so.1) for testing kiln's host side of
 * the cuda target on a machine without a GPU: device memory is host memory,
 * copies are memcpy, kernels are recorded and not run. Tests read what was
 * called (fake_cuda_counts) and inject failures (fake_cuda_fail). Only the entry
 * points kiln binds are here, with the ABI of the symbols kiln binds them to. */
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

/* What the driver hands out (device memory, modules, streams, events) stays on this
 * list until it is freed, as a real driver keeps it: memory a process holds to its
 * end (kiln keeps modules loaded and a stream's workspace for the process's life)
 * is then still reachable at exit, and LeakSanitizer does not take it for a leak of
 * kiln's. The list's head is a plain global, never destroyed. */
namespace {
struct alignas(16) Held { /* 16 bytes: what follows is as aligned as malloc's */
    Held* prev;
    Held* next;
};
Held g_held = {&g_held, &g_held};
std::mutex g_held_mutex;
void* hold(size_t bytes) {
    Held* h = static_cast<Held*>(malloc(sizeof(Held) + (bytes ? bytes : 1)));
    if (!h) return nullptr;
    std::lock_guard<std::mutex> lock(g_held_mutex);
    h->prev = &g_held;
    h->next = g_held.next;
    g_held.next->prev = h;
    g_held.next = h;
    return h + 1;
}
void release(void* p) {
    if (!p) return;
    Held* h = static_cast<Held*>(p) - 1;
    {
        std::lock_guard<std::mutex> lock(g_held_mutex);
        h->prev->next = h->next;
        h->next->prev = h->prev;
    }
    free(h);
}
}  // namespace

extern "C" {

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

struct fake_cuda_counts {
    long launches, ctx_syncs, stream_syncs, async_copies, sync_copies, module_loads, streams_created;
    void* last_launch_stream;
    int last_launch_device;
    unsigned last_grid, last_block;
};
static struct fake_cuda_counts counts;
/* The tensor maps encoded since the last reset, the first 16 (what a test launched
 * asked TMA to read). */
struct fake_cuda_tensor_map {
    unsigned rank;
    uint64_t dims[5], strides[4];
    unsigned box[5];
    int type; /* CU_TENSOR_MAP_DATA_TYPE_* */
};
static struct fake_cuda_tensor_map tensor_maps[16];
static long tensor_map_count;
static int devices = 1;
static CUresult fail_next_sync = 0, fail_next_launch = 0;
static thread_local int current_device = -1;

/* The test's controls. */
void fake_cuda_counts(struct fake_cuda_counts* out) { *out = counts; }
void fake_cuda_reset(void) {
    memset(&counts, 0, sizeof counts);
    tensor_map_count = 0;
}
long fake_cuda_tensor_maps(struct fake_cuda_tensor_map* out, long capacity) {
    const long n = tensor_map_count < 16 ? tensor_map_count : 16;
    for (long i = 0; i < n && i < capacity; ++i) out[i] = tensor_maps[i];
    return n;
}
void fake_cuda_fail(CUresult at_next_sync, CUresult at_next_launch) {
    fail_next_sync = at_next_sync;
    fail_next_launch = at_next_launch;
}

/* FAKE_CUDA_REPORT=1: the counts on stderr when the process ends, for a tool run
 * against the fake (how many modules a `kiln fuzz` campaign loads, say). */
__attribute__((destructor)) static void report_counts(void) {
    if (!getenv("FAKE_CUDA_REPORT")) return;
    fprintf(stderr, "fake libcuda: %ld module loads, %ld launches, %ld context and %ld stream synchronisations, %ld+%ld copies (async+sync)\n",
            counts.module_loads, counts.launches, counts.ctx_syncs, counts.stream_syncs, counts.async_copies, counts.sync_copies);
}

static void* context_of(int device) { return (void*)(uintptr_t)(0x1000 + device); }

CUresult cuInit(unsigned flags) {
    (void)flags;
    const char* n = getenv("FAKE_CUDA_DEVICES");
    if (n) devices = atoi(n);
    return devices > 0 ? 0 : 100; /* CUDA_ERROR_NO_DEVICE */
}
CUresult cuDriverGetVersion(int* v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int* c) { *c = devices; return 0; }
CUresult cuDeviceGet(int* d, int ordinal) { *d = ordinal; return ordinal < devices ? 0 : 101; }
CUresult cuDeviceGetAttribute(int* v, int attribute, int dev) {
    (void)dev;
    switch (attribute) {
        case 16: *v = 132; break;             /* multiprocessors */
        case 75: *v = 9; break;               /* compute capability major */
        case 76: *v = 0; break;               /* minor */
        case 97: *v = 232448; break;          /* shared memory per block, opt-in */
        default: *v = 0;
    }
    return 0;
}
CUresult cuDeviceGetName(char* name, int len, int dev) {
    (void)dev;
    strncpy(name, "kiln fake device", (size_t)len);
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int dev) { *ctx = context_of(dev); return 0; }
CUresult cuCtxSetCurrent(void* ctx) { current_device = (int)((uintptr_t)ctx - 0x1000); return 0; }
CUresult cuCtxGetCurrent(void** ctx) { *ctx = current_device < 0 ? NULL : context_of(current_device); return 0; }
static CUresult take_sync_failure(void) {
    CUresult r = fail_next_sync;
    fail_next_sync = 0;
    return r;
}
CUresult cuCtxSynchronize(void) { ++counts.ctx_syncs; return take_sync_failure(); }
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) { *p = (CUdeviceptr)(uintptr_t)hold(bytes); return *p ? 0 : 2; }
CUresult cuMemFree_v2(CUdeviceptr p) { release((void*)(uintptr_t)p); return 0; }
/* Stream-ordered allocation (GEMM staging and workspaces): host memory, at once. */
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t bytes, void* st) { (void)st; *p = (CUdeviceptr)(uintptr_t)hold(bytes); return *p ? 0 : 2; }
CUresult cuMemFreeAsync(CUdeviceptr p, void* st) { (void)st; release((void*)(uintptr_t)p); return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void* s, size_t n) { ++counts.sync_copies; memcpy((void*)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void* d, CUdeviceptr s, size_t n) { ++counts.sync_copies; memcpy(d, (void*)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, size_t n, void* st) { (void)st; ++counts.async_copies; memcpy((void*)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, size_t n, void* st) { (void)st; ++counts.async_copies; memcpy(d, (void*)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, void* st) { (void)st; ++counts.async_copies; memcpy((void*)(uintptr_t)d, (void*)(uintptr_t)s, n); return 0; }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void* st) { (void)st; memset((void*)(uintptr_t)d, v, n); return 0; }
CUresult cuModuleLoadData(void** m, const void* image) { (void)image; ++counts.module_loads; *m = hold(1); return 0; }
CUresult cuModuleGetFunction(void** f, void* m, const char* name) { (void)name; *f = m; return 0; }
CUresult cuFuncSetAttribute(void* f, int a, int v) { (void)f; (void)a; (void)v; return 0; }
CUresult cuFuncGetAttribute(int* v, int a, void* f) { (void)a; (void)f; *v = 0; return 0; }
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared, void* stream,
                        void** params, void** extra) {
    (void)f; (void)gy; (void)gz; (void)by; (void)bz; (void)shared; (void)params; (void)extra;
    if (fail_next_launch) {
        CUresult r = fail_next_launch;
        fail_next_launch = 0;
        return r;
    }
    ++counts.launches;
    counts.last_launch_stream = stream;
    counts.last_launch_device = current_device;
    counts.last_grid = gx;
    counts.last_block = bx;
    return 0;
}
CUresult cuStreamSynchronize(void* s) { (void)s; ++counts.stream_syncs; return take_sync_failure(); }
CUresult cuStreamCreate(void** s, unsigned flags) { (void)flags; ++counts.streams_created; *s = hold(1); return 0; }
CUresult cuStreamDestroy_v2(void* s) { release(s); return 0; }
CUresult cuEventCreate(void** e, unsigned flags) { (void)flags; *e = hold(1); return 0; }
CUresult cuEventRecord(void* e, void* s) { (void)e; (void)s; return 0; }
CUresult cuEventSynchronize(void* e) { (void)e; return 0; }
CUresult cuEventElapsedTime_v2(float* ms, void* a, void* b) { (void)a; (void)b; *ms = 0; return 0; }
CUresult cuEventDestroy_v2(void* e) { release(e); return 0; }
CUresult cuGetErrorName(CUresult r, const char** text) {
    *text = r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : r == 719 ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
CUresult cuGetErrorString(CUresult r, const char** text) {
    *text = r == 700 ? "an illegal memory access was encountered" : "unspecified launch failure";
    return 0;
}
/* NVRTC looks for the driver's private tables; the fake has none. */
CUresult cuGetExportTable(const void** table, const void* id) {
    (void)id;
    *table = NULL;
    return 801; /* CUDA_ERROR_NOT_SUPPORTED */
}
CUresult cuTensorMapEncodeTiled(void* map, int type, unsigned rank, void* base, const uint64_t* dims, const uint64_t* strides,
                                const unsigned* box, const unsigned* element_strides, int interleave, int swizzle, int l2, int oob) {
    (void)l2;
    /* The driver's checks, as its documentation states them (CUDA driver API,
     * cuTensorMapEncodeTiled), so that a map a real driver would refuse is refused here
     * too rather than launched: CUDA_ERROR_INVALID_VALUE (1). */
    const int invalid = 1;
    static const unsigned element_bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4}; /* CU_TENSOR_MAP_DATA_TYPE_* */
    if (!map || reinterpret_cast<uintptr_t>(map) % 64 != 0) return invalid;
    if (type < 0 || type >= static_cast<int>(sizeof element_bytes / sizeof *element_bytes)) return invalid;
    const uint64_t eb = element_bytes[type];
    if (rank < 1 || rank > 5 || (interleave != 0 && rank < 3)) return invalid;
    if (reinterpret_cast<uintptr_t>(base) % (interleave == 2 ? 32 : 16) != 0) return invalid;
    for (unsigned i = 0; i < rank; ++i) {
        if (dims[i] == 0 || dims[i] > (uint64_t{1} << 32)) return invalid;
        if (box[i] == 0 || box[i] > 256) return invalid;
        if (element_strides[i] == 0 || element_strides[i] > 8) return invalid;
        if (i + 1 < rank && (strides[i] % (interleave == 2 ? 32 : 16) != 0 || strides[i] >= (uint64_t{1} << 40))) return invalid;
    }
    if (interleave == 0 && (box[0] * eb) % 16 != 0) return invalid;
    /* A swizzled box's inner dimension spans at most the swizzle (32, 64, 128 bytes). */
    if (interleave == 0 && swizzle >= 1 && swizzle <= 3 && box[0] * eb > (16u << swizzle)) return invalid;
    /* NaN fill is for floating-point kinds only. */
    if (oob == 1 && type <= 5) return invalid;
    memset(map, 0, 128);
    if (tensor_map_count < 16 && rank >= 1 && rank <= 5) {
        struct fake_cuda_tensor_map* m = &tensor_maps[tensor_map_count];
        memset(m, 0, sizeof *m);
        m->rank = rank;
        m->type = type;
        for (unsigned i = 0; i < rank; ++i) {
            m->dims[i] = dims[i];
            m->box[i] = box[i];
            if (i + 1 < rank) m->strides[i] = strides[i];
        }
    }
    ++tensor_map_count;
    return 0;
}

}  // extern "C"
