// A target's program index (targets/cpu/program_index.h, targets/cuda/program_index.h),
// stored: records by index key in this process's memory, backed by the disk cache,
// where each is an entry of one file ("index") holding the record's text form. The
// targets differ only in what a record holds and how it is written as text.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <kiln/error.h>

#include "cache/disk_cache.h"
#include "cache/private_files.h"
#include "support/warnings.h"

namespace kiln::targets {

// What a store's find() has answered in this process (tests report these).
struct IndexStats {
    std::int64_t hits = 0;
    std::int64_t misses = 0;
};

template <class Record> class IndexStore {
public:
    using Parse = std::optional<Record> (*)(std::string_view);
    using Format = std::string (*)(const Record&);
    // `lost` ends the warning when a record cannot be kept: what later processes do instead.
    IndexStore(std::string target, std::string lost, Parse parse, Format format)
        : target_(std::move(target)), lost_(std::move(lost)), parse_(parse), format_(format) {}

    // The record for `key`, from this process's memory or the disk cache (null: no
    // usable cache). A verified record that does not parse was written by a kiln
    // with another format under the same key, which the keys' source identity rules
    // out; it is a miss, and the kernel is found the long way.
    std::optional<Record> find(const cache::DiskCache* disk, const std::string& key) {
        {
            std::lock_guard<std::mutex> g(mutex_);
            if (auto it = records_.find(key); it != records_.end()) {
                ++stats_.hits;
                return it->second;
            }
        }
        const std::string_view names[] = {kFile};
        auto contents = disk ? disk->read(key, names) : std::nullopt;
        auto r = contents ? parse_((*contents)[0]) : std::nullopt;
        std::lock_guard<std::mutex> g(mutex_);
        ++(r ? stats_.hits : stats_.misses);
        if (r) records_.emplace(key, *r);
        return r;
    }

    // Records `r` under `key`, in this process and on disk when it can: the index
    // only saves time, so a record the cache cannot take is a warning (once per
    // process), never a failed launch.
    void add(const cache::DiskCache* disk, const std::string& key, const Record& r) {
        {
            std::lock_guard<std::mutex> g(mutex_);
            records_.insert_or_assign(key, r);
        }
        if (!disk) return;
        try {
            disk->try_publish(key, [&](const std::filesystem::path& staging) { cache::write_new_file(staging / std::string(kFile), format_(r)); });
        } catch (const Error& e) {  // not an IoError (try_publish warned about those): still only a lost optimisation
            support::warn_once("program index", target_ + ": cannot record a kernel in the program index (" + e.detail() + "); " + lost_);
        }
    }

    IndexStats stats() {
        std::lock_guard<std::mutex> g(mutex_);
        return stats_;
    }

private:
    static constexpr std::string_view kFile = "index";  // the record's file in its cache entry
    std::string target_, lost_;
    Parse parse_;
    Format format_;
    std::mutex mutex_;
    std::unordered_map<std::string, Record> records_;  // read or written by this process
    IndexStats stats_;
};

}  // namespace kiln::targets
