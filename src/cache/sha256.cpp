// OpenSSL's direct SHA-256 functions rather than EVP: the first EVP digest in a
// process initialises OpenSSL's provider machinery, about 1 ms measured here
// (OpenSSL 3.0), more than a whole warm cache hit is allowed to take; the direct
// functions cost nothing up front and use the same SHA-NI/AVX code. They are
// marked deprecated in OpenSSL 3 (in favour of EVP) but remain part of its API.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "cache/sha256.h"

#include <kiln/error.h>

#include <openssl/sha.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <vector>
#include <fcntl.h>
#include <unistd.h>

namespace kiln::cache {

namespace {

// Sha256::state_ is storage for a SHA256_CTX (an array of unsigned char, in
// which C++20 creates the trivially copyable context implicitly).
static_assert(sizeof(SHA256_CTX) <= 112 && alignof(SHA256_CTX) <= 8, "Sha256::state_ must hold a SHA256_CTX");
SHA256_CTX* context(unsigned char* state) { return std::launder(reinterpret_cast<SHA256_CTX*>(state)); }

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

// The SHA256_* functions fail only on a null argument, which these never pass.
Sha256::Sha256() { SHA256_Init(context(state_)); }

void Sha256::update(std::string_view bytes) { SHA256_Update(context(state_), bytes.data(), bytes.size()); }

std::string Sha256::hex_digest() const {
    // Finalising consumes a context, so finalise a copy and keep ours running.
    SHA256_CTX copy;
    std::memcpy(&copy, state_, sizeof copy);
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256_Final(digest, &copy);
    return to_hex(digest, SHA256_DIGEST_LENGTH);
}

std::string sha256_hex(std::string_view bytes) {
    Sha256 h;
    h.update(bytes);
    return h.hex_digest();
}

std::string sha256_fd_hex(int fd, const std::filesystem::path& path, std::uint64_t* bytes_read) {
    Sha256 h;
    std::uint64_t total = 0;
    // Heap, not stack: callers may run on small thread stacks. 16 KiB: a larger
    // buffer costs more in first-touch page faults (a fresh process verifying a
    // cache entry) than it saves in read calls.
    std::vector<char> buf(1 << 14);
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
