#include "cache/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kiln::cache {

namespace fs = std::filesystem;

namespace {

std::string io_message(const fs::path& path, std::string_view what, int err) {
    std::string msg = std::string(what) + " " + path.string();
    if (err) msg += ": " + std::string(std::strerror(err));
    return msg;
}

// Writes all of `data` to `fd` and flushes it; false with errno set on failure.
bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Writes and closes `fd`, the new file at `path`; on failure removes it and throws.
void fill_and_close(int fd, const fs::path& path, std::string_view data) {
    if (!write_all(fd, data)) {
        int e = errno;
        ::close(fd);
        ::unlink(path.c_str());
        throw IoError("", path, "cannot write", e);
    }
    if (::close(fd) != 0) {  // NFS and full disks may report the failure only here
        int e = errno;
        ::unlink(path.c_str());
        throw IoError("", path, "cannot write", e);
    }
}

}  // namespace

IoError::IoError(std::string_view op, const fs::path& path, std::string_view what, int err)
    : Error(Loc{}, op, io_message(path, what, err)), errno_(err) {}

void write_new_file(const fs::path& path, std::string_view data) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw IoError("", path, "cannot create", errno);
    fill_and_close(fd, path, data);
}

fs::path replace_file(const fs::path& dir, const std::string& name, std::string_view data) {
    std::string tmpl = (dir / ("." + name + ".XXXXXX")).string();
    int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0) throw IoError("", dir, "cannot create a file in", errno);
    fill_and_close(fd, tmpl, data);
    fs::path target = dir / name;
    if (::rename(tmpl.c_str(), target.c_str()) != 0) {
        int e = errno;
        ::unlink(tmpl.c_str());
        throw IoError("", target, "cannot write", e);
    }
    return target;
}

fs::path make_private_dir(std::string_view prefix) {
    const char* tmp = std::getenv("TMPDIR");
    fs::path base = tmp && *tmp == '/' ? fs::path(tmp) : fs::path("/tmp");
    std::string tmpl = (base / (std::string(prefix) + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) throw IoError("", base, "cannot create a private directory in", errno);
    return tmpl;  // mkdtemp makes it 0700
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);  // best effort; it is private and in the temp directory
}

}  // namespace kiln::cache
