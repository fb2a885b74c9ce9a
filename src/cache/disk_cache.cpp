#include "cache/disk_cache.h"

#include "cache/entry_check.h"
#include "cache/sha256.h"
#include "support/warnings.h"

#include <kiln/error.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <span>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::cache {

namespace fs = std::filesystem;

namespace {

constexpr int publish_attempts = 4;

void check_key(const std::string& key) {
    if (!valid_component(key, 128, false))
        internal_fail("cache key '" + key + "' is not a plain file name ([A-Za-z0-9._-], at most 128 chars)");
}

// The root, entries/ and tmp/ must be ours alone: anyone else who can write here
// can plant an entry that a target then dlopens or loads onto the GPU.
void check_private_dir(const fs::path& dir, bool follow_symlink) {
    struct stat st;
    int rc = follow_symlink ? ::stat(dir.c_str(), &st) : ::lstat(dir.c_str(), &st);
    if (rc != 0) fail_at(dir, "cannot access cache directory", errno);
    if (S_ISLNK(st.st_mode)) fail_at(dir, "refusing to use a symlink as cache directory");
    if (!S_ISDIR(st.st_mode)) fail_at(dir, "cache directory is not a directory:");
    if (st.st_uid != ::geteuid())
        throw Error(Loc{}, "cache",
                    "cache directory " + dir.string() + " is owned by uid " + std::to_string(st.st_uid) +
                        ", not by the current user (uid " + std::to_string(::geteuid()) + "); refusing to use it");
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        throw Error(Loc{}, "cache",
                    "cache directory " + dir.string() + " is writable by group or others (mode " + mode +
                        "); refusing to use it (chmod go-w it, or point KILN_CACHE_DIR elsewhere)");
    }
}

// mkdir -p, but every directory we create is 0700 (the XDG spec asks the same of
// ~/.cache); existing directories are left as they are and validated later.
void make_dirs_0700(const fs::path& dir) {
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) return;
    if (errno != ENOENT) fail_at(dir, "cannot access cache directory", errno);
    fs::path parent = dir.parent_path();
    if (!parent.empty() && parent != dir) make_dirs_0700(parent);
    if (::mkdir(dir.c_str(), 0700) != 0) {
        if (errno == EEXIST) return;  // a concurrent process made it
        fail_at(dir, "cannot create cache directory", errno);
    }
    ::chmod(dir.c_str(), 0700);  // the umask may have taken bits we need (e.g. 0277)
}

fs::path normalized_absolute(const fs::path& p) {
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    if (ec) throw Error(Loc{}, "cache", "cannot make cache path " + p.string() + " absolute: " + ec.message());
    abs = abs.lexically_normal();
    if (!abs.has_filename() && abs.has_relative_path()) abs = abs.parent_path();  // "dir/" -> "dir"
    return abs;
}

fs::path default_root() {
    // Our own variable may be relative (resolved against the working directory);
    // relative XDG values must be ignored, says the XDG base directory spec.
    if (const char* v = std::getenv("KILN_CACHE_DIR"); v && *v) return v;
    if (const char* v = std::getenv("XDG_CACHE_HOME"); v && *v == '/') return fs::path(v) / "kiln";
    if (const char* v = std::getenv("HOME"); v && *v == '/') return fs::path(v) / ".cache" / "kiln";
    // No HOME (a daemon, a bare container): the password database still knows.
    std::vector<char> buf(16384);
    struct passwd pw, *found = nullptr;
    if (::getpwuid_r(::geteuid(), &pw, buf.data(), buf.size(), &found) == 0 && found && found->pw_dir &&
        found->pw_dir[0] == '/')
        return fs::path(found->pw_dir) / ".cache" / "kiln";
    throw Error(Loc{}, "cache",
                "cannot locate a cache directory: set KILN_CACHE_DIR (HOME and XDG_CACHE_HOME are unset)");
}

// rm -rf that never follows symlinks and first makes our read-only directories
// writable again. Best effort: leftovers in tmp/ are retried by later cleanups.
void remove_tree(const fs::path& p) noexcept {
    std::error_code ec;
    auto st = fs::symlink_status(p, ec);
    if (ec) return;
    if (fs::is_directory(st)) {
        fs::permissions(p, fs::perms::owner_all, fs::perm_options::add, ec);
        std::vector<fs::path> children;  // collected first: no deleting under a live iterator
        for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) children.push_back(it->path());
        for (const auto& c : children) remove_tree(c);
    }
    fs::remove(p, ec);
}

void write_all(int fd, std::string_view data, const fs::path& path) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_at(path, "cannot write", errno);
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
}

// Flushing is for durability only: after a power loss an unflushed entry would
// fail verification and be rebuilt, never used. So a failing directory fsync
// (some filesystems refuse it) is not worth an error.
void fsync_dir(const fs::path& dir) noexcept {
    Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd) ::fsync(fd.get());
}

// What find() learned about entries/<key>. `dev`/`ino` identify the object
// judged, so that discarding it never removes a different, newer entry.
struct Verdict {
    enum Kind { hit, missing, corrupt } kind = missing;
    std::string why = "no entry";
    Fd dir;  // the entry directory, when it could be opened
    dev_t dev = 0;
    ino_t ino = 0;
};

Verdict verify(const fs::path& dir, std::span<const std::string_view> wanted = {}, std::vector<std::string>* contents = nullptr) {
    Verdict v;
    v.dir = Fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!v.dir) {
        int e = errno;
        if (e == ENOENT) return v;
        if (environmental(e)) fail_at(dir, "cannot open cache entry", e);
        if (::lstat(dir.c_str(), &st) != 0) return v;  // vanished meanwhile
        v.kind = Verdict::corrupt;
        v.why = S_ISLNK(st.st_mode)   ? "entry is a symlink"
                : S_ISDIR(st.st_mode) ? "cannot open entry: " + std::string(std::strerror(e))
                                      : "entry is not a directory";
    } else {
        if (::fstat(v.dir.get(), &st) != 0) fail_at(dir, "cannot stat cache entry", errno);
        v.why.clear();
        v.kind = check_entry(v.dir.get(), dir, v.why, wanted, contents) ? Verdict::hit : Verdict::corrupt;
    }
    v.dev = st.st_dev;
    v.ino = st.st_ino;
    return v;
}

// A private staging directory in tmp/, flock'ed for as long as its producer
// lives, so that cleanup never removes a directory a slow producer still uses.
// Removed on destruction unless published.
class Staging {
public:
    explicit Staging(const fs::path& tmp) {
        std::string tmpl = (tmp / "stage-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) fail_at(tmp, "cannot create a staging directory in", errno);
        path_ = tmpl;
        fd_ = Fd(::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!fd_ || ::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            remove_tree(path_);
            fail_at(path_, "cannot open or lock staging directory", e);
        }
    }
    ~Staging() {
        if (!published_) remove_tree(path_);
    }
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;

    const fs::path& path() const { return path_; }
    int fd() const { return fd_.get(); }
    void mark_published() { published_ = true; }

private:
    fs::path path_;
    Fd fd_;
    bool published_ = false;
};

// Hashes what the producer wrote, makes it read-only and durable, and writes the
// manifest. Wrong content here is a bug in the producing target, not user error.
void seal(const Staging& stage) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(stage.path(), ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    if (ec) fail_at(stage.path(), "cannot list staging directory", ec.value());
    std::sort(names.begin(), names.end());

    std::string manifest = std::string(manifest_header) + "\n";
    for (const auto& name : names) {
        fs::path path = stage.path() / name;
        if (!valid_artifact_name(name))
            internal_fail("cache producer wrote '" + path.string() + "': artifact names are [A-Za-z0-9._+-], not " +
                          "starting with '.', and not '" + std::string(manifest_name) + "'");
        Fd fd(::openat(stage.fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        struct stat st;
        if (!fd && errno != ELOOP) fail_at(path, "cannot open artifact", errno);
        if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
            internal_fail("cache producer wrote '" + path.string() + "', which is not a regular file");
        std::uint64_t size = 0;
        std::string digest = sha256_fd_hex(fd.get(), path, &size);
        if (::fsync(fd.get()) != 0) fail_at(path, "cannot flush artifact", errno);
        ::fchmod(fd.get(), 0400);  // entries are immutable; this stops accidental edits
        manifest += digest + " " + std::to_string(size) + " " + name + "\n";
    }
    fs::path mpath = stage.path() / std::string(manifest_name);
    Fd mf(::openat(stage.fd(), mpath.filename().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400));
    if (!mf) fail_at(mpath, "cannot create manifest", errno);
    write_all(mf.get(), manifest, mpath);
    if (::fsync(mf.get()) != 0) fail_at(mpath, "cannot flush manifest", errno);
    ::fsync(stage.fd());
}

bool same_object(const struct stat& st, const Verdict& v) { return st.st_dev == v.dev && st.st_ino == v.ino; }

// Moves a corrupt entry out of entries/ (one rename, so readers see it either
// whole or gone), then deletes it.
void discard(const fs::path& victim, const fs::path& tmp, Verdict& v) {
    std::string tmpl = (tmp / "discard-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) fail_at(tmp, "cannot create a discard directory in", errno);
    fs::path holder = tmpl, moved = holder / "entry";
    // Moving a directory to a new parent rewrites its "..", which needs write access.
    if (v.dir) ::fchmod(v.dir.get(), 0700);
    if (::rename(victim.c_str(), moved.c_str()) != 0) {
        int e = errno;
        remove_tree(holder);
        struct stat st;
        if (::lstat(victim.c_str(), &st) != 0 || !same_object(st, v)) return;  // someone else already dealt with it
        fail_at(victim, "cannot move corrupt cache entry aside:", e);
    }
    // Between our verification and our rename, another process may have discarded
    // the same corrupt entry and published a good one, which we have just taken.
    // Put it back: readers may already hold its path.
    struct stat st;
    if (::lstat(moved.c_str(), &st) == 0 && !same_object(st, v)) {
        Fd fd(::open(moved.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (fd) ::fchmod(fd.get(), 0700);
        if (::renameat2(AT_FDCWD, moved.c_str(), AT_FDCWD, victim.c_str(), RENAME_NOREPLACE) == 0 && fd)
            ::fchmod(fd.get(), 0500);
    }
    remove_tree(holder);
}

// Removes debris of dead producers: staging directories whose owner no longer
// holds the lock, and discard directories, once older than stale_after_seconds.
// The age test guards the instant between mkdtemp() and flock() in Staging.
void clean_stale(const fs::path& tmp) noexcept {
    std::error_code ec;
    std::time_t now = std::time(nullptr);
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (!name.starts_with("stage-") && !name.starts_with("discard-")) continue;
        struct stat st;
        if (::lstat(it->path().c_str(), &st) == 0 && now - st.st_mtime > DiskCache::stale_after_seconds)
            stale.push_back(it->path());
    }
    for (const auto& p : stale) {
        Fd fd(::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (p.filename().string().starts_with("stage-") && (!fd || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0))
            continue;  // a live producer (or not ours to judge)
        remove_tree(p);
    }
}

}  // namespace

KeyBuilder& KeyBuilder::add(std::string_view name, std::string_view value) {
    auto put = [this](std::string_view s) {
        std::uint64_t n = s.size();
        for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
        bytes_.append(s);
    };
    put(name);
    put(value);
    return *this;
}

std::string KeyBuilder::hex() const {
    // The prefix versions the encoding itself: changing it must change every key.
    Sha256 h;
    h.update(std::string_view("kiln-cache-key-v1\0", 18));
    h.update(bytes_);
    return h.hex_digest();
}

DiskCache DiskCache::open() { return DiskCache(default_root()); }

namespace {
void warn_unusable(const IoError& e) {
    support::warn_once("cache", "the kernel cache cannot be used (" + std::string(e.detail()) + "); kernels are built without caching");
}
}  // namespace

namespace {
std::atomic<bool> in_process_only{false};  // keep_kernels_in_process_only()
}  // namespace

void DiskCache::keep_kernels_in_process_only() { in_process_only = true; }

std::optional<DiskCache> DiskCache::open_or_warn() {
    if (in_process_only) return std::nullopt;
    try {
        return DiskCache(default_root());
    } catch (const IoError& e) {
        warn_unusable(e);
        return std::nullopt;
    }
}

DiskCache::DiskCache(fs::path root) : root_(normalized_absolute(root)) {
    make_dirs_0700(root_);
    check_private_dir(root_, /*follow_symlink=*/true);  // ~/.cache may well be a symlink elsewhere
    entries_ = root_ / "entries";
    tmp_ = root_ / "tmp";
    for (const auto& sub : {entries_, tmp_}) {
        if (::mkdir(sub.c_str(), 0700) != 0 && errno != EEXIST) fail_at(sub, "cannot create cache directory", errno);
        check_private_dir(sub, /*follow_symlink=*/false);
    }
}

bool DiskCache::lookup(const std::string& key, std::span<const std::string_view> wanted, std::vector<std::string>* contents,
                       std::string* why_missed) const {
    check_key(key);
    fs::path dir = entries_ / key;
    try {
        Verdict v = verify(dir, wanted, contents);
        if (why_missed) *why_missed = v.why;
        if (v.kind == Verdict::hit) return true;
        if (v.kind == Verdict::corrupt) {
            if (why_missed) *why_missed = "discarded corrupt entry " + dir.string() + ": " + v.why;
            discard(dir, tmp_, v);
        }
    } catch (const IoError& e) {
        if (why_missed) *why_missed = e.detail();
        warn_unusable(e);
    }
    return false;
}

std::optional<fs::path> DiskCache::find(const std::string& key, std::string* why_missed) const {
    if (!lookup(key, {}, nullptr, why_missed)) return std::nullopt;
    return entries_ / key;
}

std::optional<std::vector<std::string>> DiskCache::read(const std::string& key, std::span<const std::string_view> names,
                                                        std::string* why_missed) const {
    std::vector<std::string> contents;
    if (!lookup(key, names, &contents, why_missed)) return std::nullopt;
    return contents;
}

void DiskCache::retire(const std::string& key) const {
    check_key(key);
    fs::path dir = entries_ / key;
    try {
        Verdict v = verify(dir);
        if (v.kind != Verdict::missing) discard(dir, tmp_, v);
    } catch (const IoError& e) {
        warn_unusable(e);
    }
}

fs::path DiskCache::publish(const std::string& key,
                            const std::function<void(const fs::path& staging)>& produce) const {
    check_key(key);
    clean_stale(tmp_);
    Staging stage(tmp_);
    produce(stage.path());
    seal(stage);

    fs::path target = entries_ / key;
    for (int attempt = 0; attempt < publish_attempts; ++attempt) {
        // The one step that makes an entry visible: it is complete or absent.
        if (::rename(stage.path().c_str(), target.c_str()) == 0) {
            stage.mark_published();
            ::fchmod(stage.fd(), 0500);
            fsync_dir(entries_);
            return target;
        }
        int e = errno;
        // A non-empty directory (or some other object) is already there.
        if (e != EEXIST && e != ENOTEMPTY && e != ENOTDIR && e != EISDIR)
            fail_at(target, "cannot publish cache entry", e);
        // Usually another process won the race with an identical build: use theirs.
        // If theirs is corrupt, find() has just discarded it, so try again.
        if (auto existing = find(key)) return *existing;
    }
    throw Error(Loc{}, "cache",
                "cannot publish cache entry " + target.string() + ": it was replaced by a corrupt entry " +
                    std::to_string(publish_attempts) + " times");
}

std::optional<fs::path> DiskCache::try_publish(const std::string& key,
                                               const std::function<void(const fs::path& staging)>& produce) const {
    try {
        return publish(key, produce);
    } catch (const IoError& e) {
        warn_unusable(e);
        return std::nullopt;
    }
}

fs::path DiskCache::get_or_build(const std::string& key,
                                 const std::function<void(const fs::path& staging)>& produce) const {
    if (auto hit = find(key)) return *hit;
    return publish(key, produce);
}

}  // namespace kiln::cache
