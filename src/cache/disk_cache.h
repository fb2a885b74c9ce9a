// kiln's on-disk artifact cache, shared by all targets (CPU .so files, CUDA cubins)
// and by concurrent processes.
//
// Layout under the root:
//   entries/<key>/           a published entry: artifact files plus kiln-manifest
//   tmp/stage-XXXXXX/        a producer's private staging directory
//   tmp/discard-XXXXXX/      a corrupt entry on its way out
// Only a directory under entries/ is ever an entry, and it gets there by a single
// rename(2) of a complete staging directory, so a killed producer leaves at most
// debris in tmp/ (removed after an hour) and never a half-written entry.
//
// Manifest (entries/<key>/kiln-manifest), text, '\n'-terminated lines:
//   kiln-cache-manifest 1
//   <sha256 hex, 64 lower-case digits> <size in bytes, decimal> <file name>
// one line per artifact, sorted by name. find() re-hashes every artifact against
// it and read() the artifacts it returns (the others only for presence and size),
// so a torn, truncated or tampered entry is discarded and rebuilt, never used.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cache/private_files.h"

namespace kiln::cache {

// The cache key: SHA-256 over the named fields, each written as
// <u64 length><name><u64 length><value> (little-endian lengths), so that no two
// different field lists hash the same bytes ("ab"+"c" vs "a"+"bc"). Field order
// is significant; callers add fields in a fixed order.
class KeyBuilder {
public:
    KeyBuilder& add(std::string_view name, std::string_view value);
    // 64 lower-case hex digits; usable as DiskCache key.
    std::string hex() const;

private:
    std::string bytes_;
};

// Artifact file names a producer may write: [A-Za-z0-9._+-], not starting with
// '.', at most 200 characters, and not the manifest's own name.
inline constexpr std::string_view manifest_name = "kiln-manifest";

// All methods may be called from several threads and processes at once: the
// object holds nothing but the root path, and every coordination goes through
// the filesystem (atomic rename, flock on staging directories).
class DiskCache {
public:
    // Location: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else $HOME/.cache/kiln
    // (empty or relative values are skipped, as the XDG spec says). Missing
    // directories are created with mode 0700. Refused with kiln::Error naming the
    // directory if it is not a directory, is owned by another user, or is writable
    // by group or others: a cache others can write is a way to make us load their code.
    static DiskCache open();
    // open(), or nullopt when the directory cannot be created or used (an
    // IoError: read-only, full, not a directory ...). Then kiln warns once per
    // process and the caller builds without caching: the cache only saves time.
    // The refusals above still throw.
    static std::optional<DiskCache> open_or_warn();
    // For a process that compiles thousands of kernels it never runs again (kiln
    // fuzz): from now on open_or_warn() gives nullopt, without a warning, so nothing
    // is filed on disk (a campaign had filled the user's cache, 100 KB a program);
    // the targets keep their kernels in the process as they do without a cache.
    static void keep_kernels_in_process_only();
    explicit DiskCache(std::filesystem::path root);

    const std::filesystem::path& root() const { return root_; }

    // The directory of the verified entry for `key`, or nullopt on a miss. A corrupt
    // entry (missing or malformed manifest, missing, extra, truncated or altered
    // files, symlinks, anything not a regular file) is moved aside and deleted, and
    // counts as a miss; `why_missed`, if given, then says what was wrong ("no entry"
    // for a plain miss).
    // A cache that cannot be read (an IoError) is a miss, with a warning once.
    std::optional<std::filesystem::path> find(const std::string& key, std::string* why_missed = nullptr) const;

    // find(), also returning the contents of the artifacts `names`, in that order.
    // The bytes returned are the bytes that were hashed, so nothing can change
    // between the check and the use. An entry lacking one of them is corrupt. Only
    // these are read and hashed (the other artifacts are checked for presence and
    // size), unless `names` is empty: then every artifact, as find().
    std::optional<std::vector<std::string>> read(const std::string& key, std::span<const std::string_view> names,
                                                 std::string* why_missed = nullptr) const;

    // Removes the entry for `key`, if there is one, the way a corrupt one goes (one
    // rename out of entries/, so readers see it whole or gone): for an entry its
    // producer knows to be stale, such as a tuning choice asked to be made again.
    // A cache that cannot be written is warned about, not an error.
    void retire(const std::string& key) const;

    // Runs `produce` to write artifact files (regular files only, names as above)
    // into a fresh private staging directory, writes the manifest and publishes the
    // directory with one rename to entries/<key>. If another process published the
    // key first, its verified entry is returned and ours discarded. Exceptions from
    // `produce` propagate; the staging directory is removed either way.
    std::filesystem::path publish(const std::string& key,
                                  const std::function<void(const std::filesystem::path& staging)>& produce) const;

    // find(), or on a miss publish(): what targets call.
    std::filesystem::path get_or_build(const std::string& key,
                                       const std::function<void(const std::filesystem::path& staging)>& produce) const;

    // publish(), or nullopt when the cache cannot take the entry: an IoError in
    // the cache or from `produce` (which writes into the cache's file system),
    // such as a read-only or full disk. Kiln then warns once per process, and the
    // caller keeps or rebuilds the artifacts elsewhere. Other errors propagate.
    std::optional<std::filesystem::path> try_publish(const std::string& key,
                                                     const std::function<void(const std::filesystem::path& staging)>& produce) const;

    // Staging and discard directories older than this, with no live owner, are
    // removed by publish().
    static constexpr std::int64_t stale_after_seconds = 3600;

private:
    // find() and read(): verifies entries/<key>, keeping the `wanted` artifacts' bytes.
    bool lookup(const std::string& key, std::span<const std::string_view> wanted, std::vector<std::string>* contents,
                std::string* why_missed) const;

    std::filesystem::path root_;
    std::filesystem::path entries_;
    std::filesystem::path tmp_;
};

}  // namespace kiln::cache
