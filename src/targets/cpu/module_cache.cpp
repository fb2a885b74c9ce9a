// Loaded modules are never unloaded: a kernel may be running, and a process
// loads each distinct kernel once. Concurrent first launches of one key load or
// build it once (the slot's mutex; a failed build leaves the slot for the next
// caller). A cache that cannot take the kernel (read-only, full) costs only the
// caching: the kernel is built in a private temporary directory and loaded
// from there.
#include "targets/cpu/module_cache.h"

#include <dlfcn.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <kiln/error.h>

#include "cache/private_files.h"
#include "support/names.h"

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

// Where a source that failed to compile is kept for the bug report: a fresh
// private directory, so that no one else's file or symlink is ever written
// through. Says where, or why it could not be kept.
std::string save_failed_source(const std::string& key, const std::string& name, const std::string& source) {
    try {
        auto dir = cache::make_private_dir("kiln-failed");
        auto path = dir / ("kiln-cpu-" + support::file_name_part(name) + "-" + key.substr(0, 16) + ".cpp");
        cache::write_new_file(path, source);
        return "the generated source is saved in " + path.string();
    } catch (const cache::IoError& e) {
        return "the generated source could not be saved (" + e.detail() + ")";
    }
}

// The source into `dir`, compiled there into kernel.so. A compiler that fails
// on a trivial program too is not failing because of kiln's source: that is an
// environmental error (no compiler that works, a full disk, a killed process);
// otherwise kiln generated code its compiler rejects, a bug in kiln.
void compile_in(const std::filesystem::path& dir, const std::string& key, const std::string& source, const std::string& name,
                const HostCompiler& compiler) {
    cache::write_new_file(dir / "kernel.cpp", source);
    std::string log;
    if (compile_shared_object(compiler, dir / "kernel.cpp", dir / "kernel.so", &log)) return;
    std::string probe_log;
    if (!builds_trivial_object(compiler, dir, &probe_log))
        throw Error("cpu target: cannot compile kernel '" + name + "': the host compiler (" + compiler.command_text() +
                    ") fails on a trivial program too, so the machine or the compiler is at fault, not the kernel: " +
                    (probe_log.empty() ? "it printed nothing" : probe_log));
    internal_fail("cpu target: the host compiler rejected the generated source of kernel '" + name + "' (" + compiler.version() + "); " +
                  save_failed_source(key, name, source) + "\n" + log);
}

// Loads the shared object of a verified cache entry.
Module open_module(const std::filesystem::path& entry) {
    std::string so = (entry / "kernel.so").string();
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    // A verified entry that does not load: no memory, or a temporary directory
    // mounted noexec; the machine's doing, said as the loader says it.
    if (!handle) throw Error("cpu target: cannot load " + so + ": " + dlerror());
    Module m;
    m.grid = reinterpret_cast<kiln_cpu::GridFn>(dlsym(handle, "kiln_grid"));
    m.run = reinterpret_cast<kiln_cpu::RunFn>(dlsym(handle, "kiln_run"));
    if (!m.grid || !m.run) internal_fail("cpu target: " + so + " lacks kiln_grid or kiln_run");
    return m;
}

Module build(const cache::DiskCache* disk, const std::string& key, const std::string& source, const std::string& name,
             const HostCompiler& compiler) {
    bool compiled = false;
    double seconds = 0;
    auto produce = [&](const std::filesystem::path& dir) {
        auto start = std::chrono::steady_clock::now();
        compile_in(dir, key, source, name, compiler);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        compiled = true;
    };
    std::optional<std::filesystem::path> entry;
    if (disk) entry = disk->find(key);
    if (disk && !entry) entry = disk->try_publish(key, produce);
    Module m;
    if (entry) {
        m = open_module(*entry);
    } else {  // no cache to put it in: built and loaded where no one else can write
        try {
            cache::ScratchDir scratch("kiln-cpu");
            produce(scratch.path());
            m = open_module(scratch.path());
        } catch (const cache::IoError& e) {
            throw Error("cpu target: cannot build kernel '" + name + "': " + e.detail());
        }
    }
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

const Module* find_module(const cache::DiskCache* disk, const std::string& key) {
    return in_slot(key, [&]() -> std::optional<Module> {
        auto entry = disk ? disk->find(key) : std::nullopt;
        if (!entry) return std::nullopt;
        Module m = open_module(*entry);
        std::lock_guard<std::mutex> g(g_mutex);
        ++g_stats.disk_hits;
        return m;
    });
}

const Module& load_module(const cache::DiskCache* disk, const std::string& key, const std::string& source, const std::string& kernel_name,
                          const HostCompiler& compiler) {
    return *in_slot(key, [&] { return std::optional<Module>(build(disk, key, source, kernel_name, compiler)); });
}

namespace {

// Where every generated source's kernel part begins (emit_cpp.cpp): what comes
// before is the prelude, the same text for every kernel.
constexpr std::string_view kKernelPart = "\n// ---- kernel\n";

}  // namespace

int load_batch(const std::vector<BatchSource>& sources, const HostCompiler& compiler) {
    std::vector<const BatchSource*> todo;
    {
        std::lock_guard<std::mutex> g(g_mutex);
        for (const BatchSource& b : sources) {
            auto it = g_slots.find(b.key);
            if (it == g_slots.end() || !it->second->loaded) todo.push_back(&b);
        }
    }
    if (todo.empty()) return 0;
    // The shared prelude once (each source's own first line is its kernel's comment).
    const std::string& first = todo.front()->source;
    const auto head = first.find('\n') + 1, cut = first.find(kKernelPart);
    if (cut == std::string::npos) internal_fail("cpu target: a generated source without its kernel part");
    const std::string prelude = first.substr(head, cut - head);
    std::string text = "// kiln cpu kernels: a batch of " + std::to_string(todo.size()) + " generated sources sharing one prelude.\n" + prelude;
    for (std::size_t k = 0; k < todo.size(); ++k) {
        const std::string& src = todo[k]->source;
        const auto at = src.find(kKernelPart);
        if (at == std::string::npos || src.compare(src.find('\n') + 1, at - (src.find('\n') + 1), prelude) != 0)
            internal_fail("cpu target: the sources of a batch do not share their prelude");
        const std::string n = std::to_string(k);
        text += "\n#define kiln_grid kiln_grid_" + n + "\n#define kiln_run kiln_run_" + n + "\nnamespace kiln_batch_" + n + " {" +
                src.substr(at) + "}  // namespace kiln_batch_" + n + "\n#undef kiln_grid\n#undef kiln_run\n";
    }
    const auto start = std::chrono::steady_clock::now();
    void* handle = nullptr;
    try {
        cache::ScratchDir scratch("kiln-cpu-batch");
        cache::write_new_file(scratch.path() / "kernel.cpp", text);
        std::string log;
        // A batch the compiler rejects is built kernel by kernel instead (load_module),
        // which names the one at fault.
        if (!compile_shared_object(compiler, scratch.path() / "kernel.cpp", scratch.path() / "kernel.so", &log)) return 0;
        const std::string so = (scratch.path() / "kernel.so").string();
        handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);  // stays mapped once the scratch directory is gone
        if (!handle) throw Error("cpu target: cannot load " + so + ": " + dlerror());
    } catch (const cache::IoError& e) {
        throw Error("cpu target: cannot build a batch of kernels: " + e.detail());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t k = 0; k < todo.size(); ++k) {
        Module m;
        m.grid = reinterpret_cast<kiln_cpu::GridFn>(dlsym(handle, ("kiln_grid_" + std::to_string(k)).c_str()));
        m.run = reinterpret_cast<kiln_cpu::RunFn>(dlsym(handle, ("kiln_run_" + std::to_string(k)).c_str()));
        if (!m.grid || !m.run) internal_fail("cpu target: a batch lacks the entry points of kernel " + std::to_string(k));
        in_slot(todo[k]->key, [&] { return std::optional<Module>(m); });
    }
    std::lock_guard<std::mutex> g(g_mutex);
    g_stats.compiled += static_cast<std::int64_t>(todo.size());
    g_stats.compile_seconds += seconds;
    ++g_stats.batches;
    return static_cast<int>(todo.size());
}

ModuleStats module_stats() {
    std::lock_guard<std::mutex> g(g_mutex);
    return g_stats;
}

}  // namespace kiln::native
