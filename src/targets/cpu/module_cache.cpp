#include "targets/cpu/module_cache.h"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace kiln::native {

namespace {

// The entry points of a loaded object, looked up once per key.
const Module& module_of(const std::string& key, const SharedObject& o) {
    static std::mutex mutex;
    static std::unordered_map<std::string, std::unique_ptr<Module>> modules;
    std::lock_guard<std::mutex> g(mutex);
    auto& m = modules[key];
    if (!m) {
        m = std::make_unique<Module>();
        m->grid = reinterpret_cast<kiln_cpu::GridFn>(o.symbol("kiln_grid"));
        m->run = reinterpret_cast<kiln_cpu::RunFn>(o.symbol("kiln_run"));
    }
    return *m;
}

}  // namespace

const Module* find_module(const cache::DiskCache* disk, const std::string& key) {
    const SharedObject* o = find_shared_object(disk, key);
    return o ? &module_of(key, *o) : nullptr;
}

const Module& load_module(const cache::DiskCache* disk, const std::string& key, const std::string& source, const std::string& kernel_name,
                          const HostCompiler& compiler) {
    BuildRequest r;
    r.target = "cpu";
    r.kernel_name = kernel_name;
    r.files = {{"kernel.cpp", source}};
    return module_of(key, load_shared_object(disk, key, r, compiler));
}

}  // namespace kiln::native
