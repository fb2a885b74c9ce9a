// Checking a cache entry against its manifest, and the file-level helpers the
// cache shares (owned descriptors, path-component rules, I/O errors). An entry
// is a directory holding its artifacts and a manifest listing each one's SHA-256
// and size; an entry is used only when every listed file is present, regular,
// unchanged and nothing unlisted sits beside them (disk_cache.h says why).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

namespace kiln::cache {

inline constexpr std::string_view manifest_header = "kiln-cache-manifest 1";

// Throws IoError("cache", path, what, err).
[[noreturn]] void fail_at(const std::filesystem::path& path, std::string_view what, int err = 0);
// Out of descriptors or memory says nothing about an entry's content: report it
// rather than discarding a good entry that other processes may be using.
bool environmental(int err);

// An owned file descriptor.
class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        std::swap(fd_, o.fd_);
        return *this;
    }
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }

private:
    int fd_;
};

// Keys and artifact names become single path components: no separators, no
// hidden files, nothing a shell or the manifest's line format would trip on.
bool valid_component(std::string_view s, std::size_t max_len, bool allow_plus);
bool valid_artifact_name(std::string_view s);

// Checks an opened entry directory (`dirfd`, at `dir`) against its manifest; false
// with `why` when it is not a sound entry. The artifacts named in `wanted` are
// read into (*contents)[i], digested over exactly those bytes; the others are then
// checked for presence and size only (all are digested when none is wanted). Environmental I/O
// errors throw IoError instead (they say nothing about the entry).
bool check_entry(int dirfd, const std::filesystem::path& dir, std::string& why, std::span<const std::string_view> wanted,
                 std::vector<std::string>* contents);

}  // namespace kiln::cache
