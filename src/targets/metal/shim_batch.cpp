#include "targets/metal/shim_batch.h"

#include <dlfcn.h>

#include <mutex>
#include <string_view>
#include <unordered_map>

#include <kiln/error.h>

#include "cache/private_files.h"
#include "targets/common/embedded_text.h"
#include "targets/metal/emit_msl.h"

namespace kiln::mtl {

namespace {

std::mutex g_mutex;
std::unordered_map<std::string, ShimRunFn> g_built;  // by kernel key; batches are never unloaded

constexpr std::string_view kKernelPart = "\n// ---- kernel\n";  // emit_msl.cpp

// Kernel k of a batch: its MSL after the prelude and its glue, in their own namespace.
std::string batch_member(const BatchKernel& b, std::size_t k) {
    const auto at = b.msl.find(kKernelPart);
    if (at == std::string::npos || at < msl_prelude().size() || b.msl.compare(at - msl_prelude().size(), msl_prelude().size(), msl_prelude()) != 0)
        internal_fail("metal shim: a kernel's MSL does not have the prelude just before its kernel part");
    const std::string n = std::to_string(k);
    return "\nnamespace kiln_batch_" + n + " {" + b.msl.substr(at) + "\n#define kiln_metal_run kiln_metal_run_" + n + "\n" + b.glue_body +
           "#undef kiln_metal_run\n}  // namespace kiln_batch_" + n + "\n";
}

}  // namespace

ShimRunFn find_in_batches(const std::string& key) {
    std::lock_guard<std::mutex> g(g_mutex);
    auto it = g_built.find(key);
    return it == g_built.end() ? nullptr : it->second;
}

int build_shim_batch(const std::vector<BatchKernel>& kernels, const native::HostCompiler& compiler) {
    std::vector<const BatchKernel*> todo;
    {
        std::lock_guard<std::mutex> g(g_mutex);
        for (const BatchKernel& b : kernels)
            if (!g_built.count(b.key)) todo.push_back(&b);
    }
    if (todo.size() < 2) return 0;  // one kernel builds as well alone, into the cache
    std::string text = "// kiln's Metal shim: a batch of " + std::to_string(todo.size()) +
                       " kernels, each kernel's MSL after the shared prelude with its glue (shim_batch.h).\n" + msl_prelude();
    for (std::size_t k = 0; k < todo.size(); ++k) text += batch_member(*todo[k], k);
    void* handle = nullptr;
    try {
        cache::ScratchDir scratch("kiln-metal-batch");
        cache::write_new_file(scratch.path() / "kernel.cpp", text);
        cache::write_new_file(scratch.path() / "metal_stdlib", std::string(embedded::metal_stdlib()));
        std::vector<std::string> flags = shim_flags();
        flags.push_back("-I" + scratch.path().string());
        std::string log;
        if (!native::compile_shared_object(compiler, scratch.path() / "kernel.cpp", scratch.path() / "kernel.so", &log, flags)) return 0;
        const std::string so = (scratch.path() / "kernel.so").string();
        handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);  // stays mapped once the scratch directory is gone
        if (!handle) throw Error("metal target: cannot load " + so + ": " + dlerror());
    } catch (const cache::IoError& e) {
        throw Error("metal target: cannot build a batch of kernels: " + e.detail());
    }
    std::vector<ShimRunFn> runs(todo.size());
    for (std::size_t k = 0; k < todo.size(); ++k) {
        runs[k] = reinterpret_cast<ShimRunFn>(dlsym(handle, ("kiln_metal_run_" + std::to_string(k)).c_str()));
        if (!runs[k]) internal_fail("metal shim: a batch lacks the entry point of kernel " + std::to_string(k));
    }
    std::lock_guard<std::mutex> g(g_mutex);
    for (std::size_t k = 0; k < todo.size(); ++k) g_built.emplace(todo[k]->key, runs[k]);
    return static_cast<int>(todo.size());
}

}  // namespace kiln::mtl
