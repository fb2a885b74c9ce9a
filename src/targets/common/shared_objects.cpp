// Loaded objects are never unloaded: a kernel may be running, and a process
// loads each distinct kernel once. Concurrent first requests for one key load or
// build it once (the slot's mutex; a failed build leaves the slot for the next
// caller). A cache that cannot take the object (read-only, full) costs only the
// caching: it is built in a private temporary directory and loaded from there.
#include "targets/common/shared_objects.h"

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
    SharedObject object;
};

std::mutex g_mutex;
std::unordered_map<std::string, std::shared_ptr<Slot>> g_slots;
SharedObjectStats g_stats;

// Where the files of a build that failed are kept for the bug report: a fresh
// private directory, so that no one else's file or symlink is ever written
// through. Says where, or why they could not be kept.
std::string save_failed_files(const std::string& key, const BuildRequest& r) {
    try {
        auto dir = cache::make_private_dir("kiln-failed");
        // kiln-<target>-<kernel>-<key>.cpp; with several files, each with its own name after the key.
        const std::string stem = "kiln-" + r.target + "-" + support::file_name_part(r.kernel_name) + "-" + key.substr(0, 16);
        auto saved = [&](const std::string& name) {
            return r.files.size() == 1 ? stem + std::filesystem::path(name).extension().string() : stem + "-" + name;
        };
        for (const auto& [name, text] : r.files) cache::write_new_file(dir / saved(name), text);
        return "the generated source is saved in " + (dir / saved(r.files.front().first)).string();
    } catch (const cache::IoError& e) {
        return "the generated source could not be saved (" + e.detail() + ")";
    }
}

// The request's files into `dir`, the first compiled there into kernel.so. A
// compiler that fails on a trivial program too is not failing because of kiln's
// source: that is an environmental error (no compiler that works, a full disk, a
// killed process); otherwise kiln generated code its compiler rejects, a bug in kiln.
void compile_in(const std::filesystem::path& dir, const std::string& key, const BuildRequest& r, const HostCompiler& compiler) {
    for (const auto& [name, text] : r.files) cache::write_new_file(dir / name, text);
    std::vector<std::string> flags = r.flags;
    if (r.include_build_dir) flags.push_back("-I" + dir.string());
    std::string log;
    if (compile_shared_object(compiler, dir / r.files.front().first, dir / "kernel.so", &log, flags)) return;
    std::string probe_log;
    if (!builds_trivial_object(compiler, dir, &probe_log))
        throw Error(r.target + " target: cannot compile kernel '" + r.kernel_name + "': the host compiler (" + compiler.command_text() +
                    ") fails on a trivial program too, so the machine or the compiler is at fault, not the kernel: " +
                    (probe_log.empty() ? "it printed nothing" : probe_log));
    internal_fail(r.target + " target: the host compiler rejected the generated source of kernel '" + r.kernel_name + "' (" + compiler.version() +
                  "); " + save_failed_files(key, r) + "\n" + log);
}

// Loads the shared object of a verified cache entry (or a private build).
SharedObject open_object(const std::filesystem::path& entry) {
    SharedObject o;
    o.path = (entry / "kernel.so").string();
    o.handle = dlopen(o.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    // A verified entry that does not load: no memory, or a temporary directory
    // mounted noexec; the machine's doing, said as the loader says it.
    if (!o.handle) throw Error("cannot load " + o.path + ": " + dlerror());
    return o;
}

SharedObject build(const cache::DiskCache* disk, const std::string& key, const BuildRequest& r, const HostCompiler& compiler) {
    bool compiled = false;
    double seconds = 0;
    auto produce = [&](const std::filesystem::path& dir) {
        auto start = std::chrono::steady_clock::now();
        compile_in(dir, key, r, compiler);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        compiled = true;
    };
    std::optional<std::filesystem::path> entry;
    if (disk) entry = disk->find(key);
    if (disk && !entry) entry = disk->try_publish(key, produce);
    SharedObject o;
    if (entry) {
        o = open_object(*entry);
    } else {  // no cache to put it in: built and loaded where no one else can write
        try {
            cache::ScratchDir scratch("kiln-" + r.target);
            produce(scratch.path());
            o = open_object(scratch.path());
        } catch (const cache::IoError& e) {
            throw Error(r.target + " target: cannot build kernel '" + r.kernel_name + "': " + e.detail());
        }
    }
    std::lock_guard<std::mutex> g(g_mutex);
    (compiled ? g_stats.compiled : g_stats.disk_hits) += 1;
    g_stats.compile_seconds += seconds;
    return o;
}

// The object in `key`'s slot, filled by `make` unless already loaded (`make`
// returning nullopt leaves it empty: then null).
const SharedObject* in_slot(const std::string& key, const std::function<std::optional<SharedObject>()>& make) {
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
        return &slot->object;
    }
    std::optional<SharedObject> o = make();
    if (!o) return nullptr;
    slot->object = *o;
    slot->loaded = true;
    return &slot->object;
}

}  // namespace

void* SharedObject::symbol(const char* name) const {
    const std::string full = name + suffix;
    void* s = dlsym(handle, full.c_str());
    if (!s) internal_fail(path + " lacks " + full);
    return s;
}

bool load_batch(const std::vector<std::string>& keys, const BuildRequest& r, const HostCompiler& compiler) {
    const auto start = std::chrono::steady_clock::now();
    SharedObject batch;
    try {
        cache::ScratchDir scratch("kiln-" + r.target + "-batch");
        for (const auto& [name, text] : r.files) cache::write_new_file(scratch.path() / name, text);
        std::vector<std::string> flags = r.flags;
        if (r.include_build_dir) flags.push_back("-I" + scratch.path().string());
        std::string log;
        if (!compile_shared_object(compiler, scratch.path() / r.files.front().first, scratch.path() / "kernel.so", &log, flags)) return false;
        batch = open_object(scratch.path());  // stays mapped once the scratch directory is gone
    } catch (const cache::IoError& e) {
        throw Error(r.target + " target: cannot build a batch of kernels: " + e.detail());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t k = 0; k < keys.size(); ++k) {
        SharedObject o = batch;
        o.suffix = "_" + std::to_string(k);
        in_slot(keys[k], [&] { return std::optional<SharedObject>(o); });
    }
    std::lock_guard<std::mutex> g(g_mutex);
    g_stats.compiled += static_cast<std::int64_t>(keys.size());
    g_stats.compile_seconds += seconds;
    ++g_stats.batches;
    return true;
}

bool is_loaded(const std::string& key) {
    std::shared_ptr<Slot> slot;
    {
        std::lock_guard<std::mutex> g(g_mutex);
        auto it = g_slots.find(key);
        if (it == g_slots.end()) return false;
        slot = it->second;
    }
    std::lock_guard<std::mutex> g(slot->mutex);
    return slot->loaded;
}

const SharedObject* find_shared_object(const cache::DiskCache* disk, const std::string& key) {
    return in_slot(key, [&]() -> std::optional<SharedObject> {
        auto entry = disk ? disk->find(key) : std::nullopt;
        if (!entry) return std::nullopt;
        SharedObject o = open_object(*entry);
        std::lock_guard<std::mutex> g(g_mutex);
        ++g_stats.disk_hits;
        return o;
    });
}

const SharedObject& load_shared_object(const cache::DiskCache* disk, const std::string& key, const BuildRequest& request,
                                       const HostCompiler& compiler) {
    return *in_slot(key, [&] { return std::optional<SharedObject>(build(disk, key, request, compiler)); });
}

SharedObjectStats shared_object_stats() {
    std::lock_guard<std::mutex> g(g_mutex);
    return g_stats;
}

}  // namespace kiln::native
