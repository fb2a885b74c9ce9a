// The cuda target's program index: which compiled kernel runs a traced program
// under given emit options on a given device kind, recorded in the disk cache
// beside the kernels (the cpu target has the same: targets/cpu/program_index.h).
//
// A kernel's own cache key covers its generated CUDA source, so finding it that
// way means lowering the program and emitting and hashing the source: about half
// of a fresh process's warm launch (0.45 of 1.0 ms for a trivial kernel on the
// 2-core development machine, with the stand-in driver). The index is keyed by
// what the source is generated from instead (the program's structure, the emit
// options, the architecture and its shared-memory limit, NVRTC's identity and
// options, kiln's source identity) and records the kernel's key and what a launch
// needs from the emitter (the launch shape, not the text). A kernel found through
// it has no source and no plan lines: plan() and source() ask for them
// (compiled_kernel's need_text) and the emitter then runs as before.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cache/disk_cache.h"
#include "ir/ir.h"
#include "targets/common/index_store.h"
#include "targets/cuda/emit.h"

namespace kiln::cu {

struct IndexRecord {
    std::string kernel_key;  // the compiled kernel's cache key (after any recompiles for spills)
    EmittedKernel launch;    // entry, threads, instances_per_cta, min_ctas, shared_bytes, gemm; no text
};

// The launch shape of `k` alone: what IndexRecord keeps of an emitted kernel.
EmittedKernel launch_shape(const EmittedKernel& k);

// The index key: a digest of everything the kernel's key and source derive from,
// `nvrtc` being NVRTC's identity (nvrtc_identity()). Each kernel is also recorded
// under kAnyNvrtc: that record is what a process without NVRTC finds, so a cache
// filled where NVRTC is (ahead of time: k.compile(cuda(), options, shapes...)) runs
// its kernels on a machine of the same architecture that has none.
inline constexpr std::string_view kAnyNvrtc = "any NVRTC";
std::string index_key(const ir::Program& p, const EmitOptions& o, const std::string& arch, std::int64_t shared_limit,
                      std::string_view nvrtc);

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

}  // namespace kiln::cu
