// Shared objects that the host compiler builds from generated source, by cache
// key: this process's loaded ones (a warm launch is one map lookup), backed by
// kiln's on-disk cache (a fresh process loads a published entry without
// compiling), backed by the host compiler. The targets that run generated code
// on the host use it: the cpu target (its kernels) and the metal target (the
// MSL with kiln's shim).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cache/disk_cache.h"
#include "targets/common/host_compiler.h"

namespace kiln::native {

struct SharedObject {
    void* handle = nullptr;
    // The exported function `name` (with suffix appended: a batch's kernel k
    // exports its functions as NAME_k); a missing one is kiln's bug (internal error).
    void* symbol(const char* name) const;
    std::string path;    // where it was loaded from (for messages)
    std::string suffix;  // "" or, for kernel k of a batch, "_k"
};

// What to build: files written into the build directory (the first is compiled;
// the others are what it includes), extra compiler flags (with
// include_build_dir, -I<the directory> after them), and names for messages.
struct BuildRequest {
    std::string target;       // "cpu", "metal"
    std::string kernel_name;
    std::vector<std::pair<std::string, std::string>> files;
    std::vector<std::string> flags;
    bool include_build_dir = false;
};

// The shared object for `key` if this process has loaded it or `disk` (null: no
// usable cache) holds it (a verified entry); null otherwise. Never compiles.
const SharedObject* find_shared_object(const cache::DiskCache* disk, const std::string& key);

// The shared object for `key` (a cache::KeyBuilder digest that covers everything
// in `request` and the compiler). On a miss everywhere, compiles the request,
// into the cache when it takes the entry, else in a private temporary directory.
// The compiler rejecting the source is an internal error quoting the compiler and
// naming a saved copy of the files; a compiler that cannot build a trivial
// program either is a kiln::Error.
const SharedObject& load_shared_object(const cache::DiskCache* disk, const std::string& key, const BuildRequest& request,
                                       const HostCompiler& compiler);

// Several kernels built with one host-compiler run (a fuzz campaign's batch): the
// request's first file holds kernels 0 .. keys.size() - 1, kernel k exporting its
// functions with the suffix "_k". Each keys[k] then loads as that object (with
// its suffix) from this process's memory only: a batch is not put in the on-disk
// cache, whose entries are one kernel each. Keys already loaded are the caller's
// to leave out. Returns false, having loaded nothing, where the compiler rejects
// the batch: each kernel is then built alone, which names the one at fault.
bool load_batch(const std::vector<std::string>& keys, const BuildRequest& request, const HostCompiler& compiler);

// Whether this process has loaded `key` (alone or in a batch).
bool is_loaded(const std::string& key);

// What this process has done to get shared objects (tests and `kiln` report these).
struct SharedObjectStats {
    std::int64_t memory_hits = 0;   // already loaded here
    std::int64_t disk_hits = 0;     // loaded from the on-disk cache
    std::int64_t compiled = 0;      // kernels built by the host compiler (alone or in batches)
    double compile_seconds = 0;     // total time spent compiling
    std::int64_t batches = 0;       // host-compiler runs of load_batch (each built several kernels)
};
SharedObjectStats shared_object_stats();

}  // namespace kiln::native
