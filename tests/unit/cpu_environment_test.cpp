// The cpu target when the machine lets it down: a compiler that rejects kiln's
// source (an internal error, the source saved where no one else can write), a
// compiler that cannot build anything or a disk that is full (the user's or the
// machine's problem, said as such), a cache directory that cannot be created or
// written (kernels still run, with one warning), a program-index record or a
// KILN_DUMP_DIR that cannot be written (one warning, the launch goes on). Most run
// in a fresh child process: the compiler and the cache are probed once per process.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>

#include "cache/disk_cache.h"
#include "child_process.h"
#include "cpu_diff.h"
#include "targets/cpu/program_index.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using child_process::in_child;
using child_process::run_child;
namespace fs = std::filesystem;

namespace {

Kernel env_kernel(const std::string& name) {
    return kernel(name, [](View<const f32, 1> x, View<f32, 1> y, Scalar<f32> a) {
        auto n = axis("n", 64);
        for (auto& nest : parallel(shape(axis("g", ceil_div(x.extent(0), 64))))) {
            auto i0 = nest.index() * 64;
            y(coord(i0), shape(n)).store(x[coord(i0), shape(n)] * a + y[coord(i0), shape(n)]);
        }
    });
}

std::vector<cpu_diff::Buffer> env_args() {
    return {cpu_diff::input(Kind::F32, {256}, 61), cpu_diff::inout(Kind::F32, {256}, 62), cpu_diff::scalar(Kind::F32, 2.5)};
}

fs::path fresh_dir(const std::string& what) {
    auto dir = fs::path(testing::TempDir()) / ("kiln-env-" + what + "-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

fs::path write_script(const fs::path& path, const std::string& text) {
    std::ofstream(path) << text;
    fs::permissions(path, fs::perms::owner_all);
    return path;
}

// The child's launch: "REPORT ok", "REPORT internal: <message>" or "REPORT error: <message>".
void report_launch(const Kernel& k) {
    try {
        cpu_diff::expect_same(k, env_args());
        std::printf("REPORT ok\n");
    } catch (const InternalError& e) {
        std::printf("REPORT internal: %s\n", e.what());
    } catch (const Error& e) {
        std::printf("REPORT error: %s\n", e.what());
    }
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

}  // namespace

// ---- children

TEST(CpuEnvironment, ChildLaunch) {
    if (!in_child()) GTEST_SKIP() << "runs as the child of the CpuEnvironment tests";
    // Where kiln used to save a failed source, predictably: plant a link there.
    if (const char* victim = std::getenv("KILN_TEST_VICTIM")) {
        auto bufs = env_args();
        std::vector<detail::Arg> args;
        for (auto& b : bufs) args.push_back(b.arg);
        auto k = env_kernel("env_saxpy");
        std::string plan = cpu().impl().plan(*detail::specialize(*k.shared_impl(), args, Loc::here()), args, {});
        std::string key = plan.substr(plan.find("cache key: ") + 11, 16);
        fs::create_symlink(victim, fs::path(std::getenv("TMPDIR")) / ("kiln-cpu-env_saxpy-" + key + ".cpp"));
    }
    if (std::getenv("KILN_TEST_FILE_LIMIT")) {  // a disk that fills up: writes past 4 KiB fail with EFBIG
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &limit);
    }
    report_launch(env_kernel("env_saxpy"));
    if (std::getenv("KILN_TEST_SECOND_KERNEL")) report_launch(env_kernel("env_saxpy_second"));
}

// ---- the compiler

// A compiler that builds a trivial program but rejects kiln's source: kiln's bug.
// The source is saved in a fresh private directory, 0600, not through the link
// planted at the path kiln once used.
TEST(CpuEnvironment, CompilerRejectingTheSourceIsAnInternalErrorAndTheSourceIsSavedPrivately) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("reject");
    auto cc = write_script(dir / "fakecc",
                           "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fakecc 1.0'; exit 0; fi\n"
                           "for a; do last=$a; done\ncase \"$last\" in *kiln-probe.cpp) exec c++ \"$@\";; esac\n"
                           "echo 'fakecc: error: boom' >&2\nexit 1\n");
    auto victim = dir / "victim.txt";
    std::ofstream(victim) << "precious";
    fs::create_directories(dir / "tmp");
    std::string out = run_child("CpuEnvironment.ChildLaunch", "CXX=" + cc.string() + " KILN_CACHE_DIR=" + (dir / "cache").string() +
                                                                   " TMPDIR=" + (dir / "tmp").string() + " KILN_TEST_VICTIM=" + victim.string());
    EXPECT_NE(out.find("REPORT internal: kiln internal error"), std::string::npos) << out;
    EXPECT_NE(out.find("the host compiler rejected the generated source of kernel 'env_saxpy' (fakecc 1.0)"), std::string::npos) << out;
    EXPECT_NE(out.find("fakecc: error: boom"), std::string::npos) << out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex("the generated source is saved in (\\S+/kiln-failed-\\w+)/(kiln-cpu-env_saxpy-[0-9a-f]{16}\\.cpp)")))
        << out;
    fs::path saved_dir = m[1].str(), saved = saved_dir / m[2].str();
    EXPECT_EQ(saved_dir.parent_path(), dir / "tmp");
    EXPECT_EQ(mode_of(saved_dir), 0700u);
    EXPECT_EQ(mode_of(saved), 0600u);
    std::ifstream in(saved);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(text.rfind("// kiln cpu kernel 'env_saxpy'", 0), 0u);
    std::ifstream v(victim);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(v)), {}), "precious") << "the planted link was followed";
    fs::remove_all(dir);
}

// A compiler that builds nothing at all: the environment's failure, not kiln's.
TEST(CpuEnvironment, CompilerThatBuildsNothingIsAKilnErrorNotAnInternalOne) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("false");
    std::string out = run_child("CpuEnvironment.ChildLaunch", "CXX=/bin/false KILN_CACHE_DIR=" + (dir / "cache").string());
    EXPECT_NE(out.find("REPORT error: cpu target: cannot compile kernel 'env_saxpy': the host compiler (/bin/false) fails on a trivial "
                       "program too, so the machine or the compiler is at fault, not the kernel: /bin/false exited with status 1 and "
                       "printed nothing"),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find("internal error"), std::string::npos) << out;
    fs::remove_all(dir);
}

// A cache filled where a host compiler is, copied to a machine without one (a
// $CXX that does not exist stands for it): the kernel it holds runs and matches the
// interpreter; one it lacks says, at its launch, that it cannot be built there.
TEST(CpuEnvironment, ACacheFilledWithACompilerRunsWhereThereIsNone) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("ship");
    std::string built = run_child("CpuEnvironment.ChildLaunch", "KILN_CACHE_DIR=" + (dir / "built").string());
    ASSERT_EQ(count(built, "REPORT ok"), 1u) << built;
    fs::copy(dir / "built", dir / "shipped", fs::copy_options::recursive);
    std::string shipped = run_child("CpuEnvironment.ChildLaunch", "CXX=" + (dir / "no-such-compiler").string() +
                                                                      " KILN_TEST_SECOND_KERNEL=1 KILN_CACHE_DIR=" + (dir / "shipped").string());
    EXPECT_EQ(count(shipped, "REPORT ok"), 1u) << shipped;
    EXPECT_NE(shipped.find(": cpu: cannot compile kernel 'env_saxpy_second': "), std::string::npos) << shipped;
    EXPECT_NE(shipped.find("; a cache filled on a machine with a host compiler (KILN_CACHE_DIR) runs only the kernels compiled there"),
              std::string::npos)
        << shipped;
    EXPECT_EQ(shipped.find("internal error"), std::string::npos) << shipped;
    fs::remove_all(dir);
}

// The linker finds the disk full: every compile fails the same way.
TEST(CpuEnvironment, FullDiskAtLinkTimeIsAKilnErrorNotAnInternalOne) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("nospace");
    auto cc = write_script(dir / "fullcc",
                           "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fullcc 1.0'; exit 0; fi\n"
                           "echo '/usr/bin/ld: final link failed: No space left on device' >&2\nexit 1\n");
    std::string out = run_child("CpuEnvironment.ChildLaunch", "CXX=" + cc.string() + " KILN_CACHE_DIR=" + (dir / "cache").string());
    EXPECT_NE(out.find("REPORT error: cpu target: cannot compile kernel 'env_saxpy': the host compiler (" + cc.string() + ") fails on a trivial"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("final link failed: No space left on device"), std::string::npos) << out;
    EXPECT_EQ(out.find("internal error"), std::string::npos) << out;
    fs::remove_all(dir);
}

// ---- the cache

// A cache directory that cannot be created (a file stands where its parent should
// be; root cannot get past that either): kernels are built and run without
// caching, with one warning for two kernels.
TEST(CpuEnvironment, UncreatableCacheDirectoryDegradesToNoCaching) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("nocache");
    std::ofstream(dir / "file") << "not a directory";
    std::string out = run_child("CpuEnvironment.ChildLaunch",
                                "KILN_CACHE_DIR=" + (dir / "file" / "cache").string() + " TMPDIR=" + dir.string() + " KILN_TEST_SECOND_KERNEL=1");
    EXPECT_EQ(count(out, "REPORT ok"), 2u) << out;
    EXPECT_EQ(count(out, "kiln: warning:"), 1u) << out;
    EXPECT_NE(out.find("kiln: warning: the kernel cache cannot be used (cache: cannot access cache directory " + (dir / "file" / "cache").string() +
                       ": Not a directory); kernels are built without caching"),
              std::string::npos)
        << out;
    std::size_t left = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(dir)) ++left;
    EXPECT_EQ(left, 1u) << "the private build directories were not removed";
    fs::remove_all(dir);
}

// A read-only cache directory (not enforceable for root, who writes anyway).
TEST(CpuEnvironment, ReadOnlyCacheDirectoryDegradesToNoCaching) {
    if (in_child()) GTEST_SKIP();
    if (geteuid() == 0) GTEST_SKIP() << "root writes to read-only directories; UncreatableCacheDirectory covers this path";
    auto dir = fresh_dir("rocache");
    fs::create_directories(dir / "cache" / "entries");
    fs::create_directories(dir / "cache" / "tmp");
    for (auto sub : {"cache/entries", "cache/tmp", "cache"}) fs::permissions(dir / sub, fs::perms::owner_read | fs::perms::owner_exec);
    std::string out = run_child("CpuEnvironment.ChildLaunch", "KILN_CACHE_DIR=" + (dir / "cache").string());
    EXPECT_NE(out.find("REPORT ok"), std::string::npos) << out;
    EXPECT_NE(out.find("kiln: warning: the kernel cache cannot be used (cache: cannot create a staging directory in"), std::string::npos) << out;
    for (auto sub : {"cache", "cache/entries", "cache/tmp"}) fs::permissions(dir / sub, fs::perms::owner_all);
    fs::remove_all(dir);
}

// Every write fails past 4 KiB, in the cache and in the temporary directory: the
// error names the file and the system's reason.
TEST(CpuEnvironment, AFullDiskIsAnErrorThatSaysWhichFileAndWhy) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("full");
    std::string out = run_child("CpuEnvironment.ChildLaunch",
                                "KILN_CACHE_DIR=" + (dir / "cache").string() + " TMPDIR=" + dir.string() + " KILN_TEST_FILE_LIMIT=1");
    EXPECT_NE(out.find("kiln: warning: the kernel cache cannot be used (cannot write " + (dir / "cache" / "tmp").string()), std::string::npos) << out;
    EXPECT_TRUE(std::regex_search(out, std::regex("REPORT error: cpu target: cannot build kernel 'env_saxpy': cannot write \\S+/kiln-cpu-\\w+/kernel\\.cpp: File too large"))) << out;
    fs::remove_all(dir);
}

// The program index only saves time: a record the cache cannot take is one
// warning, and the record still serves this process.
TEST(CpuEnvironment, AProgramIndexRecordTheCacheCannotTakeIsAWarning) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("index");
    cache::DiskCache disk(dir / "cache");
    fs::remove_all(dir / "cache" / "tmp");
    std::ofstream(dir / "cache" / "tmp") << "no staging directories here";
    const std::string key1(64, 'a'), key2(64, 'b');
    testing::internal::CaptureStderr();
    EXPECT_NO_THROW(native::add_to_index(&disk, key1, {std::string(64, 'c'), 128}));
    EXPECT_NO_THROW(native::add_to_index(&disk, key2, {std::string(64, 'd'), 256}));
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_LE(count(err, "kiln: warning:"), 1u) << err;  // one per process: an earlier test may have used it up
    auto r = native::find_in_index(&disk, key2);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->frame_bytes, 256);
    EXPECT_FALSE(disk.find(key1));
    fs::remove_all(dir);
}

// A KILN_DUMP_DIR that cannot be created: one warning, launches run.
TEST(CpuEnvironment, AnUnwritableDumpDirIsAWarning) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("dump");
    std::ofstream(dir / "file") << "not a directory";
    std::string out = run_child("CpuEnvironment.ChildLaunch", "KILN_DUMP_DIR=" + (dir / "file" / "dump").string() +
                                                                   " KILN_CACHE_DIR=" + (dir / "cache").string() + " KILN_TEST_SECOND_KERNEL=1");
    EXPECT_EQ(count(out, "REPORT ok"), 2u) << out;
    EXPECT_EQ(count(out, "kiln: warning:"), 1u) << out;
    EXPECT_NE(out.find("kiln: warning: KILN_DUMP_DIR='" + (dir / "file" / "dump").string() + "': cannot create " + (dir / "file" / "dump").string() +
                       ": Not a directory; generated sources are not dumped"),
              std::string::npos)
        << out;
    fs::remove_all(dir);
}

// Two processes with different $CXX commands (one word apart) into one cache:
// neither reuses the other's kernel (a sanitizer or -O0 build must never serve
// a plain run), so the cache ends with two kernels and two index records, and the
// record a process without a compiler finds (the later kernel's).
TEST(CpuEnvironment, TwoCxxCommandsGiveTwoCacheEntries) {
    if (in_child()) GTEST_SKIP();
    auto dir = fresh_dir("cxx");
    for (const char* cxx : {"c++", "'c++ -O1'"}) {
        std::string out = run_child("CpuEnvironment.ChildLaunch", std::string("CXX=") + cxx + " KILN_CACHE_DIR=" + (dir / "cache").string());
        EXPECT_NE(out.find("REPORT ok"), std::string::npos) << out;
    }
    std::size_t entries = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(dir / "cache" / "entries")) ++entries;
    EXPECT_EQ(entries, 5u);
    fs::remove_all(dir);
}
