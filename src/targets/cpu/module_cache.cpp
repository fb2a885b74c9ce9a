// A module is a shared object's two entry points, looked up once per key and
// kept for the process (objects are never unloaded: a kernel may be running).
#include "targets/cpu/module_cache.h"

#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include <kiln/error.h>

namespace kiln::native {

namespace {

std::mutex g_mutex;
std::unordered_map<std::string, std::unique_ptr<const Module>> g_modules;

// The module of a loaded object, its entry points found once.
const Module& module_of(const std::string& key, const SharedObject& o) {
    std::lock_guard<std::mutex> g(g_mutex);
    auto& m = g_modules[key];
    if (!m) {
        auto made = std::make_unique<Module>();
        made->grid = reinterpret_cast<kiln_cpu::GridFn>(o.symbol("kiln_grid"));
        made->run = reinterpret_cast<kiln_cpu::RunFn>(o.symbol("kiln_run"));
        m = std::move(made);
    }
    return *m;
}

BuildRequest request(const std::string& source, const std::string& kernel_name) {
    BuildRequest r;
    r.target = "cpu";
    r.kernel_name = kernel_name;
    r.files = {{"kernel.cpp", source}};
    return r;
}

// Where every generated source's kernel part begins (emit_cpp.cpp): what comes
// before is the prelude, the same text for every kernel.
constexpr std::string_view kKernelPart = "\n// ---- kernel\n";

}  // namespace

const Module* find_module(const cache::DiskCache* disk, const std::string& key) {
    const SharedObject* o = find_shared_object(disk, key);
    return o ? &module_of(key, *o) : nullptr;
}

const Module& load_module(const cache::DiskCache* disk, const std::string& key, const std::string& source, const std::string& kernel_name,
                          const HostCompiler& compiler) {
    return module_of(key, load_shared_object(disk, key, request(source, kernel_name), compiler));
}

int load_module_batch(const std::vector<BatchSource>& sources, const HostCompiler& compiler) {
    std::vector<const BatchSource*> todo;
    for (const BatchSource& b : sources)
        if (!is_loaded(b.key)) todo.push_back(&b);
    if (todo.size() < 2) return 0;  // one kernel builds as well alone, into the cache
    // The shared prelude once (each source's own first line is its kernel's comment).
    const std::string& first = todo.front()->source;
    const auto head = first.find('\n') + 1, cut = first.find(kKernelPart);
    if (cut == std::string::npos) internal_fail("cpu target: a generated source without its kernel part");
    const std::string prelude = first.substr(head, cut - head);
    std::string text = "// kiln cpu kernels: a batch of " + std::to_string(todo.size()) + " generated sources sharing one prelude.\n" + prelude;
    std::vector<std::string> keys;
    for (std::size_t k = 0; k < todo.size(); ++k) {
        const std::string& src = todo[k]->source;
        const auto at = src.find(kKernelPart);
        if (at == std::string::npos || src.compare(src.find('\n') + 1, at - (src.find('\n') + 1), prelude) != 0)
            internal_fail("cpu target: the sources of a batch do not share their prelude");
        const std::string n = std::to_string(k);
        text += "\n#define kiln_grid kiln_grid_" + n + "\n#define kiln_run kiln_run_" + n + "\nnamespace kiln_batch_" + n + " {" +
                src.substr(at) + "}  // namespace kiln_batch_" + n + "\n#undef kiln_grid\n#undef kiln_run\n";
        keys.push_back(todo[k]->key);
    }
    return load_batch(keys, request(text, "a batch of " + std::to_string(todo.size())), compiler) ? static_cast<int>(todo.size()) : 0;
}

}  // namespace kiln::native
