// SHA-256 (through OpenSSL's EVP interface) for cache keys and artifact checks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX; kept out of this header on purpose.

namespace kiln::cache {

// Lower-case hex digest of `bytes`.
std::string sha256_hex(std::string_view bytes);

// Incremental hashing, for inputs that arrive in pieces (files, key fields).
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(Sha256&&) noexcept;
    Sha256& operator=(Sha256&&) noexcept;
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(std::string_view bytes);
    // Digest of everything fed so far. Works on a copy of the running state, so it
    // may be called more than once and update() may continue afterwards.
    std::string hex_digest() const;

private:
    struct CtxFree {
        void operator()(evp_md_ctx_st* ctx) const;
    };
    std::unique_ptr<evp_md_ctx_st, CtxFree> ctx_;
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
