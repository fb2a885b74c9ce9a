// The cuda target's kernel cache, offline (compiled by NVRTC for sm_90a, no
// device needed): a warm lookup by program, a re-traced kernel reusing the
// compiled one, ptxas's resource report, and a fresh process that finds its
// kernel in the disk cache without loading NVRTC.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include <kiln/kiln.h>

#include "targets/cuda/emit.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/nvrtc.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

#define REQUIRE_NVRTC()                                            \
    do {                                                           \
        std::string why;                                           \
        if (cu::nvrtc_identity(&why).empty()) GTEST_SKIP() << why; \
    } while (0)

Kernel rowsum(const std::string& name) {
    return kernel(name, [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", 64);
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto v = x[coord(nest.index(), 0), shape(r, c)];
            y(coord(nest.index(), 0), shape(r, axis("one", 1))).store(reduce(v * v, c, add));
        }
    });
}

// A kernel traced for 8x64 -> 8x1 host views (never launched).
struct Traced {
    Kernel kernel;
    std::vector<detail::Arg> args;
    std::shared_ptr<const ir::Program> program;
};
Traced trace(Kernel k) {
    Traced t{std::move(k), {}, nullptr};
    for (std::int64_t cols : {64, 1}) {
        detail::Arg a;
        a.kind = Kind::F32;
        a.read_only = cols == 64;
        a.extents = {8, cols};
        a.strides = {cols, 1};
        t.args.push_back(a);
    }
    t.program = detail::specialize(*t.kernel.shared_impl(), t.args, Loc::here());
    return t;
}

std::shared_ptr<const cu::CompiledKernel> compile(const Traced& t) { return cu::compiled_kernel(*t.program, {}, nullptr); }

std::string self_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

bool nvrtc_is_loaded() {
    std::ifstream maps("/proc/self/maps");
    std::string text((std::istreambuf_iterator<char>(maps)), {});
    return text.find("libnvrtc") != std::string::npos;
}

}  // namespace

TEST(CudaKernelCache, WarmLookupIsByProgramAndRetracingReusesTheKernel) {
    REQUIRE_NVRTC();
    Traced t = trace(rowsum("rowsum_a"));
    auto first = compile(t);
    EXPECT_EQ(compile(t).get(), first.get());
    // The same kernel traced again: another program object, the same source.
    Traced again = trace(rowsum("rowsum_a"));
    ASSERT_NE(again.program.get(), t.program.get());
    EXPECT_EQ(compile(again).get(), first.get());
    // Another kernel is another entry.
    EXPECT_NE(compile(trace(rowsum("rowsum_b")))->key, first->key);
    EXPECT_NE(cu::compiled_kernel(*t.program, {.precision = Precision::exact}, nullptr)->key, first->key);
}

// The register and spill counts, against ptxas's own lines read independently.
TEST(CudaKernelCache, ResourcesAreThoseInPtxassLog) {
    REQUIRE_NVRTC();
    auto k = compile(trace(rowsum("rowsum_a")));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(k->log, m, std::regex(R"(Used (\d+) registers)"))) << k->log;
    EXPECT_TRUE(k->resources.known);
    EXPECT_EQ(k->resources.registers, std::stoi(m[1]));
    ASSERT_TRUE(std::regex_search(k->log, m, std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)")))
        << k->log;
    EXPECT_EQ(k->resources.stack_bytes, std::stoi(m[1]));
    EXPECT_EQ(k->resources.spill_store_bytes, std::stoi(m[2]));
    EXPECT_EQ(k->resources.spill_load_bytes, std::stoi(m[3]));
}

TEST(CudaKernelCache, ChildFindsTheKernel) {
    if (!std::getenv("KILN_CUDA_CACHE_CHILD")) GTEST_SKIP() << "runs as the child of CudaKernelCache.FreshProcessHitLoadsNoNvrtc";
    auto k = compile(trace(rowsum("rowsum_fresh")));
    std::printf("REPORT from_disk=%d nvrtc_loaded=%d cubin_bytes=%zu\n", k->from_disk ? 1 : 0, nvrtc_is_loaded() ? 1 : 0, k->cubin.size());
}

// Loading NVRTC costs ~10 ms; a process whose kernel is cached must not pay it.
TEST(CudaKernelCache, FreshProcessHitLoadsNoNvrtc) {
    if (std::getenv("KILN_CUDA_CACHE_CHILD")) GTEST_SKIP();
    REQUIRE_NVRTC();
    auto dir = std::filesystem::path(testing::TempDir()) / ("kiln-cuda-cache-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    const char* saved = std::getenv("KILN_CACHE_DIR");
    std::string old = saved ? saved : "";
    setenv("KILN_CACHE_DIR", dir.c_str(), 1);
    auto k = compile(trace(rowsum("rowsum_fresh")));  // compiles: NVRTC is loaded here
    EXPECT_FALSE(k->from_disk);
    if (saved) setenv("KILN_CACHE_DIR", old.c_str(), 1);
    else unsetenv("KILN_CACHE_DIR");

    std::string cmd = "KILN_CUDA_CACHE_CHILD=1 KILN_CACHE_DIR=" + dir.string() + " " + self_path() +
                      " --gtest_filter=CudaKernelCache.ChildFindsTheKernel 2>&1";
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
        pclose(p);
    }
    EXPECT_NE(out.find("REPORT from_disk=1 nvrtc_loaded=0 cubin_bytes=" + std::to_string(k->cubin.size())), std::string::npos) << out;
    std::filesystem::remove_all(dir);
}
