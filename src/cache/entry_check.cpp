#include "cache/entry_check.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <kiln/error.h>

#include "cache/disk_cache.h"
#include "cache/sha256.h"

namespace kiln::cache {

namespace fs = std::filesystem;

void fail_at(const fs::path& path, std::string_view what, int err) { throw IoError("cache", path, what, err); }
bool environmental(int err) { return err == EMFILE || err == ENFILE || err == ENOMEM; }

bool valid_component(std::string_view s, std::size_t max_len, bool allow_plus) {
    auto ok = [&](char c) {  // not isalnum(): that depends on the locale
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-' || (allow_plus && c == '+');
    };
    return !s.empty() && s.size() <= max_len && s[0] != '.' && std::all_of(s.begin(), s.end(), ok);
}

bool valid_artifact_name(std::string_view s) { return valid_component(s, 200, true) && s != manifest_name; }

namespace {

// A manifest is a few lines; anything this large is garbage, not worth reading.
constexpr off_t manifest_max_bytes = 1 << 20;

struct ManifestLine {
    std::string sha256;
    std::uint64_t size = 0;
    std::string name;
};

bool reject(std::string& why, std::string reason) {
    why = std::move(reason);
    return false;
}

// Parses a manifest; on failure returns false with `why` set. Lines must be
// sorted by name, which also rules out duplicates.
bool parse_manifest(std::string_view text, std::vector<ManifestLine>& out, std::string& why) {
    if (text.empty() || text.back() != '\n') return reject(why, "manifest is empty or truncated (no final newline)");
    size_t eol = text.find('\n');
    if (text.substr(0, eol) != manifest_header)
        return reject(why, "manifest does not start with '" + std::string(manifest_header) + "'");
    text.remove_prefix(eol + 1);
    for (size_t lineno = 2; !text.empty(); ++lineno) {
        eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text.remove_prefix(eol + 1);
        auto bad = [&](std::string_view what) {
            return reject(why, "manifest line " + std::to_string(lineno) + " " + std::string(what));
        };
        if (line.size() < 68 || line[64] != ' ') return bad("is malformed");
        ManifestLine m;
        m.sha256 = line.substr(0, 64);
        auto lower_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
        if (!std::all_of(m.sha256.begin(), m.sha256.end(), lower_hex)) return bad("has a malformed digest");
        line.remove_prefix(65);
        const char* last = line.data() + line.size();
        auto [end, ec] = std::from_chars(line.data(), last, m.size);
        if (ec != std::errc() || end == line.data() || end == last || *end != ' ') return bad("has a malformed size");
        m.name = std::string(end + 1, last);
        if (!valid_artifact_name(m.name)) return bad("has an invalid file name");
        if (!out.empty() && !(out.back().name < m.name)) return bad("is out of order or a duplicate");
        out.push_back(std::move(m));
    }
    return true;
}

// Opens a file of an entry without following symlinks. O_NONBLOCK keeps a
// planted FIFO from hanging us; it is a no-op on regular files.
Fd open_entry_file(int dirfd, const fs::path& dir, const std::string& name, std::string& why) {
    Fd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd) {
        int e = errno;
        if (environmental(e)) fail_at(dir / name, "cannot open cache file", e);
        why = e == ENOENT ? name + " is missing"
              : e == ELOOP ? name + " is a symlink"
                           : "cannot open " + name + ": " + std::strerror(e);
    }
    return fd;
}

// Reads all of `fd` into *out; false on an I/O error (errno set).
bool read_all(int fd, std::uint64_t expected, std::string* out) {
    out->resize(static_cast<size_t>(expected) + 1);  // one byte more, to see growth
    size_t got = 0;
    while (got < out->size()) {
        ssize_t n = ::read(fd, out->data() + got, out->size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) break;
        got += static_cast<size_t>(n);
    }
    out->resize(got);
    return true;
}

// Checks one artifact against its manifest line. With `contents`, the file is
// read into it and the digest taken over those bytes, so the caller uses exactly
// what was verified; otherwise it is hashed as it streams past.
// The regular file of m's size (a cheap truncation check before hashing).
bool check_size(int fd, const ManifestLine& m, std::string& why) {
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return reject(why, m.name + " is not a regular file");
    if (static_cast<std::uint64_t>(st.st_size) != m.size)
        return reject(why, m.name + " is " + std::to_string(st.st_size) + " bytes, manifest says " + std::to_string(m.size));
    return true;
}

// An artifact the caller does not read: present as a regular file of the manifest's
// size. Its bytes are hashed when a caller asks for it; nobody uses them before.
bool check_unread_artifact(int dirfd, const fs::path& dir, const ManifestLine& m, std::string& why) {
    Fd fd = open_entry_file(dirfd, dir, m.name, why);
    return fd && check_size(fd.get(), m, why);
}

bool check_artifact(int dirfd, const fs::path& dir, const ManifestLine& m, std::string& why, std::string* contents) {
    Fd fd = open_entry_file(dirfd, dir, m.name, why);
    if (!fd || !check_size(fd.get(), m, why)) return false;
    std::uint64_t read = 0;
    std::string digest;
    if (contents) {
        if (!read_all(fd.get(), m.size, contents)) {
            int e = errno;
            return reject(why, "cannot read " + m.name + ": " + std::strerror(e));  // rebuild it, as below
        }
        read = contents->size();
        digest = sha256_hex(*contents);
    } else {
        try {
            digest = sha256_fd_hex(fd.get(), dir / m.name, &read);
        } catch (const Error& e) {
            return reject(why, e.what());  // an I/O error on a cached file: rebuild it
        }
    }
    if (read != m.size) return reject(why, m.name + " changed size while being read");
    if (digest != m.sha256) return reject(why, m.name + " does not match its SHA-256 in the manifest");
    return true;
}

}  // namespace

// Checks an opened entry directory against its manifest. Every file present must
// be listed: an unlisted file (or symlink, or subdirectory) means something other
// than publish() wrote here. The artifacts named in `wanted` are read into
// (*contents)[i] and hashed; an entry without one of them is not the entry the
// caller wants. The others are then only checked for presence and size (a warm
// launch reads a cubin, not the source and PTX beside it); with nothing wanted
// (find(): the caller uses the files in place) every artifact is hashed.
bool check_entry(int dirfd, const fs::path& dir, std::string& why, std::span<const std::string_view> wanted,
                 std::vector<std::string>* contents) {
    Fd mf = open_entry_file(dirfd, dir, std::string(manifest_name), why);
    if (!mf) return false;
    struct stat st;
    if (::fstat(mf.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > manifest_max_bytes)
        return reject(why, "manifest is not a small regular file");
    std::string text(static_cast<size_t>(st.st_size), '\0');
    if (::pread(mf.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
        return reject(why, "cannot read the manifest");
    std::vector<ManifestLine> lines;
    if (!parse_manifest(text, lines, why)) return false;

    int listfd = ::dup(dirfd);  // closedir() closes it; ours stays open
    DIR* d = listfd >= 0 ? ::fdopendir(listfd) : nullptr;
    if (!d) {
        int e = errno;
        if (listfd >= 0) ::close(listfd);
        fail_at(dir, "cannot list cache entry", e);
    }
    size_t listed = 0;
    std::string stray;
    while (struct dirent* de = ::readdir(d)) {
        std::string_view name = de->d_name;
        if (name == "." || name == ".." || name == manifest_name) continue;
        auto it = std::lower_bound(lines.begin(), lines.end(), name,
                                   [](const ManifestLine& m, std::string_view n) { return m.name < n; });
        if (it == lines.end() || it->name != name) {
            // d_type may be DT_UNKNOWN on some filesystems; this is only for the message.
            stray = de->d_type == DT_LNK ? "symlink " : de->d_type == DT_DIR ? "directory " : "file ";
            stray += name;
            break;
        }
        ++listed;
    }
    ::closedir(d);
    if (!stray.empty()) return reject(why, "unlisted " + stray + " in entry");
    if (listed != lines.size()) return reject(why, "an artifact listed in the manifest is missing");
    if (contents) contents->assign(wanted.size(), std::string());
    for (size_t i = 0; i < wanted.size(); ++i)
        if (std::none_of(lines.begin(), lines.end(), [&](const ManifestLine& m) { return m.name == wanted[i]; }))
            return reject(why, "the entry has no " + std::string(wanted[i]));
    for (const auto& m : lines) {
        auto it = std::find(wanted.begin(), wanted.end(), m.name);
        if (it == wanted.end() && !wanted.empty()) {
            if (!check_unread_artifact(dirfd, dir, m, why)) return false;
            continue;
        }
        std::string* keep = it == wanted.end() ? nullptr : &(*contents)[static_cast<size_t>(it - wanted.begin())];
        if (!check_artifact(dirfd, dir, m, why, keep)) return false;
    }
    return true;
}

}  // namespace kiln::cache
