#include "cache/sha256.h"

#include <kiln/error.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <vector>
#include <fcntl.h>
#include <unistd.h>

namespace kiln::cache {

namespace {

// EVP calls fail only when OpenSSL itself is unusable (no memory, a provider
// configuration without SHA-256): the user's environment, not a kiln bug.
[[noreturn]] void openssl_fail(const char* call) {
    char buf[256] = "no OpenSSL error queued";
    if (unsigned long e = ERR_get_error()) ERR_error_string_n(e, buf, sizeof buf);
    throw Error(Loc{}, "sha256", std::string(call) + " failed: " + buf);
}

std::string to_hex(const unsigned char* digest, unsigned len) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(2 * len, '\0');
    for (unsigned i = 0; i < len; ++i) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 0xf];
    }
    return out;
}

}  // namespace

void Sha256::CtxFree::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_) openssl_fail("EVP_MD_CTX_new");
    if (EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) openssl_fail("EVP_DigestInit_ex");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(std::string_view bytes) {
    KILN_ASSERT(ctx_);  // a moved-from hasher
    if (EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) != 1) openssl_fail("EVP_DigestUpdate");
}

std::string Sha256::hex_digest() const {
    KILN_ASSERT(ctx_);
    // Finalising consumes a context, so finalise a copy and keep ours running.
    std::unique_ptr<evp_md_ctx_st, CtxFree> copy(EVP_MD_CTX_new());
    if (!copy) openssl_fail("EVP_MD_CTX_new");
    if (EVP_MD_CTX_copy_ex(copy.get(), ctx_.get()) != 1) openssl_fail("EVP_MD_CTX_copy_ex");
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (EVP_DigestFinal_ex(copy.get(), digest, &len) != 1) openssl_fail("EVP_DigestFinal_ex");
    return to_hex(digest, len);
}

std::string sha256_hex(std::string_view bytes) {
    Sha256 h;
    h.update(bytes);
    return h.hex_digest();
}

std::string sha256_fd_hex(int fd, const std::filesystem::path& path, std::uint64_t* bytes_read) {
    Sha256 h;
    std::uint64_t total = 0;
    std::vector<char> buf(1 << 16);  // heap, not stack: callers may run on small thread stacks
    for (;;) {
        ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(Loc{}, "sha256", "cannot read " + path.string() + ": " + std::strerror(errno));
        }
        if (n == 0) break;
        h.update(std::string_view(buf.data(), static_cast<size_t>(n)));
        total += static_cast<std::uint64_t>(n);
    }
    if (bytes_read) *bytes_read = total;
    return h.hex_digest();
}

std::string sha256_file_hex(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(Loc{}, "sha256", "cannot open " + path.string() + ": " + std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    return sha256_fd_hex(fd, path);
}

}  // namespace kiln::cache
