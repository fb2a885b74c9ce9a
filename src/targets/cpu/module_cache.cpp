// Loaded modules are never unloaded: a kernel may be running, and a process
// loads each distinct kernel once. Concurrent first launches of one key build it
// once (std::call_once; a failed build leaves the slot for the next caller).
#include "targets/cpu/module_cache.h"

#include <dlfcn.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <kiln/error.h>

#include "cache/disk_cache.h"

namespace kiln::native {

namespace {

struct Slot {
    std::once_flag once;
    Module module;
};

std::mutex g_mutex;
std::unordered_map<std::string, std::shared_ptr<Slot>> g_slots;
ModuleStats g_stats;

void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) throw Error("cpu target: cannot write " + path.string());
}

// Where a source that failed to compile is kept for the bug report.
std::filesystem::path save_failed_source(const std::string& key, const std::string& name, const std::string& source) {
    auto path = std::filesystem::temp_directory_path() / ("kiln-cpu-" + name + "-" + key.substr(0, 16) + ".cpp");
    write_file(path, source);
    return path;
}

Module build(const std::string& key, const std::string& source, const std::string& name, const HostCompiler& compiler) {
    const cache::DiskCache disk = cache::DiskCache::open();
    bool compiled = false;
    double seconds = 0;
    std::filesystem::path entry = disk.get_or_build(key, [&](const std::filesystem::path& staging) {
        write_file(staging / "kernel.cpp", source);
        std::string log;
        auto start = std::chrono::steady_clock::now();
        bool ok = compile_shared_object(compiler, staging / "kernel.cpp", staging / "kernel.so", &log);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!ok)
            internal_fail("cpu target: the host compiler rejected the generated source of kernel '" + name + "' (" +
                          compiler.version() + "). Source: " + save_failed_source(key, name, source).string() + "\n" + log);
        compiled = true;
    });
    std::string so = (entry / "kernel.so").string();
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) internal_fail("cpu target: cannot load " + so + ": " + dlerror());
    Module m;
    m.grid = reinterpret_cast<kiln_cpu::GridFn>(dlsym(handle, "kiln_grid"));
    m.run = reinterpret_cast<kiln_cpu::RunFn>(dlsym(handle, "kiln_run"));
    if (!m.grid || !m.run) internal_fail("cpu target: " + so + " lacks kiln_grid or kiln_run");
    std::lock_guard<std::mutex> g(g_mutex);
    (compiled ? g_stats.compiled : g_stats.disk_hits) += 1;
    g_stats.compile_seconds += seconds;
    return m;
}

}  // namespace

const Module& load_module(const std::string& key, const std::string& source, const std::string& kernel_name, const HostCompiler& compiler) {
    std::shared_ptr<Slot> slot;
    {
        std::lock_guard<std::mutex> g(g_mutex);
        auto& s = g_slots[key];
        if (!s) s = std::make_shared<Slot>();
        slot = s;
    }
    bool built = false;
    std::call_once(slot->once, [&] {
        slot->module = build(key, source, kernel_name, compiler);
        built = true;
    });
    if (!built) {
        std::lock_guard<std::mutex> g(g_mutex);
        ++g_stats.memory_hits;
    }
    return slot->module;
}

ModuleStats module_stats() {
    std::lock_guard<std::mutex> g(g_mutex);
    return g_stats;
}

}  // namespace kiln::native
