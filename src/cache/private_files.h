// Writing files where another user may have been first: temporary directories,
// dumped sources, artifacts. A file kiln writes is created by kiln (O_CREAT |
// O_EXCL: never a file someone else made), never through a symlink (O_NOFOLLOW,
// or a rename that replaces the link itself), mode 0600; a failure says which
// file and why (strerror), as a cache::IoError.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <kiln/error.h>

namespace kiln::cache {

// A filesystem operation failed: the path, what was attempted and the system's
// reason. The targets treat it as "this directory cannot be used" (the cache is
// then skipped, with a warning), unlike the cache's refusals of directories that
// others could write (plain kiln::Errors).
class IoError : public Error {
public:
    // "<op>: <what> <path>: <strerror(err)>" (no op: no prefix; err 0: no reason).
    IoError(std::string_view op, const std::filesystem::path& path, std::string_view what, int err);
    int error_number() const { return errno_; }

private:
    int errno_;
};

// Creates `path`, which must not exist yet, with mode 0600, and writes `data`.
void write_new_file(const std::filesystem::path& path, std::string_view data);

// Writes `data` to dir/name: a fresh temporary file in `dir` (mkstemp: O_EXCL,
// 0600) renamed over dir/name, so that whatever was at dir/name (a file, a
// symlink to someone's file) is replaced, never written through. Returns the path.
std::filesystem::path replace_file(const std::filesystem::path& dir, const std::string& name, std::string_view data);

// A fresh directory under $TMPDIR (else /tmp) that only this user can enter:
// mkdtemp("<tmp>/<prefix>-XXXXXX"), mode 0700.
std::filesystem::path make_private_dir(std::string_view prefix);

// A private directory (make_private_dir) removed with its contents on destruction.
class ScratchDir {
public:
    explicit ScratchDir(std::string_view prefix) : path_(make_private_dir(prefix)) {}
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace kiln::cache
