#include "targets/cuda/staging_kernels.h"

#include <map>
#include <mutex>

#include "targets/common/embedded_text.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/kernel_cache.h"

namespace kiln::cu {

namespace {

struct Loaded {
    StagingKernels kernels;
    std::string why;  // empty: loaded
};

std::mutex g_mutex;
std::map<const Device*, Loaded> g_loaded;  // by device (devices live as long as the process)

Loaded load(const Device& d) {
    Loaded l;
    try {
        const auto module = compiled_module("the GEMM operand staging kernels", staging_module_source(), d.arch());
        make_current(d);
        CUmodule m = nullptr;
        check(d, d.api.cuModuleLoadData(&m, module->cubin.data()), "loading the GEMM operand staging kernels");
        check(d, d.api.cuModuleGetFunction(&l.kernels.pack_rows, m, kPackRowsEntry), "finding the GEMM operand packing kernel");
        check(d, d.api.cuModuleGetFunction(&l.kernels.transpose_bytes, m, kTransposeBytesEntry), "finding the GEMM operand transposing kernel");
        check(d, d.api.cuModuleGetFunction(&l.kernels.transpose_words, m, kTransposeWordsEntry), "finding the GEMM operand transposing kernel");
    } catch (const Error& e) {
        l = Loaded{};
        l.why = e.what();
    }
    return l;
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
    // Held across the compile: two launches that stage at once compile it once.
    std::lock_guard<std::mutex> lock(g_mutex);
    auto at = g_loaded.find(&d);
    if (at == g_loaded.end()) at = g_loaded.emplace(&d, load(d)).first;
    if (!at->second.why.empty()) {
        if (why) *why = at->second.why;
        return nullptr;
    }
    return &at->second.kernels;
}

bool staging_kernels_failed(const Device& d) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto at = g_loaded.find(&d);
    return at != g_loaded.end() && !at->second.why.empty();
}

}  // namespace kiln::cu
