#include "targets/cuda/staging_kernels.h"

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "targets/common/embedded_text.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/kernel_cache.h"

namespace kiln::cu {

namespace {

// One kernel on one device: loaded once (the first caller compiles or reads it while
// the others wait); `failed` is read without waiting, at every GEMM launch.
struct Slot {
    std::once_flag once;
    CUfunction function = nullptr;
    std::string why;  // empty: loaded
    std::atomic<bool> failed{false};
};
using PerDevice = std::array<Slot, kStagingKernels>;

std::mutex g_mutex;  // guards g_devices (not the loading)
std::map<const Device*, std::unique_ptr<PerDevice>> g_devices;

Slot& slot(const Device& d, StagingKernel k) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto& p = g_devices[&d];
    if (!p) p = std::make_unique<PerDevice>();
    return (*p)[static_cast<int>(k)];
}

struct Described {
    const char* entry;
    const char* element;   // the element type the kernel's pointers take
    const char* body;      // the kg:: function it calls
    const char* purpose;   // for errors
};

Described describe(StagingKernel k) {
    switch (k) {
        case StagingKernel::pack_rows: return {"kiln_stage_pack_rows", "unsigned short", "pack_rows", "the GEMM operand packing kernel"};
        case StagingKernel::transpose_bytes:
            return {"kiln_stage_transpose_bytes", "unsigned char", "transpose_bytes", "the GEMM 8-bit operand transposing kernel"};
        case StagingKernel::transpose_words:
            return {"kiln_stage_transpose_words", "unsigned", "transpose_words", "the GEMM tf32 operand transposing kernel"};
    }
    internal_fail("staging_kernels: an unknown staging kernel");
}

void load(const Device& d, StagingKernel k, Slot& s) {
    const Described what = describe(k);
    try {
        const auto module = compiled_module(what.purpose, staging_module_source(k), d.arch());
        make_current(d);
        CUmodule m = nullptr;
        check(d, d.api.cuModuleLoadData(&m, module->cubin.data()), std::string("loading ") + what.purpose);
        check(d, d.api.cuModuleGetFunction(&s.function, m, what.entry), std::string("finding ") + what.purpose);
    } catch (const Error& e) {
        s.function = nullptr;
        s.why = e.what();
        s.failed = true;
    }
}

}  // namespace

const char* staging_entry(StagingKernel k) { return describe(k).entry; }

std::string staging_module_source(StagingKernel k) {
    // The header holds the three kernels' bodies as inline device functions; NVVM
    // drops the two this module does not call, so parsing them is all they cost.
    const Described what = describe(k);
    const std::string element = what.element;
    return std::string(embedded::operand_staging_cuh()) + "\nextern \"C\" __global__ void __launch_bounds__(" + std::to_string(kPackThreads) + ") " +
           what.entry + "(const " + element + "* src, long long src_stride, " + element +
           "* dst, long long dst_stride, long long rows, long long cols, long long e0, long long e1, long long e2, long long s0, long long s1, "
           "long long s2) {\n    kg::" +
           what.body + "(src, src_stride, dst, dst_stride, rows, cols, kg::PackLeads{{e0, e1, e2}, {s0, s1, s2}});\n}\n";
}

CUfunction staging_kernel(const Device& d, StagingKernel k, std::string* why) {
    Slot& s = slot(d, k);
    std::call_once(s.once, [&] { load(d, k, s); });
    if (s.failed) {
        if (why) *why = s.why;
        return nullptr;
    }
    return s.function;
}

bool staging_kernel_failed(const Device& d, StagingKernel k) { return slot(d, k).failed; }

}  // namespace kiln::cu
