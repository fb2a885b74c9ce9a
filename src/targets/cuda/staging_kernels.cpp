#include "targets/cuda/staging_kernels.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include "targets/common/embedded_text.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/kernel_cache.h"

namespace kiln::cu {

namespace {

// A device's kernels: loaded once (the first caller compiles or reads them while the
// others wait); `failed` is read without waiting, at every GEMM launch.
struct PerDevice {
    std::once_flag once;
    StagingKernels kernels;
    std::string why;  // empty: loaded
    std::atomic<bool> failed{false};
};

std::mutex g_mutex;  // guards g_devices (not the loading)
std::map<const Device*, std::unique_ptr<PerDevice>> g_devices;

PerDevice& per_device(const Device& d) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto& p = g_devices[&d];
    if (!p) p = std::make_unique<PerDevice>();
    return *p;
}

void load(const Device& d, PerDevice& p) {
    try {
        const auto module = compiled_module("the GEMM operand staging kernels", staging_module_source(), d.arch());
        make_current(d);
        CUmodule m = nullptr;
        check(d, d.api.cuModuleLoadData(&m, module->cubin.data()), "loading the GEMM operand staging kernels");
        check(d, d.api.cuModuleGetFunction(&p.kernels.pack_rows, m, kPackRowsEntry), "finding the GEMM operand packing kernel");
        check(d, d.api.cuModuleGetFunction(&p.kernels.transpose_bytes, m, kTransposeBytesEntry), "finding the GEMM operand transposing kernel");
        check(d, d.api.cuModuleGetFunction(&p.kernels.transpose_words, m, kTransposeWordsEntry), "finding the GEMM operand transposing kernel");
    } catch (const Error& e) {
        p.kernels = StagingKernels{};
        p.why = e.what();
        p.failed = true;
    }
}

}  // namespace

std::string staging_module_source() {
    auto entry = [](const char* name, const char* element, const char* body) {
        return std::string("extern \"C\" __global__ void __launch_bounds__(") + std::to_string(kPackThreads) + ") " + name + "(const " + element +
               "* src, long long src_stride, " + element + "* dst, long long dst_stride, long long rows, long long cols, long long e0, "
               "long long e1, long long e2, long long s0, long long s1, long long s2) {\n    kg::" + body +
               "(src, src_stride, dst, dst_stride, rows, cols, kg::PackLeads{{e0, e1, e2}, {s0, s1, s2}});\n}\n";
    };
    return std::string(embedded::operand_staging_cuh()) + "\n" + entry(kPackRowsEntry, "unsigned short", "pack_rows") +
           entry(kTransposeBytesEntry, "unsigned char", "transpose_bytes") + entry(kTransposeWordsEntry, "unsigned", "transpose_words");
}

const StagingKernels* staging_kernels(const Device& d, std::string* why) {
    PerDevice& p = per_device(d);
    std::call_once(p.once, [&] { load(d, p); });
    if (p.failed) {
        if (why) *why = p.why;
        return nullptr;
    }
    return &p.kernels;
}

bool staging_kernels_failed(const Device& d) { return per_device(d).failed; }

}  // namespace kiln::cu
