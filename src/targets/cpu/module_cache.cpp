// Loaded modules are never unloaded: a kernel may be running, and a process
// loads each distinct kernel once. Concurrent first launches of one key load or
// build it once (the slot's mutex; a failed build leaves the slot for the next
// caller).
#include "targets/cpu/module_cache.h"

#include <dlfcn.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <kiln/error.h>

namespace kiln::native {

namespace {

struct Slot {
    std::mutex mutex;
    bool loaded = false;
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

// Loads the shared object of a verified cache entry.
Module open_module(const std::filesystem::path& entry) {
    std::string so = (entry / "kernel.so").string();
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) internal_fail("cpu target: cannot load " + so + ": " + dlerror());
    Module m;
    m.grid = reinterpret_cast<kiln_cpu::GridFn>(dlsym(handle, "kiln_grid"));
    m.run = reinterpret_cast<kiln_cpu::RunFn>(dlsym(handle, "kiln_run"));
    if (!m.grid || !m.run) internal_fail("cpu target: " + so + " lacks kiln_grid or kiln_run");
    return m;
}

Module build(const cache::DiskCache& disk, const std::string& key, const std::string& source, const std::string& name,
             const HostCompiler& compiler) {
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
    Module m = open_module(entry);
    std::lock_guard<std::mutex> g(g_mutex);
    (compiled ? g_stats.compiled : g_stats.disk_hits) += 1;
    g_stats.compile_seconds += seconds;
    return m;
}

// The module in `key`'s slot, filled by `make` unless already loaded (`make`
// returning nullopt leaves it empty: then null).
const Module* in_slot(const std::string& key, const std::function<std::optional<Module>()>& make) {
    std::shared_ptr<Slot> slot;
    {
        std::lock_guard<std::mutex> g(g_mutex);
        auto& s = g_slots[key];
        if (!s) s = std::make_shared<Slot>();
        slot = s;
    }
    std::lock_guard<std::mutex> g(slot->mutex);
    if (slot->loaded) {
        std::lock_guard<std::mutex> stats(g_mutex);
        ++g_stats.memory_hits;
        return &slot->module;
    }
    std::optional<Module> m = make();
    if (!m) return nullptr;
    slot->module = *m;
    slot->loaded = true;
    return &slot->module;
}

}  // namespace

const Module* find_module(const cache::DiskCache& disk, const std::string& key) {
    return in_slot(key, [&]() -> std::optional<Module> {
        auto entry = disk.find(key);
        if (!entry) return std::nullopt;
        Module m = open_module(*entry);
        std::lock_guard<std::mutex> g(g_mutex);
        ++g_stats.disk_hits;
        return m;
    });
}

const Module& load_module(const cache::DiskCache& disk, const std::string& key, const std::string& source, const std::string& kernel_name,
                          const HostCompiler& compiler) {
    return *in_slot(key, [&] { return std::optional<Module>(build(disk, key, source, kernel_name, compiler)); });
}

ModuleStats module_stats() {
    std::lock_guard<std::mutex> g(g_mutex);
    return g_stats;
}

}  // namespace kiln::native
