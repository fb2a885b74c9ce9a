// SHA-256 (OpenSSL's implementation) for cache keys and artifact checks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kiln::cache {

// Lower-case hex digest of `bytes`.
std::string sha256_hex(std::string_view bytes);

// Incremental hashing, for inputs that arrive in pieces (files, key fields). A
// plain value: copying it copies the running state.
class Sha256 {
public:
    Sha256();
    void update(std::string_view bytes);
    // Digest of everything fed so far. Works on a copy of the running state, so it
    // may be called more than once and update() may continue afterwards.
    std::string hex_digest() const;

private:
    // OpenSSL's SHA256_CTX (112 bytes), held here so that this header does not
    // include OpenSSL's; sha256.cpp checks that it fits.
    alignas(8) unsigned char state_[112];
};

// Digest of a file's contents (symlinks are followed: this is the general-purpose
// entry, e.g. for hashing a compiler binary). Throws kiln::Error naming the path.
std::string sha256_file_hex(const std::filesystem::path& path);

// Digest of everything readable from the open descriptor `fd`, from its current
// offset to end of file; `bytes_read` (if given) receives the count hashed, so the
// caller gets size and digest from one pass over the same bytes. `path` only
// names the file in error messages.
std::string sha256_fd_hex(int fd, const std::filesystem::path& path, std::uint64_t* bytes_read = nullptr);

}  // namespace kiln::cache
