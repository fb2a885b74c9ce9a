// The cpu target's runtime behaviour: out-of-range errors worded exactly as the
// interpreter's (and for the same instance), thread counts that never change a
// byte, 64-bit offsets when a view's span needs them, the plan and the source,
// KILN_DUMP_DIR, the on-disk cache seen from fresh processes (a kernel found
// through the program index, with timings; an index naming a vanished kernel; an
// out-of-range error after an index hit; four processes racing into one empty
// cache). A failing compiler and an unusable cache: cpu_environment_test.cpp.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "child_process.h"
#include "cpu_diff.h"
#include "targets/cpu/module_cache.h"
#include "targets/cpu/program_index.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using cpu_diff::Buffer;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;

namespace {

// The message a launch raises on a target ("" when it succeeds).
std::string error_of(const Kernel& k, const Target& t, const std::vector<Buffer>& bufs) {
    try {
        cpu_diff::run_on(k, t, bufs);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

void expect_same_error(const Kernel& k, const std::vector<Buffer>& bufs, const std::string& must_contain) {
    std::string want = error_of(k, interp(), bufs), got = error_of(k, cpu(), bufs);
    EXPECT_NE(want.find(must_contain), std::string::npos) << want;
    EXPECT_EQ(want, got);
}

// Sets an environment variable for one scope.
struct ScopedEnv {
    std::string name;
    std::optional<std::string> old;
    ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
        if (const char* v = std::getenv(name.c_str())) old = v;
        setenv(name.c_str(), value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old) setenv(name.c_str(), old->c_str(), 1);
        else unsetenv(name.c_str());
    }
};

Kernel checked_copy(bounds::Policy policy, const std::string& name = "checked_copy") {
    return kernel(name, [policy](View<const f32, 2> x, View<f32, 2> y) {
        auto g = axis("g", 40);
        auto r = axis("r", 2), c = axis("c", 4);
        for (auto& nest : parallel(shape(g))) {
            auto r0 = nest.index() * 2;
            auto v = x[coord(r0, 1), shape(r, c), policy];   // column 4 is outside a 4-column view
            y(coord(r0, 0), shape(r, c), policy).store(v);
        }
    });
}

TEST(CpuErrors, OutOfRangeMatchesTheInterpreter) {
    // Instances 0..39 all read past the last column; the first one (pid order) is reported.
    expect_same_error(checked_copy(bounds::check), {input(Kind::F32, {80, 4}, 50), output(Kind::F32, {80, 4})},
                      "load: index (0, 4) is out of range for argument 0 of extent 80x4 in instance 0");
    expect_same_error(checked_copy(bounds::assume), {input(Kind::F32, {80, 4}, 50), output(Kind::F32, {80, 4})},
                      "(bounds::assume was violated) in instance 0");
    // Only the late instances fail (rows run out); many chunks, several failing.
    auto late = kernel("late_store", [](View<const f32, 1> x, View<f32, 1> y) {
        auto g = axis("g", 64);
        auto n = axis("n", 4);
        for (auto& nest : parallel(shape(g))) y(coord(nest.index() * 4), shape(n), bounds::check).store(x[coord(nest.index() * 4), shape(n)]);
    });
    for (const char* threads : {"1", "3", "8"}) {
        ScopedEnv env("KILN_NUM_THREADS", threads);
        expect_same_error(late, {input(Kind::F32, {150}, 51), output(Kind::F32, {150})},
                          "store: index (150) is out of range for argument 1 of extent 150 in instance 37");
    }
    // Without a grid there is no instance in the message.
    auto single = kernel("single", [](View<const i32, 2> x, View<i32, 2> y) {
        y(coord(2, 3), shape(2, 2), bounds::check).store(x[coord(0, 0), shape(2, 2)]);
    });
    expect_same_error(single, {input(Kind::I32, {3, 4}, 52), output(Kind::I32, {3, 4})},
                      "store: index (2, 4) is out of range for argument 1 of extent 3x4");
    // A load before the grid fails before any instance runs (every instance would too).
    auto top = kernel("top_level_load", [](View<const f32, 1> w, View<f32, 1> y) {
        auto n = axis("n", 4);
        auto weights = w[coord(2), shape(n), bounds::check];
        for (auto& nest : parallel(shape(axis("g", 3)))) y(coord(nest.index() * 4), shape(n), bounds::check).store(weights * 2.0f);
    });
    expect_same_error(top, {input(Kind::F32, {5}, 49), output(Kind::F32, {11})}, "load: index (5) is out of range for argument 0 of extent 5");
    expect_same(top, {input(Kind::F32, {6}, 49), output(Kind::F32, {12})});
}

TEST(CpuErrors, CaughtErrorLeavesTheTargetUsable) {
    auto k = checked_copy(bounds::check);
    EXPECT_THROW(cpu_diff::run_on(k, cpu(), {input(Kind::F32, {80, 4}, 53), output(Kind::F32, {80, 4})}), Error);
    auto ok = kernel("fine", [](View<const f32, 1> x, View<f32, 1> y) {
        auto n = axis("n", 8);
        for (auto& nest : parallel(shape(axis("g", 2)))) y(coord(nest.index() * 8), shape(n), bounds::check).store(x[coord(nest.index() * 8), shape(n)]);
    });
    expect_same(ok, {input(Kind::F32, {16}, 54), output(Kind::F32, {16})});
}

TEST(CpuErrors, NegativeGridExtent) {
    auto k = kernel("shrinking", [](View<const f32, 1> x, View<f32, 1> y) {
        auto g = axis("g", x.extent(0) - 5);  // dynamic: positive when traced, negative below
        for (auto& nest : parallel(shape(g))) y(coord(nest.index()), shape(1)).store(x[coord(nest.index()), shape(1)]);
    });
    expect_same(k, {input(Kind::F32, {9}, 55), output(Kind::F32, {9})});
    expect_same_error(k, {input(Kind::F32, {3}, 56), output(Kind::F32, {3})}, "parallel: negative grid extent -2");
}

// Grid extents computed in the kernel: from a scalar parameter, and from a count
// read out of a view (with bounds::check, so kiln_grid itself can raise).
TEST(CpuErrors, GridExtentsFromParametersAndLoads) {
    auto k = kernel("dynamic_grid", [](View<const i64, 1> counts, Scalar<i64> blocks, View<f32, 1> y) {
        auto one = axis("one", 1);
        Scalar<i64> n(reduce(counts[coord(0), shape(one), bounds::check], one, add).value());
        auto g = axis("g", n), b = axis("b", blocks);
        for (auto& nest : parallel(shape(g, b)))
            y(coord(nest.index(g) * 2 + nest.index(b)), shape(1)).store(cast<f32>(full<i64>(shape(1), nest.index(g) * 10 + nest.index(b))));
    });
    auto counts = input(Kind::I64, {1}, 0);
    ref::write_int(counts.arg, 0, 3);
    expect_same(k, {counts, cpu_diff::scalar(Kind::I64, 0, 2), output(Kind::F32, {8})});
    Buffer empty = input(Kind::I64, {0}, 0);
    expect_same_error(k, {empty, cpu_diff::scalar(Kind::I64, 0, 2), output(Kind::F32, {8})},
                      "load: index (0) is out of range for argument 0 of extent 0");
}

Kernel many_instances() {
    return kernel("many", [](View<const f32, 2> x, View<f32, 2> y) {
        auto g = axis("g", ceil_div(x.extent(0), 2));
        auto r = axis("r", 2), c = axis("c", 16);
        for (auto& nest : parallel(shape(g))) {
            auto v = x[coord(nest.index() * 2, 0), shape(r, c)];
            y(coord(nest.index() * 2, 0), shape(r, c)).store(exp(v) - reduce(v, c, maximum));
        }
    });
}

TEST(CpuLaunch, ThreadCountsNeverChangeAByte) {
    auto k = many_instances();
    for (const char* threads : {"1", "2", "5", "16"}) {
        ScopedEnv env("KILN_NUM_THREADS", threads);
        // Exact: the interpreter's exp (standard precision uses the cpu target's own).
        expect_same(k, {input(Kind::F32, {401, 16}, 57, -3, 3, true), output(Kind::F32, {401, 16})}, {.precision = Precision::exact});
    }
    ScopedEnv bad("KILN_NUM_THREADS", "zero");
    EXPECT_THROW(cpu_diff::run_on(k, cpu(), {input(Kind::F32, {4, 16}, 58), output(Kind::F32, {4, 16})}), Error);
}

// A view whose span exceeds 2^31 elements (rows 2^31 apart, reserved but never
// touched except where read) selects 64-bit offsets.
TEST(CpuLaunch, SixtyFourBitOffsetsForLargeSpans) {
    const std::int64_t row = std::int64_t{1} << 31;
    const std::size_t bytes = static_cast<std::size_t>(2 * row);
    void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) GTEST_SKIP() << "cannot reserve " << (bytes >> 30) << " GiB of address space here";
    auto* base = static_cast<std::int8_t*>(mem);
    for (int c = 0; c < 8; ++c) base[c] = static_cast<std::int8_t>(c - 3), base[row + c] = static_cast<std::int8_t>(5 * c);
    auto k = kernel("far_rows", [](View<const i8, 2> x, View<i32, 2> y) {
        auto r = axis("r", 2), c = axis("c", 8);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            y(coord(0, 0), shape(r, c)).store(cast<i32>(x[coord(0, 0), shape(r, c)]) * 1000);
        }
    });
    Buffer x;
    x.arg.kind = Kind::I8;
    x.arg.extents = {2, 8};
    x.arg.strides = {row, 1};
    x.arg.read_only = true;
    auto y = output(Kind::I32, {2, 8});
    // Buffer copies its bytes; this view's memory is the mapping, so launch directly.
    std::vector<detail::Arg> args{x.arg, y.arg};
    args[0].data = mem;
    auto want = y, got = y;
    args[1].data = want.bytes.data();
    run_kernel(k, interp(), args, {}, Loc::here());
    args[1].data = got.bytes.data();
    run_kernel(k, cpu(), args, {}, Loc::here());
    EXPECT_TRUE(want.bytes == got.bytes);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    EXPECT_NE(cpu().impl().plan(*program, args, {}).find("index width: 64-bit"), std::string::npos);
    EXPECT_NE(cpu().impl().source(*program, args, {}, false).find("using kiln_index = long long;"), std::string::npos);
    munmap(mem, bytes);
}

TEST(CpuLaunch, PlanAndSource) {
    auto k = many_instances();
    auto x = input(Kind::F32, {9, 16}, 59), y = output(Kind::F32, {9, 16});
    std::vector<detail::Arg> args{x.arg, y.arg};
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    std::string plan = cpu().impl().plan(*program, args, {});
    for (const char* part : {"target cpu: kernel many", "grid: 5 = 5 instances", "index width: 32-bit", "inner stride 1", "f32[2x16 (r, c)]",
                             "compiler: ", "-ffp-contract=off", "cache key: "})
        EXPECT_NE(plan.find(part), std::string::npos) << part << "\n" << plan;
    std::string source = cpu().impl().source(*program, args, {}, false);
    for (const char* part : {"KILN_KROUND_H", "KILN_KMATH_H", "extern \"C\" KILN_EXPORT int kiln_run", "using kiln_index = int;"})
        EXPECT_NE(source.find(part), std::string::npos) << part;
    EXPECT_THROW(cpu().impl().source(*program, args, {}, true), Error);
    // Generated code is held to kiln's own warning bar.
    auto path = std::filesystem::path(testing::TempDir()) / ("kiln-cpu-warnings-" + std::to_string(getpid()) + ".cpp");
    std::ofstream(path) << source;
    const char* cxx = std::getenv("CXX");
    std::string cmd = std::string(cxx && *cxx ? cxx : "c++") + " -std=c++20 -fsyntax-only -Wall -Wextra -Wshadow -Werror " + path.string() + " 2>&1";
    std::string log;
    if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) log.append(buf, n);
        EXPECT_EQ(pclose(p), 0) << log;
    }
    std::filesystem::remove(path);
}

TEST(CpuLaunch, DumpDirReceivesEachGeneratedSource) {
    auto dir = std::filesystem::path(testing::TempDir()) / ("kiln-dump-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    ScopedEnv env("KILN_DUMP_DIR", dir.string());
    auto k = kernel("dumped_kernel", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", 3)))) y(coord(nest.index()), shape(1)).store(x[coord(nest.index()), shape(1)] * 7.0f);
    });
    expect_same(k, {input(Kind::F32, {3}, 60), output(Kind::F32, {3})});
    std::vector<std::filesystem::path> files;
    for (auto& f : std::filesystem::directory_iterator(dir)) files.push_back(f.path());
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0].filename().string().rfind("dumped_kernel-", 0), 0u) << files[0];
    std::ifstream in(files[0]);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("kiln_run"), std::string::npos);
    std::filesystem::remove_all(dir);
}

// ---- a fresh process: this binary run again on one child test

using child_process::in_child;
using child_process::run_child;
using child_process::self_path;

// The kernel both processes launch: the same trace, so the same source and key.
// Each test names its own: this process keeps every kernel it has loaded (and
// its index records), whichever cache directory a later test points at, so a
// kernel shared between tests would never reach the later test's directory.
Kernel small_kernel(const std::string& name) {
    return kernel(name, [](View<const f32, 1> x, View<f32, 1> y, Scalar<f32> a) {
        auto n = axis("n", 64);
        for (auto& nest : parallel(shape(axis("g", ceil_div(x.extent(0), 64))))) {
            auto i0 = nest.index() * 64;
            y(coord(i0), shape(n)).store(x[coord(i0), shape(n)] * a + y[coord(i0), shape(n)]);
        }
    });
}

std::vector<Buffer> small_args() { return {input(Kind::F32, {256}, 61), cpu_diff::inout(Kind::F32, {256}, 62), cpu_diff::scalar(Kind::F32, 2.5)}; }

double median_launch_us(const Kernel& k, std::vector<Buffer> bufs, int reps) {
    std::vector<detail::Arg> args;
    for (auto& b : bufs) {
        if (b.arg.is_view) b.arg.data = b.bytes.data();
        args.push_back(b.arg);
    }
    std::vector<double> us;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        run_kernel(k, cpu(), args, {}, Loc::here());
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

// What a child process reports: its cache statistics after the first launch.
struct ChildReport {
    long long compiled = -1, disk_hits = -1, index_hits = -1;
    double first_ms = 0, warm_us = 0;
    std::string output;
};

ChildReport run_child_launch(const std::filesystem::path& cache, const std::string& kernel_name) {
    ChildReport r;
    r.output = run_child("CpuCache.ChildLaunch", "KILN_CACHE_DIR=" + cache.string() + " KILN_TEST_KERNEL=" + kernel_name);
    auto at = r.output.find("REPORT ");
    if (at == std::string::npos ||
        std::sscanf(r.output.c_str() + at, "REPORT compiled=%lld disk_hits=%lld index_hits=%lld first_ms=%lf warm_us=%lf", &r.compiled,
                    &r.disk_hits, &r.index_hits, &r.first_ms, &r.warm_us) != 5)
        ADD_FAILURE() << "no report from the child:\n" << r.output;
    EXPECT_NE(r.output.find("[  PASSED  ] 1 test"), std::string::npos) << r.output;
    return r;
}

// The cache entry of the kernel a launch of small_kernel(name) uses (from the plan).
std::filesystem::path small_kernel_entry(const std::filesystem::path& cache, const std::string& name) {
    auto bufs = small_args();
    std::vector<detail::Arg> args;
    for (auto& b : bufs) args.push_back(b.arg);
    auto k = small_kernel(name);
    std::string plan = cpu().impl().plan(*detail::specialize(*k.shared_impl(), args, Loc::here()), args, {});
    auto at = plan.find("cache key: ");
    if (at == std::string::npos) return {};
    return cache / "entries" / plan.substr(at + 11, 64);
}

TEST(CpuCache, ChildLaunch) {
    if (!in_child()) GTEST_SKIP() << "runs as the child of the CpuCache tests that start a fresh process";
    auto k = small_kernel(std::getenv("KILN_TEST_KERNEL"));
    auto t0 = std::chrono::steady_clock::now();
    expect_same(k, small_args());  // the cpu launch first, then the interpreter's
    double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto s = native::shared_object_stats();
    std::printf("REPORT compiled=%lld disk_hits=%lld index_hits=%lld first_ms=%.3f warm_us=%.3f\n", static_cast<long long>(s.compiled),
                static_cast<long long>(s.disk_hits), static_cast<long long>(native::index_stats().hits), first_ms,
                median_launch_us(k, small_args(), 2001));
}

// A fresh process finds the kernel through the program index: no compile, and
// no generated source (the index hit is what skips the generator).
TEST(CpuCache, SecondProcessHitsTheDiskCache) {
    if (in_child()) GTEST_SKIP();
    auto dir = std::filesystem::path(testing::TempDir()) / ("kiln-cpu-cache-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    ScopedEnv env("KILN_CACHE_DIR", dir.string());
    auto before = native::shared_object_stats();
    auto t0 = std::chrono::steady_clock::now();
    expect_same(small_kernel("small_saxpy"), small_args());
    double cold_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto after = native::shared_object_stats();
    EXPECT_EQ(after.compiled - before.compiled, 1);
    ChildReport child = run_child_launch(dir, "small_saxpy");
    EXPECT_EQ(child.compiled, 0) << child.output;
    EXPECT_EQ(child.disk_hits, 1) << child.output;
    EXPECT_EQ(child.index_hits, 1) << child.output;
    std::printf("cpu target, small kernel: cold launch %.1f ms (compile %.1f ms), fresh-process launch from the disk cache %.2f ms, "
                "warm launch %.2f us (median)\n",
                cold_ms, (after.compile_seconds - before.compile_seconds) * 1e3, child.first_ms, child.warm_us);
    std::filesystem::remove_all(dir);
}

// The index names a kernel whose entry has gone (removed by hand, or discarded
// as corrupt): the launch generates and compiles it again, and runs correctly.
TEST(CpuCache, IndexNamingAMissingKernelRecompilesIt) {
    if (in_child()) GTEST_SKIP();
    auto dir = std::filesystem::path(testing::TempDir()) / ("kiln-cpu-cache-missing-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    ScopedEnv env("KILN_CACHE_DIR", dir.string());
    expect_same(small_kernel("small_saxpy_2"), small_args());
    auto entry = small_kernel_entry(dir, "small_saxpy_2");
    ASSERT_TRUE(std::filesystem::is_directory(entry)) << entry;
    std::filesystem::permissions(entry, std::filesystem::perms::owner_all);  // entries are read-only
    std::filesystem::remove_all(entry);
    ChildReport child = run_child_launch(dir, "small_saxpy_2");
    EXPECT_EQ(child.index_hits, 1) << child.output;
    EXPECT_EQ(child.compiled, 1) << child.output;
    EXPECT_TRUE(std::filesystem::is_directory(entry));
    std::filesystem::remove_all(dir);
}

// Four fresh processes launch one kernel into one empty cache at once: all
// succeed (each checks its result against the interpreter), and the cache ends
// with one kernel and its two index records (this compiler's and the one a process
// without a compiler finds), whoever won each race.
TEST(CpuCache, FourFreshProcessesIntoOneEmptyCache) {
    if (in_child()) GTEST_SKIP();
    auto dir = std::filesystem::path(testing::TempDir()) / ("kiln-cpu-cache-race-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::vector<FILE*> children;
    for (int i = 0; i < 4; ++i)
        children.push_back(popen(("KILN_CACHE_DIR=" + dir.string() + " KILN_TEST_KERNEL=small_saxpy_race KILN_CPU_CHILD=1 " + self_path() +
                                  " --gtest_filter=CpuCache.ChildLaunch 2>&1")
                                     .c_str(),
                                 "r"));
    for (FILE* p : children) {
        ASSERT_NE(p, nullptr);
        std::string out;
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
        EXPECT_EQ(pclose(p), 0) << out;
        EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
        EXPECT_NE(out.find("REPORT "), std::string::npos) << out;
    }
    std::size_t entries = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir / "entries")) ++entries;
    EXPECT_EQ(entries, 3u);
    std::filesystem::remove_all(dir);
}

TEST(CpuCache, ChildOutOfRange) {
    if (!in_child()) GTEST_SKIP() << "runs as the child of CpuCache.OutOfRangeAfterAnIndexHitReadsAsTheInterpreters";
    expect_same_error(checked_copy(bounds::check, "checked_copy_2"), {input(Kind::F32, {80, 4}, 53), output(Kind::F32, {80, 4})},
                      "load: index (0, 4) is out of range for argument 0 of extent 80x4 in instance 0");
    std::printf("REPORT index_hits=%lld compiled=%lld\n", static_cast<long long>(native::index_stats().hits),
                static_cast<long long>(native::shared_object_stats().compiled));
}

// A kernel found through the index was never generated in this process; its
// out-of-range error still names the access and instance the interpreter names.
TEST(CpuCache, OutOfRangeAfterAnIndexHitReadsAsTheInterpreters) {
    if (in_child()) GTEST_SKIP();
    auto dir = std::filesystem::path(testing::TempDir()) / ("kiln-cpu-cache-error-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    ScopedEnv env("KILN_CACHE_DIR", dir.string());
    EXPECT_THROW(cpu_diff::run_on(checked_copy(bounds::check, "checked_copy_2"), cpu(), {input(Kind::F32, {80, 4}, 53), output(Kind::F32, {80, 4})}), Error);
    std::string out = run_child("CpuCache.ChildOutOfRange", "KILN_CACHE_DIR=" + dir.string());
    EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
    EXPECT_NE(out.find("REPORT index_hits=1 compiled=0"), std::string::npos) << out;
    std::filesystem::remove_all(dir);
}

}  // namespace
