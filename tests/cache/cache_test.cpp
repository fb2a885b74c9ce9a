// The on-disk cache: hashing, keys, location and permission rules, verification
// of entries, and publication racing across processes.
#include "cache/disk_cache.h"
#include "cache/sha256.h"

#include <kiln/error.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using kiln::cache::DiskCache;
using kiln::cache::KeyBuilder;
using kiln::cache::sha256_hex;

namespace {

void write_file(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary);
    out << bytes;
    ASSERT_TRUE(out.good()) << p;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

// The message of the kiln::Error (or InternalError) `f` throws; fails the test if none.
template <class E = kiln::Error>
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an exception";
    return "";
}

#define EXPECT_CONTAINS(haystack, needle)                                              \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos)                   \
        << "'" << (haystack) << "' does not contain '" << (needle) << "'"

// Restores the variables the location rules read.
class EnvGuard {
public:
    EnvGuard() {
        for (const char* n : names_) {
            const char* v = std::getenv(n);
            saved_.push_back(v ? std::optional<std::string>(v) : std::nullopt);
        }
    }
    ~EnvGuard() {
        for (size_t i = 0; i < std::size(names_); ++i) {
            if (saved_[i]) ::setenv(names_[i], saved_[i]->c_str(), 1);
            else ::unsetenv(names_[i]);
        }
    }

private:
    static constexpr const char* names_[] = {"KILN_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
    std::vector<std::optional<std::string>> saved_;
};

class CacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/kiln-cache-test-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        base_ = tmpl;
        root_ = base_ / "cache";
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(base_, ec);  // we run as root: read-only entries are no obstacle
    }

    // A producer that writes `files` and counts its calls.
    std::function<void(const fs::path&)> producer(std::vector<std::pair<std::string, std::string>> files) {
        return [this, files](const fs::path& staging) {
            ++produced_;
            for (const auto& [name, bytes] : files) write_file(staging / name, bytes);
        };
    }

    size_t count_children(const fs::path& dir) {
        return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
    }

    fs::path base_, root_;
    int produced_ = 0;
    const std::string key_ = KeyBuilder().add("ir", "func f() {}").add("target", "cpu").hex();
};

// Runs `body` in a forked child and returns its exit status (0 = success).
int in_child(const std::function<int()>& body) {
    pid_t pid = ::fork();
    if (pid == 0) {
        int rc = 1;
        try {
            rc = body();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "child: %s\n", e.what());
        }
        ::_exit(rc);  // not exit(): no gtest teardown in the child
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

// ---- hashing and keys ----

TEST(Sha256, NistVectors) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalAndRepeatableDigest) {
    kiln::cache::Sha256 h;
    for (int i = 0; i < 1000; ++i) h.update(std::string(1000, 'a'));
    const std::string million_a = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    EXPECT_EQ(h.hex_digest(), million_a);
    EXPECT_EQ(h.hex_digest(), million_a);  // digest does not consume the state
    h.update("x");
    EXPECT_EQ(h.hex_digest(), sha256_hex(std::string(1000000, 'a') + "x"));
}

TEST_F(CacheTest, Sha256FileAndMissingFile) {
    write_file(base_ / "f", "abc");
    EXPECT_EQ(kiln::cache::sha256_file_hex(base_ / "f"), sha256_hex("abc"));
    std::string msg = error_of([&] { kiln::cache::sha256_file_hex(base_ / "absent"); });
    EXPECT_CONTAINS(msg, (base_ / "absent").string());
    EXPECT_CONTAINS(msg, "No such file");
}

TEST(KeyBuilder, FieldsCannotRunTogether) {
    EXPECT_NE(KeyBuilder().add("x", "ab").add("y", "c").hex(), KeyBuilder().add("x", "a").add("y", "bc").hex());
    EXPECT_NE(KeyBuilder().add("ab", "c").hex(), KeyBuilder().add("a", "bc").hex());
    EXPECT_NE(KeyBuilder().add("a", "b").hex(), KeyBuilder().add("b", "a").hex());
    EXPECT_NE(KeyBuilder().add("a", "").hex(), KeyBuilder().hex());
    std::string k = KeyBuilder().add("ir", "x").add("arch", "sm_90").hex();
    EXPECT_EQ(k, KeyBuilder().add("ir", "x").add("arch", "sm_90").hex());
    EXPECT_EQ(k.size(), 64u);
}

// ---- location and permissions ----

TEST_F(CacheTest, KilnCacheDirWins) {
    EnvGuard env;
    ::setenv("KILN_CACHE_DIR", (base_ / "explicit").c_str(), 1);
    ::setenv("XDG_CACHE_HOME", (base_ / "xdg").c_str(), 1);
    ::setenv("HOME", (base_ / "home").c_str(), 1);
    EXPECT_EQ(DiskCache::open().root(), base_ / "explicit");
    EXPECT_FALSE(fs::exists(base_ / "xdg"));
}

TEST_F(CacheTest, XdgCacheHomeThenHome) {
    EnvGuard env;
    ::unsetenv("KILN_CACHE_DIR");
    ::setenv("XDG_CACHE_HOME", (base_ / "xdg").c_str(), 1);
    ::setenv("HOME", (base_ / "home").c_str(), 1);
    EXPECT_EQ(DiskCache::open().root(), base_ / "xdg" / "kiln");
    ::setenv("XDG_CACHE_HOME", "relative/ignored", 1);  // the XDG spec says to ignore relative paths
    EXPECT_EQ(DiskCache::open().root(), base_ / "home" / ".cache" / "kiln");
    ::unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(DiskCache::open().root(), base_ / "home" / ".cache" / "kiln");
}

TEST_F(CacheTest, CreatedPrivateWithParents) {
    fs::path root = base_ / "a" / "b" / "kiln";
    mode_t old = ::umask(022);
    DiskCache cache(root);
    ::umask(old);
    for (const fs::path& p : {base_ / "a", base_ / "a" / "b", root, root / "entries", root / "tmp"})
        EXPECT_EQ(mode_of(p), 0700u) << p;
}

TEST_F(CacheTest, RefusesWorldWritable) {
    fs::create_directory(root_);
    ::chmod(root_.c_str(), 0777);
    std::string msg = error_of([&] { DiskCache cache(root_); });
    EXPECT_CONTAINS(msg, root_.string());
    EXPECT_CONTAINS(msg, "writable");
    EXPECT_CONTAINS(msg, "0777");
}

TEST_F(CacheTest, RefusesGroupWritable) {
    fs::create_directory(root_);
    ::chmod(root_.c_str(), 0770);
    std::string msg = error_of([&] { DiskCache cache(root_); });
    EXPECT_CONTAINS(msg, root_.string());
    EXPECT_CONTAINS(msg, "writable by group or others");
}

TEST_F(CacheTest, RefusesGroupWritableSubdirectory) {
    DiskCache{root_};
    ::chmod((root_ / "entries").c_str(), 0730);
    std::string msg = error_of([&] { DiskCache cache(root_); });
    EXPECT_CONTAINS(msg, (root_ / "entries").string());
    EXPECT_CONTAINS(msg, "writable");
}

TEST_F(CacheTest, RefusesDirectoryOwnedByAnotherUser) {
    ASSERT_EQ(::geteuid(), 0u) << "this test chowns, so it needs root";
    fs::create_directory(root_);
    ::chmod(root_.c_str(), 0700);
    ASSERT_EQ(::chown(root_.c_str(), 12345, 12345), 0);
    std::string msg = error_of([&] { DiskCache cache(root_); });
    EXPECT_CONTAINS(msg, root_.string());
    EXPECT_CONTAINS(msg, "owned by uid 12345");
}

TEST_F(CacheTest, RefusesNonDirectory) {
    write_file(root_, "not a directory");
    std::string msg = error_of([&] { DiskCache cache(root_); });
    EXPECT_CONTAINS(msg, root_.string());
    EXPECT_CONTAINS(msg, "not a directory");
}

// ---- publish and verification ----

TEST_F(CacheTest, PublishThenFindHits) {
    DiskCache cache(root_);
    std::string why;
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_EQ(why, "no entry");

    fs::path dir = cache.get_or_build(key_, producer({{"kernel.so", "ELF..."}, {"kernel.cpp", "int f();"}}));
    EXPECT_EQ(dir, root_ / "entries" / key_);
    EXPECT_EQ(read_file(dir / "kernel.so"), "ELF...");
    EXPECT_EQ(mode_of(dir / "kernel.so"), 0400u);
    EXPECT_EQ(mode_of(dir), 0500u);
    EXPECT_EQ(read_file(dir / "kiln-manifest"),
              "kiln-cache-manifest 1\n" + sha256_hex("int f();") + " 8 kernel.cpp\n" + sha256_hex("ELF...") +
                  " 6 kernel.so\n");

    auto hit = cache.find(key_);
    ASSERT_TRUE(hit);
    EXPECT_EQ(*hit, dir);
    EXPECT_EQ(cache.get_or_build(key_, producer({})), dir);
    EXPECT_EQ(produced_, 1);
    EXPECT_EQ(count_children(root_ / "tmp"), 0u);  // staging never outlives publish
}

TEST_F(CacheTest, ReadReturnsTheVerifiedBytesInTheOrderAsked) {
    DiskCache cache(root_);
    const std::string_view names[] = {"b.ptx", "a.cubin"};
    std::string why;
    EXPECT_FALSE(cache.read(key_, names, &why));
    EXPECT_EQ(why, "no entry");
    const std::string cubin(70000, 'c');  // larger than one read buffer
    cache.get_or_build(key_, producer({{"a.cubin", cubin}, {"b.ptx", "ptx text"}, {"c.log", "log"}}));
    auto got = cache.read(key_, names);
    ASSERT_TRUE(got);
    ASSERT_EQ(got->size(), 2u);
    EXPECT_EQ((*got)[0], "ptx text");
    EXPECT_EQ((*got)[1], cubin);
    EXPECT_TRUE(cache.read(key_, {}));  // nothing asked: find() by another name
}

TEST_F(CacheTest, ReadDetectsAlteredBytesAndMissingArtifacts) {
    DiskCache cache(root_);
    fs::path dir = cache.get_or_build(key_, producer({{"k.cubin", std::string(1000, 'x')}}));
    {
        std::fstream f(dir / "k.cubin", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(999);
        f.put('y');
    }
    const std::string_view cubin[] = {"k.cubin"};
    std::string why;
    EXPECT_FALSE(cache.read(key_, cubin, &why));
    EXPECT_CONTAINS(why, "k.cubin does not match its SHA-256");
    EXPECT_FALSE(fs::exists(dir));

    // An entry without an artifact the caller needs is not the entry it wants.
    cache.get_or_build(key_, producer({{"k.cubin", "x"}}));
    const std::string_view both[] = {"k.cubin", "k.ptx"};
    EXPECT_FALSE(cache.read(key_, both, &why));
    EXPECT_CONTAINS(why, "the entry has no k.ptx");
    EXPECT_EQ(produced_, 2);
}

// read() hashes what it returns; the artifacts beside them (a kernel's source and
// PTX, when a launch reads its cubin) are checked for presence and size, and hashed
// when they are asked for. find() hashes everything: its caller uses the files in place.
TEST_F(CacheTest, ReadHashesWhatItReturnsAndSizesTheRest) {
    DiskCache cache(root_);
    auto alter_last_byte = [](const fs::path& file) {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-1, std::ios::end);
        f.put('#');
    };
    fs::path dir = cache.get_or_build(key_, producer({{"a.cubin", "cubin bytes"}, {"b.ptx", "ptx text"}, {"c.log", "log"}}));
    alter_last_byte(dir / "b.ptx");
    const std::string_view cubin[] = {"a.cubin"}, ptx[] = {"b.ptx"};
    auto got = cache.read(key_, cubin);
    ASSERT_TRUE(got);
    EXPECT_EQ((*got)[0], "cubin bytes");
    std::string why;
    EXPECT_FALSE(cache.read(key_, ptx, &why));
    EXPECT_CONTAINS(why, "b.ptx does not match its SHA-256");
    EXPECT_FALSE(fs::exists(dir));

    dir = cache.get_or_build(key_, producer({{"a.cubin", "cubin bytes"}, {"b.ptx", "ptx text"}}));
    alter_last_byte(dir / "b.ptx");
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "b.ptx does not match its SHA-256");

    dir = cache.get_or_build(key_, producer({{"a.cubin", "cubin bytes"}, {"b.ptx", "ptx text"}}));
    fs::resize_file(dir / "b.ptx", 3);  // a torn entry is discarded whatever is read of it
    EXPECT_FALSE(cache.read(key_, cubin, &why));
    EXPECT_CONTAINS(why, "b.ptx is 3 bytes, manifest says 8");
    EXPECT_EQ(produced_, 3);
}

TEST_F(CacheTest, TruncatedArtifactIsRebuilt) {
    DiskCache cache(root_);
    fs::path dir = cache.get_or_build(key_, producer({{"a.cubin", std::string(4096, 'c')}}));
    fs::resize_file(dir / "a.cubin", 100);
    std::string why;
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "a.cubin is 100 bytes, manifest says 4096");
    EXPECT_CONTAINS(why, dir.string());
    EXPECT_FALSE(fs::exists(dir));  // discarded, not left for the next reader

    fs::resize_file(cache.get_or_build(key_, producer({{"a.cubin", std::string(4096, 'c')}})) / "a.cubin", 10);
    EXPECT_EQ(read_file(cache.get_or_build(key_, producer({{"a.cubin", std::string(4096, 'c')}})) / "a.cubin"),
              std::string(4096, 'c'));
    EXPECT_EQ(produced_, 3);
}

TEST_F(CacheTest, CorruptedByteIsDetected) {
    DiskCache cache(root_);
    fs::path dir = cache.get_or_build(key_, producer({{"k.so", std::string(1000, 'x')}}));
    {
        std::fstream f(dir / "k.so", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(500);
        f.put('y');
    }
    EXPECT_EQ(fs::file_size(dir / "k.so"), 1000u);
    std::string why;
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "k.so does not match its SHA-256");
    cache.get_or_build(key_, producer({{"k.so", std::string(1000, 'x')}}));
    EXPECT_EQ(produced_, 2);
    EXPECT_TRUE(cache.find(key_));
}

TEST_F(CacheTest, MissingOrMalformedManifestIsDetected) {
    DiskCache cache(root_);
    fs::path dir = cache.get_or_build(key_, producer({{"k.so", "bytes"}}));
    fs::remove(dir / "kiln-manifest");
    std::string why;
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "kiln-manifest is missing");

    dir = cache.get_or_build(key_, producer({{"k.so", "bytes"}}));
    write_file(dir / "kiln-manifest", "kiln-cache-manifest 2\n");
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "manifest does not start with 'kiln-cache-manifest 1'");

    dir = cache.get_or_build(key_, producer({{"k.so", "bytes"}}));
    write_file(dir / "kiln-manifest", "kiln-cache-manifest 1\n" + sha256_hex("bytes") + " 5 k.so");
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "truncated");
    EXPECT_EQ(produced_, 3);
}

TEST_F(CacheTest, SymlinkInEntryIsCorrupt) {
    DiskCache cache(root_);
    write_file(base_ / "outside", "ELF");
    fs::path dir = cache.get_or_build(key_, producer({{"k.so", "ELF"}}));
    fs::remove(dir / "k.so");
    fs::create_symlink(base_ / "outside", dir / "k.so");  // same bytes, still refused
    std::string why;
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "k.so is a symlink");
    EXPECT_TRUE(fs::exists(base_ / "outside"));  // discarding never follows the link

    dir = cache.get_or_build(key_, producer({{"k.so", "ELF"}}));
    fs::create_symlink(base_ / "outside", dir / "extra.so");
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "unlisted symlink extra.so");
}

TEST_F(CacheTest, EntryThatIsNotADirectoryIsReplaced) {
    DiskCache cache(root_);
    write_file(root_ / "entries" / key_, "junk");
    std::string why;
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_CONTAINS(why, "entry is not a directory");
    write_file(root_ / "entries" / key_, "junk");
    fs::path dir = cache.publish(key_, producer({{"k.so", "ELF"}}));  // rename must displace the junk
    EXPECT_EQ(read_file(dir / "k.so"), "ELF");
}

TEST_F(CacheTest, LosingPublishUsesTheExistingEntry) {
    DiskCache cache(root_);
    fs::path first = cache.publish(key_, producer({{"k.so", "first"}}));
    fs::path second = cache.publish(key_, producer({{"k.so", "second"}}));
    EXPECT_EQ(first, second);
    EXPECT_EQ(read_file(second / "k.so"), "first");
    EXPECT_EQ(count_children(root_ / "tmp"), 0u);
}

TEST_F(CacheTest, ProducerFailureLeavesNothing) {
    DiskCache cache(root_);
    EXPECT_THROW(cache.get_or_build(key_,
                                    [](const fs::path& s) {
                                        write_file(s / "half.so", "half");
                                        throw std::runtime_error("compiler failed");
                                    }),
                 std::runtime_error);
    EXPECT_FALSE(cache.find(key_));
    EXPECT_EQ(count_children(root_ / "tmp"), 0u);
}

TEST_F(CacheTest, ProducerMayWriteOnlyPlainFiles) {
    DiskCache cache(root_);
    std::string msg = error_of<kiln::InternalError>(
        [&] { cache.publish(key_, [](const fs::path& s) { fs::create_directory(s / "obj"); }); });
    EXPECT_CONTAINS(msg, "obj', which is not a regular file");
    msg = error_of<kiln::InternalError>(
        [&] { cache.publish(key_, [](const fs::path& s) { write_file(s / "kiln-manifest", "x"); }); });
    EXPECT_CONTAINS(msg, "artifact names are");
    msg = error_of<kiln::InternalError>([&] { cache.find("../escape"); });
    EXPECT_CONTAINS(msg, "cache key '../escape' is not a plain file name");
    EXPECT_EQ(count_children(root_ / "tmp"), 0u);
}

// ---- crash safety and concurrency ----

TEST_F(CacheTest, LeftoverStagingIsNotAnEntry) {
    DiskCache cache(root_);
    // What a producer killed just before its rename leaves behind: complete, even.
    fs::path dead = root_ / "tmp" / "stage-dead01";
    fs::create_directory(dead);
    write_file(dead / "k.so", "ELF");
    write_file(dead / "kiln-manifest", "kiln-cache-manifest 1\n" + sha256_hex("ELF") + " 3 k.so\n");
    std::string why;
    EXPECT_FALSE(cache.find(key_, &why));
    EXPECT_EQ(why, "no entry");
    cache.get_or_build(key_, producer({{"k.so", "ELF"}}));
    EXPECT_EQ(produced_, 1);
    EXPECT_TRUE(fs::exists(dead));  // young: its producer might still be alive
}

TEST_F(CacheTest, StaleStagingIsCleanedUnlessLocked) {
    DiskCache cache(root_);
    auto make_old = [&](const std::string& name) {
        fs::path p = root_ / "tmp" / name;
        fs::create_directory(p);
        write_file(p / "k.so", "x");
        struct timespec times[2] = {{std::time(nullptr) - 7200, 0}, {std::time(nullptr) - 7200, 0}};
        EXPECT_EQ(::utimensat(AT_FDCWD, p.c_str(), times, 0), 0);
        return p;
    };
    fs::path dead = make_old("stage-dead01"), discarded = make_old("discard-old001"), live = make_old("stage-live01");
    fs::path foreign = make_old("not-ours");
    int fd = ::open(live.c_str(), O_RDONLY | O_DIRECTORY);  // a slow producer, still at work
    ASSERT_EQ(::flock(fd, LOCK_EX), 0);
    cache.publish(key_, producer({{"k.so", "ELF"}}));
    ::close(fd);
    EXPECT_FALSE(fs::exists(dead));
    EXPECT_FALSE(fs::exists(discarded));
    EXPECT_TRUE(fs::exists(live));
    EXPECT_TRUE(fs::exists(foreign));
}

TEST_F(CacheTest, FourProcessesRaceForOneKey) {
    DiskCache{root_};
    const std::string payload = [] {
        std::string s(1 << 20, '\0');
        for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>((i * 2654435761u) >> 13);
        return s;
    }();
    int go[2];
    ASSERT_EQ(::pipe(go), 0);
    std::vector<pid_t> kids;
    for (int i = 0; i < 4; ++i) {
        pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int rc = 1;
            try {
                ::close(go[1]);
                char c;
                (void)::read(go[0], &c, 1);  // start together: EOF once the parent closes its end
                DiskCache cache(root_);
                fs::path dir = cache.get_or_build(key_, [&](const fs::path& staging) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    write_file(staging / "big.bin", payload);
                    std::ofstream(base_ / "produce.log", std::ios::app) << "x";
                });
                std::string got = read_file(dir / "big.bin");
                write_file(base_ / ("seen" + std::to_string(i)), sha256_hex(got) + " " + dir.string());
                rc = got == payload ? 0 : 2;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "child %d: %s\n", i, e.what());
            }
            ::_exit(rc);
        }
        kids.push_back(pid);
    }
    ::close(go[0]);
    ::close(go[1]);
    for (pid_t pid : kids) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    }
    const std::string expected = sha256_hex(payload) + " " + (root_ / "entries" / key_).string();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(read_file(base_ / ("seen" + std::to_string(i))), expected);
    EXPECT_EQ(count_children(root_ / "entries"), 1u);
    EXPECT_EQ(count_children(root_ / "tmp"), 0u);
    size_t builds = read_file(base_ / "produce.log").size();
    EXPECT_GE(builds, 1u);
    EXPECT_LE(builds, 4u);
    EXPECT_TRUE(DiskCache(root_).find(key_));
}

// Read-only entries (0500 directories) must still be discardable by their owner
// when not root: root bypasses the permission checks the other tests would hit.
TEST_F(CacheTest, WorksForAnUnprivilegedOwner) {
    ASSERT_EQ(::geteuid(), 0u) << "this test drops to another uid, so it needs root";
    ASSERT_EQ(::chmod(base_.c_str(), 0755), 0);
    fs::create_directory(root_);
    ASSERT_EQ(::chmod(root_.c_str(), 0700), 0);
    ASSERT_EQ(::chown(root_.c_str(), 12345, 12345), 0);
    int rc = in_child([&] {
        if (::setgid(12345) != 0 || ::setuid(12345) != 0) return 10;
        DiskCache cache(root_);
        int builds = 0;
        auto produce = [&](const fs::path& s) { ++builds, write_file(s / "k.so", "ELF"); };
        fs::path dir = cache.get_or_build(key_, produce);
        // Corrupt it as its owner would have to: make the directory writable first.
        if (::chmod(dir.c_str(), 0700) != 0 || ::chmod((dir / "k.so").c_str(), 0600) != 0) return 11;
        write_file(dir / "k.so", "EL");
        if (::chmod(dir.c_str(), 0500) != 0) return 12;
        std::string why;
        if (cache.find(key_, &why) || why.find("k.so is 2 bytes") == std::string::npos) return 13;
        if (read_file(cache.get_or_build(key_, produce) / "k.so") != "ELF" || builds != 2) return 14;
        if (std::distance(fs::directory_iterator(root_ / "tmp"), fs::directory_iterator()) != 0) return 15;
        return 0;
    });
    EXPECT_EQ(rc, 0);
}
