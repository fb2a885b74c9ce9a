// The cpu target's program index: which compiled kernel runs a traced program
// under a launch specialisation, recorded in the disk cache beside the kernels.
//
// A kernel's own cache key covers its generated C++ source, so finding it that
// way means generating and hashing the source, the larger part of a fresh
// process's first launch. The index is keyed by what the source is generated
// from instead (the program's structure, the specialisation, the toolchain and
// kiln's source identity, cache/source_id.h) and records the kernel's key and
// what a launch needs from the generator (the frame size). A hit therefore
// skips the generator; the generator runs again only if an out-of-range error
// needs its list of accesses, and it then produces the same list, as it is a
// function of what the index is keyed by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cache/disk_cache.h"
#include "ir/ir.h"
#include "targets/common/host_compiler.h"
#include "targets/common/index_store.h"
#include "targets/cpu/launch_plan.h"

namespace kiln::native {

struct IndexRecord {
    std::string kernel_key;       // the compiled kernel's cache key (cache_key())
    std::int64_t frame_bytes = 0; // Emitted::frame_bytes of its source
};

// The index key: a digest of everything the kernel's key and source derive from.
// With no compiler, the key of the record every kernel is also filed under: one
// that names only this processor, which a process without a host compiler finds,
// so a cache filled where one is runs its kernels on a machine of the same
// processor that has none.
std::string index_key(const ir::Program& p, const LaunchSpec& spec, const HostCompiler* compiler);

// The record for `key`, from this process's memory or the disk cache (null: no
// usable cache; a corrupt or unreadable record is a miss).
std::optional<IndexRecord> find_in_index(const cache::DiskCache* disk, const std::string& key);

// Records `r` under `key`, in this process and on disk when it can: the index
// only saves time, so a record the cache cannot take is a warning (once per
// process), never a failed launch.
void add_to_index(const cache::DiskCache* disk, const std::string& key, const IndexRecord& r);

// What find_in_index has answered in this process (tests report these).
using IndexStats = targets::IndexStats;
IndexStats index_stats();

// The record's file: its text form, and back (nullopt when malformed).
std::string format_record(const IndexRecord& r);
std::optional<IndexRecord> parse_record(std::string_view text);

}  // namespace kiln::native
