// The cuda target's host side against a stand-in driver (fake_libcuda.cpp, found
// as libcuda.so.1 through LD_LIBRARY_PATH): kernels compile with the real NVRTC
// and are recorded, not run. What is checked is what kiln asks of the driver:
// stream-bound launches enqueue on their stream and never synchronise, copies are
// stream-ordered, a failure surfaces at the next synchronisation naming the
// kernel and its launch line, devices are kept apart, and a warm asynchronous
// launch through a compiled handle allocates nothing.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <new>

#include "fuzz/campaign.h"
#include "tests/interop/counting_new.h"
#include "tests/interop/interop_util.h"
#include "targets/cuda/driver.h"
#include "targets/cuda/gemm_staging.h"
#include "targets/cuda/staging_kernels.h"
#include "targets/cuda/nvrtc.h"
#include "targets/cuda/program_index.h"
#include "tests/unit/attention_variants.h"
#include "tests/variants/attention_variants.h"
#include "tests/variants/gemm_variants.h"
#include "tests/unit/gemm_kernels.h"
#include "examples/row_kernels.h"
#include "examples/typed_gemm.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

using namespace kiln;
using namespace kiln::interop_test;

namespace {

struct Counts {
    long launches, ctx_syncs, stream_syncs, async_copies, sync_copies, module_loads, streams_created;
    void* last_launch_stream;
    int last_launch_device;
    unsigned last_grid, last_block;
};

struct TensorMap {
    unsigned rank;
    std::uint64_t dims[5], strides[4];
    unsigned box[5];
    int type;  // CU_TENSOR_MAP_DATA_TYPE_*
};

// The fake's controls, from the libcuda.so.1 kiln loaded.
struct Fake {
    void (*counts)(Counts*);
    void (*reset)();
    void (*fail)(int at_sync, int at_launch);
    long (*tensor_maps)(TensorMap*, long capacity);
};
const Fake* fake() {
    static const Fake* f = [] () -> const Fake* {
        if (!cu::device()) return nullptr;  // kiln loads libcuda.so.1 first
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!lib) return nullptr;
        auto* f = new Fake;
        f->counts = reinterpret_cast<void (*)(Counts*)>(dlsym(lib, "fake_cuda_counts"));
        f->reset = reinterpret_cast<void (*)()>(dlsym(lib, "fake_cuda_reset"));
        f->fail = reinterpret_cast<void (*)(int, int)>(dlsym(lib, "fake_cuda_fail"));
        f->tensor_maps = reinterpret_cast<long (*)(TensorMap*, long)>(dlsym(lib, "fake_cuda_tensor_maps"));
        return f->counts ? f : nullptr;
    }();
    return f;
}
Counts counts() {
    Counts c{};
    fake()->counts(&c);
    return c;
}
std::string here(int line) { return "fake_cuda_test.cpp:" + std::to_string(line) + ": "; }

class FakeCuda : public ::testing::Test {
protected:
    void SetUp() override {
        const char* off = std::getenv("KILN_NVRTC");  // a child standing for a machine without NVRTC
        if (cu::nvrtc_version().empty() && !(off && std::string(off) == "off")) GTEST_SKIP() << "no NVRTC";
        if (!fake()) {
            // ctest runs this with the fake first on LD_LIBRARY_PATH: then a miss is a failure.
            if (std::getenv("FAKE_CUDA_DEVICES")) FAIL() << "the fake driver was not loaded as libcuda.so.1";
            GTEST_SKIP() << "not running against the fake driver (ctest sets LD_LIBRARY_PATH)";
        }
        fake()->reset();
    }
};

}  // namespace

TEST_F(FakeCuda, StreamLaunchesAreEnqueuedWithoutSynchronising) {
    Stream s = Stream::create();
    Tensor<f32> x = inputs(8, 64), y({8, 64});
    auto xd = x.to(cuda(s)), yd = y.to(cuda(s));
    Counts c = counts();
    EXPECT_EQ(c.async_copies, 2) << "copies to the device are enqueued on the stream";
    EXPECT_EQ(c.sync_copies, 0);
    Kernel k = softmax_kernel();
    for (int i = 0; i < 5; ++i) k.launch(cuda(s), std::as_const(xd).view(), yd.view());
    c = counts();
    EXPECT_EQ(c.launches, 5);
    EXPECT_EQ(c.last_launch_stream, s.handle());
    EXPECT_EQ(c.last_grid, 1u) << "eight 64-wide rows share one CTA (several program instances per CTA)";
    EXPECT_EQ(c.ctx_syncs, 0);
    EXPECT_EQ(c.stream_syncs, 0);
    Tensor<f32> back = yd.to(host());
    c = counts();
    EXPECT_EQ(c.stream_syncs, 1) << "copying back waits for this stream only";
    EXPECT_EQ(c.ctx_syncs, 0);
    EXPECT_EQ(back.values(), y.values()) << "the fake's kernels write nothing: y's zeros came back";
}

TEST_F(FakeCuda, WithoutAStreamEachLaunchIsWaitedFor) {
    Tensor<f32> x = inputs(4, 32), y({4, 32});
    auto xd = x.to(cuda()), yd = y.to(cuda());
    softmax_kernel().launch(cuda(), std::as_const(xd).view(), yd.view());
    Counts c = counts();
    EXPECT_EQ(c.launches, 1);
    EXPECT_EQ(c.ctx_syncs, 1);
    EXPECT_EQ(c.last_launch_stream, nullptr);
    EXPECT_EQ(c.sync_copies, 2);
}

TEST_F(FakeCuda, AFailureSurfacesAtTheNextSynchronisationNamingTheLaunch) {
    Stream s = Stream::create();
    Tensor<f32> x = inputs(4, 32), y({4, 32});
    auto xd = x.to(cuda(s)), yd = y.to(cuda(s));
    int line = __LINE__ + 1;
    softmax_kernel().launch(cuda(s), std::as_const(xd).view(), yd.view());
    fake()->fail(700, 0);
    std::string e = error_of([&] { s.synchronize(); });
    EXPECT_EQ(e, here(line) + "cuda: a kernel failed: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered; kernels launched "
                              "on this stream since it was last synchronised: 'softmax' (fake_cuda_test.cpp:" + std::to_string(line) + ")");
    s.synchronize();  // reported once
}

TEST_F(FakeCuda, AFailureSeenAtALaunchNamesTheLaunchesBeforeIt) {
    Stream s = Stream::create();
    Tensor<f32> x = inputs(4, 32), y({4, 32});
    auto xd = x.to(cuda(s)), yd = y.to(cuda(s));
    Kernel k = softmax_kernel();
    int first = __LINE__ + 1;
    k.launch(cuda(s), std::as_const(xd).view(), yd.view());
    fake()->fail(0, 700);  // the driver refuses the next launch (an earlier kernel faulted)
    int second = __LINE__ + 1;
    std::string e = error_of([&] { k.launch(cuda(s), std::as_const(xd).view(), yd.view()); });
    EXPECT_TRUE(contains(e, "cuda: launching kernel 'softmax': CUDA_ERROR_ILLEGAL_ADDRESS")) << e;
    EXPECT_TRUE(contains(e, "'softmax' (fake_cuda_test.cpp:" + std::to_string(first) + ")")) << e;
    (void)second;
}

TEST_F(FakeCuda, AWarmAsynchronousLaunchAllocatesNothing) {
    Stream s = Stream::create();
    Tensor<f32> x = inputs(16, 128), y({16, 128});
    auto xd = x.to(cuda(s)), yd = y.to(cuda(s));
    HostView<const f32> xv = std::as_const(xd).view();
    HostView<f32> yv = yd.view();
    Executable exe = softmax_kernel().compile(cuda(s));
    exe.launch(xv, yv);  // compiles (NVRTC) and loads
    exe.launch(xv, yv);
    EXPECT_EQ(counting_new::allocations_in([&] {
                  for (int i = 0; i < 50; ++i) exe.launch(xv, yv);
              }),
              0);
    EXPECT_EQ(counts().launches, 52);
    EXPECT_EQ(counts().stream_syncs, 0);
    EXPECT_TRUE(contains(exe.plan(), "enqueued on stream")) << exe.plan();
}

// A compiled handle keeps its last launch prepared (kernel found, grid sized) and
// reuses it only for arguments of the same shapes: other shapes are launched for
// what they are, and data pointers are still checked on every launch.
TEST_F(FakeCuda, APreparedLaunchIsReusedOnlyForTheSameShapes) {
    Stream s = Stream::create();
    Tensor<f32> x = inputs(1000, 64), y({1000, 64});
    auto xd = x.to(cuda(s)), yd = y.to(cuda(s));
    HostView<const f32> xv = std::as_const(xd).view();
    HostView<f32> yv = yd.view();
    HostView<const f32> x8 = xv;
    HostView<f32> y8 = yv;
    x8.extents[0] = y8.extents[0] = 8;
    Executable exe = softmax_kernel().compile(cuda(s));
    exe.launch(xv, yv);
    exe.launch(xv, yv);
    const unsigned wide = counts().last_grid;
    exe.launch(x8, y8);
    EXPECT_EQ(counts().last_grid, 1u) << "eight rows fit one CTA";
    EXPECT_GT(wide, 1u) << "a thousand rows do not";
    exe.launch(xv, yv);
    EXPECT_EQ(counts().last_grid, wide);
    exe.launch(xv, yv);
    EXPECT_EQ(counts().last_grid, wide);
    EXPECT_EQ(counts().launches, 5);

    HostView<f32> null_y = yv;
    null_y.data = nullptr;
    int line = __LINE__ + 1;
    std::string e = error_of([&] { exe.launch(xv, null_y); });
    EXPECT_EQ(e, here(line) + "launch: kernel 'softmax' argument 1 (View<f32, 2>): the data pointer is null, but the view (1000x64) has elements");
    HostView<f32> odd_y = yv;
    odd_y.data = reinterpret_cast<f32*>(reinterpret_cast<char*>(yv.data) + 2);
    EXPECT_TRUE(contains(error_of([&] { exe.launch(xv, odd_y); }), "argument 1 (View<f32, 2>): the data pointer 0x")) << "misaligned";
    EXPECT_TRUE(contains(error_of([&] { exe.launch(xv, odd_y); }), " is not aligned to its 4-byte elements"));
    EXPECT_EQ(counts().launches, 5) << "a refused launch reaches no driver";
    s.synchronize();
}

// A row kernel whose weight vector is the same for every row loads it once per CTA
// (passes/grid_prefetch.h): its grid is persistent, no larger than the CTAs that fit
// on the 132 multiprocessors at once (occupancy.h), each CTA running its rows in
// turn; the plan says so.
TEST_F(FakeCuda, APrefetchingRowKernelLaunchesAPersistentGrid) {
    Stream s = Stream::create();
    const std::int64_t rows = 20000, cols = 256;
    Tensor<bf16> x({rows, cols}), w({cols}), y({rows, cols});
    auto xd = x.to(cuda(s)), wd = w.to(cuda(s)), yd = y.to(cuda(s));
    Executable exe = catalog::rows::rmsnorm_weighted<bf16>().compile(cuda(s));
    exe.launch(std::as_const(xd).view(), std::as_const(wd).view(), yd.view());
    s.synchronize();
    const std::string plan = exe.plan();
    ASSERT_TRUE(contains(plan, "persistent: launched as ")) << plan;
    const unsigned launched = static_cast<unsigned>(std::stoul(plan.substr(plan.find("persistent: launched as ") + 24)));
    EXPECT_EQ(counts().last_grid, launched) << plan;
    const unsigned per_sm = static_cast<unsigned>(std::stoul(plan.substr(plan.find(" CTAs (at most ") + 15)));
    EXPECT_EQ(launched, per_sm * 132) << plan;
    const auto per_cta = std::stoul(plan.substr(plan.find("grid: ") + 6));  // the nominal grid: one CTA per few instances
    EXPECT_LT(launched, per_cta) << "fewer CTAs than the instances need: each runs several in turn";
    EXPECT_TRUE(contains(plan, "loaded once, before the first instance")) << plan;
}

// Whether a launch's rows may start off a 16-byte boundary is part of which kernel
// it runs (EmitOptions::misaligned_rows, coalesced_elements): the same rows read 5123
// elements apart get a kernel of their own (bf16 ones dealt an element a thread in
// turn), and aligned rows then find theirs again.
TEST_F(FakeCuda, MisalignedRowsCompileTheirOwnKernel) {
    Stream s = Stream::create();
    const std::int64_t rows = 64, cols = 5120;
    Tensor<bf16> x({rows, cols + 3}), y({rows, cols});
    auto xd = x.to(cuda(s)), yd = y.to(cuda(s));
    auto padded = std::as_const(xd).view();  // the first 5120 columns of rows 5123 apart
    padded.extents = {rows, cols};
    auto aligned = padded;
    aligned.strides = {cols, 1};  // the same buffer read as 5120-element rows
    Executable exe = catalog::rows::softmax<bf16>().compile(cuda(s));
    exe.launch(aligned, yd.view());
    s.synchronize();
    const long loads = counts().module_loads;
    EXPECT_FALSE(contains(exe.plan(), "shifted between lanes"));
    exe.launch(padded, yd.view());
    s.synchronize();
    EXPECT_EQ(counts().module_loads, loads + 1) << "a kernel for rows that may be misaligned";
    EXPECT_TRUE(contains(exe.plan(), "global load of elements dealt one a thread in turn")) << exe.plan();
    exe.launch(aligned, yd.view());
    s.synchronize();
    EXPECT_EQ(counts().module_loads, loads + 1) << "the aligned rows' kernel is still there";
}

TEST_F(FakeCuda, DevicesAreKeptApart) {
    if (!cu::device_at(1)) GTEST_SKIP() << "FAKE_CUDA_DEVICES=2 gives a second device";
    Stream s1 = Stream::create(1);
    Tensor<f32> x = inputs(4, 32), y({4, 32});
    auto x1 = x.to(cuda(s1)), y1 = y.to(cuda(s1)), x0 = x.to(cuda()), y0 = y.to(cuda());
    EXPECT_EQ(x1.ordinal(), 1);
    EXPECT_EQ(x0.ordinal(), 0);
    // A kernel of its own, so that no other test has loaded its module.
    Kernel k = kernel("apart", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0)))))
            y(coord(nest.index(), 0), shape(axis("r", 1), c)).store(x[coord(nest.index(), 0), shape(axis("r", 1), c)] * 3.0f);
    });
    long loads = counts().module_loads;
    k.launch(cuda(s1), std::as_const(x1).view(), y1.view());
    EXPECT_EQ(counts().last_launch_device, 1) << "launched in device 1's context";
    EXPECT_EQ(counts().last_launch_stream, s1.handle());
    k.launch(cuda(), std::as_const(x0).view(), y0.view());
    EXPECT_EQ(counts().last_launch_device, 0);
    EXPECT_EQ(counts().module_loads, loads + 2) << "the module is loaded into each device's context";
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; k.launch(cuda(s1), std::as_const(x1).view(), y0.view()); });
    EXPECT_EQ(e, here(line) + "launch: kernel 'apart' argument 1 is on CUDA device 0, the target on device 1");
}

// A fresh process finds a kernel through the program index (targets/cuda/
// program_index.h): the same launch as the process that compiled it, without
// emitting, and plan() still has the emitter's lines. The child is this binary,
// run with KILN_FAKE_CHILD set.
namespace {

struct ChildReport {
    unsigned grid = 0, block = 0;
    long hits = -1;
    bool plan_has_values = false;
    std::string output;
};

ChildReport launch_in_child(const std::string& cache, const std::string& test = "ChildLaunch", const std::string& env = "") {
    std::string cmd = env + " KILN_FAKE_CHILD=1 KILN_CACHE_DIR=" + cache + " /proc/" + std::to_string(getpid()) +
                      "/exe --gtest_filter=FakeCuda." + test + " 2>&1";
    ChildReport r;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
        char line[512];
        while (std::fgets(line, sizeof line, p)) {
            r.output += line;
            int values = 0;
            if (std::sscanf(line, "REPORT grid=%u block=%u hits=%ld values=%d", &r.grid, &r.block, &r.hits, &values) == 4)
                r.plan_has_values = values == 1;
        }
        ::pclose(p);
    }
    return r;
}

}  // namespace

TEST_F(FakeCuda, ChildLaunch) {
    if (!std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP() << "runs as the child of FakeCuda.AFreshProcessLaunchesThroughTheProgramIndex";
    Tensor<f32> x = inputs(16, 128), y({16, 128});
    auto xd = x.to(cuda()), yd = y.to(cuda());
    Executable exe = softmax_kernel().compile(cuda());
    exe.launch(std::as_const(xd).view(), yd.view());
    const std::string plan = exe.plan();
    std::printf("REPORT grid=%u block=%u hits=%ld values=%d\n", counts().last_grid, counts().last_block,
                static_cast<long>(cu::index_stats().hits), contains(plan, "values:\n    ") ? 1 : 0);
}

TEST_F(FakeCuda, AFreshProcessLaunchesThroughTheProgramIndex) {
    if (std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP();
    char dir[] = "/tmp/kiln-fake-index-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const ChildReport first = launch_in_child(dir);  // compiles, records the index
    const ChildReport second = launch_in_child(dir);  // a fresh process: through the index
    EXPECT_EQ(first.hits, 0) << first.output;
    EXPECT_EQ(second.hits, 1) << second.output;
    EXPECT_GT(first.block, 0u) << first.output;
    EXPECT_EQ(second.grid, first.grid) << second.output;
    EXPECT_EQ(second.block, first.block) << second.output;
    EXPECT_TRUE(first.plan_has_values) << first.output;
    EXPECT_TRUE(second.plan_has_values) << "plan() after an index hit lacks the emitter's lines\n" << second.output;
    std::filesystem::remove_all(dir);
}

// A GEMM written with 128x256 tiles launched on a decode shape (16 rows) runs the
// kernel at a 64-row tile (gemm_schedule.h: launch_tile). In a fresh process the
// first launch compiles only that kernel (one NVRTC run: kernel_for_launch decides
// before compiling); a second fresh process finds it through the program index
// (alias_kernel recorded it under the launch's options) and compiles nothing.
TEST_F(FakeCuda, ChildGemmLaunch) {
    if (!std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP() << "runs as the child of FakeCuda.AFreshProcessFindsARetiledGemmThroughTheIndex";
    auto k = gemm_test::plain_gemm("fake_decode_gemm", 128, 256, 64);
    Tensor<bf16> a({16, 1024}), b({1024, 1024}), c({16, 1024});
    auto ad = a.to(cuda()), bd = b.to(cuda()), cd = c.to(cuda());
    const std::size_t before = cu::nvrtc_compiles();
    k.launch(cuda(), std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
    std::printf("REPORT grid=%u block=%u hits=%ld values=0\n", counts().last_grid, counts().last_block, static_cast<long>(cu::index_stats().hits));
    std::printf("COMPILES %zu\n", cu::nvrtc_compiles() - before);
    std::printf("MISSES %ld\n", static_cast<long>(cu::index_stats().misses));
}

TEST_F(FakeCuda, AFreshProcessFindsARetiledGemmThroughTheIndex) {
    if (std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP();
    char dir[] = "/tmp/kiln-fake-gemm-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    auto number = [](const ChildReport& r, const std::string& what) {
        const auto at = r.output.find(what + " ");
        return at == std::string::npos ? -1 : std::atoi(r.output.c_str() + at + what.size() + 1);
    };
    auto compiles = [&](const ChildReport& r) { return number(r, "COMPILES"); };
    const ChildReport first = launch_in_child(dir, "ChildGemmLaunch");
    const ChildReport second = launch_in_child(dir, "ChildGemmLaunch");
    EXPECT_EQ(first.block, 256u) << "one consumer warpgroup and the producer: the 64-row tile\n" << first.output;
    EXPECT_EQ(compiles(first), 1) << first.output;
    EXPECT_EQ(second.block, 256u) << second.output;
    EXPECT_EQ(compiles(second), 0) << second.output;
    EXPECT_GE(second.hits, 1) << second.output;
    EXPECT_EQ(number(second, "MISSES"), 0) << "the launch's own options were not found in the index: it emitted to choose\n" << second.output;
    std::filesystem::remove_all(dir);
}

TEST_F(FakeCuda, ChildPackingGemmLaunch) {
    if (!std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP() << "runs as the child of FakeCuda.AShippedCacheStagesGemmOperandsWithoutNvrtc";
    Tensor<bf16> a({100, 45}), b({45, 70}), c({100, 70});
    auto ad = a.to(cuda()), bd = b.to(cuda()), cd = c.to(cuda());
    fake()->reset();
    catalog::make_typed_gemm_kernel<bf16, f32, bf16>("shipped_gemm", {}).launch(cuda(), std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
    std::printf("LAUNCHES %ld\n", counts().launches);
    std::printf("COMPILES %zu\n", cu::nvrtc_compiles());
}

// The operand packing kernel's module (staging_kernels.h) travels with a shipped
// cache as a program's kernels do: a process without NVRTC finds it (its record under
// any NVRTC) and packs a GEMM's operands, A's rows of 90 bytes and B's of 140, with it.
TEST_F(FakeCuda, AShippedCacheStagesGemmOperandsWithoutNvrtc) {
    if (std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP();
    char dir[] = "/tmp/kiln-fake-staging-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string built = std::string(dir) + "/built", shipped = std::string(dir) + "/shipped";
    auto number = [](const ChildReport& r, const std::string& what) {
        const auto at = r.output.find(what + " ");
        return at == std::string::npos ? -1 : std::atoi(r.output.c_str() + at + what.size() + 1);
    };
    const ChildReport first = launch_in_child(built, "ChildPackingGemmLaunch");
    EXPECT_EQ(number(first, "LAUNCHES"), 3) << "A and B packed, then the GEMM\n" << first.output;
    EXPECT_EQ(number(first, "COMPILES"), 2) << "the GEMM's module and the packing kernel's (no transposing kernel)\n" << first.output;
    std::filesystem::copy(built, shipped, std::filesystem::copy_options::recursive);
    const ChildReport second = launch_in_child(shipped, "ChildPackingGemmLaunch", "KILN_NVRTC=off");
    EXPECT_EQ(number(second, "LAUNCHES"), 3) << "packed by the shipped packing kernel, not copied pitched\n" << second.output;
    EXPECT_EQ(number(second, "COMPILES"), 0) << second.output;
    EXPECT_FALSE(contains(second.output, "FAILED")) << second.output;
    std::filesystem::remove_all(dir);
}

// A cache filled where NVRTC is, copied to a machine without it (KILN_NVRTC=off
// stands for one): the kernels it holds launch; one it lacks says why it cannot.
TEST_F(FakeCuda, ChildLaunchWithoutNvrtc) {
    if (!std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP() << "runs as the child of FakeCuda.ACacheFilledWithNvrtcRunsWhereThereIsNone";
    EXPECT_TRUE(cu::nvrtc_version().empty());
    Tensor<f32> x = inputs(16, 128), y({16, 128});
    auto xd = x.to(cuda()), yd = y.to(cuda());
    Executable exe = softmax_kernel().compile(cuda());
    exe.launch(std::as_const(xd).view(), yd.view());
    Tensor<f32> wider = inputs(16, 256), out({16, 256});
    auto wd = wider.to(cuda()), od = out.to(cuda());
    const int line = __LINE__ + 1;
    std::string e = error_of([&] { exe.launch(std::as_const(wd).view(), od.view()); });
    std::printf("LINE %d\n", line);
    std::printf("REPORT grid=%u block=%u hits=%ld values=0\n", counts().last_grid, counts().last_block, static_cast<long>(cu::index_stats().hits));
    std::printf("ERROR %s\n", e.c_str());
}

TEST_F(FakeCuda, ACacheFilledWithNvrtcRunsWhereThereIsNone) {
    if (std::getenv("KILN_FAKE_CHILD")) GTEST_SKIP();
    char dir[] = "/tmp/kiln-fake-ship-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string built = std::string(dir) + "/built", shipped = std::string(dir) + "/shipped";
    const ChildReport first = launch_in_child(built);  // compiles with NVRTC, records the index
    ASSERT_GT(first.block, 0u) << first.output;
    std::filesystem::copy(built, shipped, std::filesystem::copy_options::recursive);
    const ChildReport second = launch_in_child(shipped, "ChildLaunchWithoutNvrtc", "KILN_NVRTC=off");
    EXPECT_EQ(second.hits, 1) << second.output;
    EXPECT_EQ(second.grid, first.grid) << second.output;
    EXPECT_EQ(second.block, first.block) << second.output;
    int line = 0;
    if (auto at = second.output.find("LINE "); at != std::string::npos) line = std::atoi(second.output.c_str() + at + 5);
    EXPECT_TRUE(contains(second.output, "ERROR fake_cuda_test.cpp:" + std::to_string(line) + ": cuda: cannot compile")) << second.output;
    EXPECT_TRUE(contains(second.output, "cuda: cannot compile kernel 'softmax': NVRTC is turned off (KILN_NVRTC=off); a cache filled on a "
                                        "machine with NVRTC (KILN_CACHE_DIR) runs only the kernels compiled there"))
        << second.output;
    EXPECT_FALSE(contains(second.output, "FAILED")) << second.output;
    std::filesystem::remove_all(dir);
}

// FlashAttention written as a user writes it (4-D bf16 views, an online softmax in a
// pipeline, examples/attention_bf16.cpp's form): a launch whose views suit TMA takes
// the Hopper attention kernel (emit_attention.h): 384 threads, one CTA per 128 query
// rows of each (batch, head).
TEST_F(FakeCuda, AttentionLaunchesTheHopperAttentionKernel) {
    auto k = kernel("fake_attention", [](View<const bf16, 4> q, View<const bf16, 4> kk, View<const bf16, 4> v, View<bf16, 4> out) {
        const std::int64_t bq = 64, bk = 64;
        auto batch = axis("batch", q.extent<0>()), head = axis("head", q.extent<1>());
        auto blocks = axis("query_blocks", ceil_div(q.extent<2>(), bq));
        auto b1 = axis("b1", 1), h1 = axis("h1", 1), m = axis("m", bq), s = axis("s", bk), d = axis("d", q.extent<3>()),
             dv = axis("dv", v.extent<3>());
        auto key_blocks = axis("key_blocks", ceil_div(kk.extent<2>(), bk));
        for (auto& nest : parallel(shape(batch, head, blocks))) {
            auto b0 = nest.index(batch), h0 = nest.index(head), q0 = nest.index(blocks) * bq;
            auto query = q[coord(b0, h0, q0, 0), shape(b1, h1, m, d)];
            auto row_max = full<f32>(shape(b1, h1, m), -1e30f);
            auto row_sum = zeros<f32>(shape(b1, h1, m));
            auto acc = zeros<f32>(shape(b1, h1, m, dv));
            for (auto& step : nest.pipeline(shape(key_blocks), {.window = 2})) {
                auto k0 = step.index() * bk;
                auto score = mma(query, kk[coord(b0, h0, k0, 0), shape(b1, h1, s, d)], zeros<f32>(shape(b1, h1, m, s))) * 0.125f;
                auto masked = ite(iota(s) + k0 < kk.extent<2>(), score, -1e30f);
                auto next_max = max(row_max, reduce(masked, s, maximum));
                auto alpha = exp(row_max - next_max);
                auto p = exp(masked - next_max);
                row_sum = row_sum * alpha + reduce(p, s, add);
                acc = mma(cast<bf16>(p), v[coord(b0, h0, k0, 0), shape(b1, h1, s, dv)], acc * alpha);
                row_max = next_max;
            }
            out(coord(b0, h0, q0, 0), shape(b1, h1, m, dv)).store(cast<bf16>(acc / row_sum));
        }
    });
    Tensor<bf16> q({2, 3, 200, 64}), kk({2, 3, 300, 64}), v({2, 3, 300, 64}), o({2, 3, 200, 64});
    auto qd = q.to(cuda()), kd = kk.to(cuda()), vd = v.to(cuda()), od = o.to(cuda());
    fake()->reset();
    k.launch(cuda(), std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
    Counts c = counts();
    EXPECT_EQ(c.launches, 1);
    EXPECT_EQ(c.last_block, 384u) << "a producer and two consumer warpgroups";
    EXPECT_EQ(c.last_grid, 2u * 3u * 2u) << "ceil(200 / 128) CTAs for each of the 6 (batch, head)";
}

// More tiles of 128 query rows than multiprocessors: a persistent grid of one CTA
// per multiprocessor (the fake has 132) takes them in turn (attention_producer.h).
TEST_F(FakeCuda, AttentionWithMoreTilesThanMultiprocessorsRunsAPersistentGrid) {
    Tensor<bf16> q({4, 40, 256, 64}), kk({4, 40, 256, 64}), v({4, 40, 256, 64}), o({4, 40, 256, 64});
    auto qd = q.to(cuda()), kd = kk.to(cuda()), vd = v.to(cuda()), od = o.to(cuda());
    fake()->reset();
    attention_variants::kernel_4d(attention_variants::Form::alpha_twice)
        .launch(cuda(), std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
    EXPECT_EQ(counts().launches, 1);
    EXPECT_EQ(counts().last_block, 384u);
    EXPECT_EQ(counts().last_grid, 132u) << "4 x 40 x 2 = 320 tiles on a grid of one CTA per multiprocessor";
}

// The module of an attention program holds the attention kernel alone at first; a
// launch the attention kernel refuses (key rows 130 bytes apart: TMA takes strides of
// multiples of 16 bytes) compiles the module with the generic kernel beside it, once,
// and launches that (EmitOptions::generic_kernel).
TEST_F(FakeCuda, AttentionViewsTmaCannotReadCompileTheGenericKernelWhenFirstNeeded) {
    Tensor<bf16> q({1, 2, 200, 64}), kk({1, 2, 300, 65}), v({1, 2, 300, 64}), o({1, 2, 200, 64});
    auto qd = q.to(cuda()), kd = kk.to(cuda()), vd = v.to(cuda()), od = o.to(cuda());
    const HostView<const bf16> packed{kd.data(), {1, 2, 300, 64}, {2 * 300 * 64, 300 * 64, 64, 1}, Device::cuda, 0};
    const HostView<const bf16> strided{kd.data(), {1, 2, 300, 64}, {2 * 300 * 65, 300 * 65, 65, 1}, Device::cuda, 0};
    Kernel k = attention_variants::kernel_4d(attention_variants::Form::alpha_twice);
    fake()->reset();
    k.launch(cuda(), std::as_const(qd).view(), packed, std::as_const(vd).view(), od.view());
    EXPECT_EQ(counts().last_block, 384u) << "the attention kernel";
    const long loads = counts().module_loads;  // 0 where an earlier test loaded the same module
    testing::internal::CaptureStderr();
    k.launch(cuda(), std::as_const(qd).view(), strided, std::as_const(vd).view(), od.view());
    EXPECT_NE(counts().last_block, 384u) << "the generic kernel";
    EXPECT_EQ(counts().module_loads, loads + 1) << "the module again, with the generic kernel (rows TMA cannot read: in the first compile for these views)";
    k.launch(cuda(), std::as_const(qd).view(), strided, std::as_const(vd).view(), od.view());
    k.launch(cuda(), std::as_const(qd).view(), packed, std::as_const(vd).view(), od.view());
    // The fallback is said once, at the user's line, with the attention kernel's reason.
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("kiln: warning: fake_cuda_test.cpp:"), std::string::npos) << said;
    EXPECT_NE(said.find("the FlashAttention kernel refused this launch (the key view"), std::string::npos) << said;
    EXPECT_NE(said.find("the generic kernel runs it, much slower"), std::string::npos) << said;
    EXPECT_EQ(said.find("kiln: warning:"), said.rfind("kiln: warning:")) << "once for the same reason:\n" << said;
    EXPECT_EQ(counts().last_block, 384u);
    EXPECT_EQ(counts().module_loads, loads + 1) << "both modules stay loaded";
    EXPECT_EQ(counts().launches, 4);
    // Every other channel: the rows are aligned, so the first compile leaves the
    // generic kernel out; the attention kernel refuses the launch (TMA reads unit-stride
    // channels), and the module is compiled again with it, then launched.
    Tensor<bf16> wide({1, 2, 300, 128});
    auto wd = wide.to(cuda());
    const HostView<const bf16> every_other{wd.data(), {1, 2, 300, 64}, {2 * 300 * 128, 300 * 128, 128, 2}, Device::cuda, 0};
    k.launch(cuda(), std::as_const(qd).view(), every_other, std::as_const(vd).view(), od.view());
    EXPECT_NE(counts().last_block, 384u) << "the generic kernel";
    EXPECT_EQ(counts().module_loads, loads + 2) << "the module with the generic kernel (the one without it, the same for these views, was loaded)";
    k.launch(cuda(), std::as_const(qd).view(), every_other, std::as_const(vd).view(), od.view());
    EXPECT_NE(counts().last_block, 384u);
    EXPECT_EQ(counts().module_loads, loads + 2);
    EXPECT_EQ(counts().launches, 6);
}

// A program of 256-key blocks at head dimension 128 runs on the attention kernel's own
// blocks; its generic kernel would stage more shared memory than a CTA has, so a launch
// the attention kernel refuses (keys in every other channel) fails at the user's line,
// saying why the generic kernel was needed.
TEST_F(FakeCuda, AFallbackThatCannotBeBuiltSaysWhyItWasNeeded) {
    Tensor<bf16> q({1, 2, 200, 128}), kk({1, 2, 300, 256}), v({1, 2, 300, 128}), o({1, 2, 200, 128});
    auto qd = q.to(cuda()), kd = kk.to(cuda()), vd = v.to(cuda()), od = o.to(cuda());
    const HostView<const bf16> packed{kd.data(), {1, 2, 300, 128}, {2 * 300 * 128, 300 * 128, 128, 1}, Device::cuda, 0};
    const HostView<const bf16> every_other{kd.data(), {1, 2, 300, 128}, {2 * 300 * 256, 300 * 256, 256, 2}, Device::cuda, 0};
    Kernel k = attention_variants::padded(128, 256, -1e30f);
    fake()->reset();
    k.launch(cuda(), std::as_const(qd).view(), packed, std::as_const(vd).view(), od.view());
    EXPECT_EQ(counts().last_block, 384u) << "the attention kernel";
    try {
        k.launch(cuda(), std::as_const(qd).view(), every_other, std::as_const(vd).view(), od.view());
        ADD_FAILURE() << "the generic kernel of 256-key blocks at d 128 does not fit a CTA's shared memory";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("attention_variants.h:"), std::string::npos) << what;
        EXPECT_NE(what.find("bytes through shared memory on cuda, more than the"), std::string::npos) << what;
        EXPECT_NE(what.find("(the generic kernel, needed because the FlashAttention kernel refused this launch: the key view has a non-unit channel "
                            "stride)"),
                  std::string::npos)
            << what;
    }
}

// The other forms users write (tests/unit/attention_variants.h) take the same kernel:
// their generated CUDA compiles (NVRTC) and launches with the attention kernel's shape.
TEST_F(FakeCuda, AttentionWrittenOtherWaysLaunchesTheHopperAttentionKernel) {
    using attention_variants::Form;
    Tensor<bf16> q({1, 2, 200, 64}), kk({1, 2, 300, 64}), v({1, 2, 300, 64}), o({1, 2, 200, 64});
    auto qd = q.to(cuda()), kd = kk.to(cuda()), vd = v.to(cuda()), od = o.to(cuda());
    for (Form f : {Form::alpha_twice, Form::scale_in_exponent, Form::product_added, Form::dead_values}) {
        fake()->reset();
        attention_variants::kernel_4d(f).launch(cuda(), std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
        EXPECT_EQ(counts().last_block, 384u);
        EXPECT_EQ(counts().last_grid, 2u * 2u);
    }
    Tensor<bf16> q3({4, 200, 64}), k3({4, 300, 64}), v3({4, 300, 64}), o3({4, 200, 64});
    auto q3d = q3.to(cuda()), k3d = k3.to(cuda()), v3d = v3.to(cuda()), o3d = o3.to(cuda());
    fake()->reset();
    attention_variants::reshaped_3d().launch(cuda(), std::as_const(q3d).view(), std::as_const(k3d).view(), std::as_const(v3d).view(), o3d.view());
    EXPECT_EQ(counts().last_block, 384u) << "3-D views reshaped to 2-D tiles";
    Tensor<bf16> q2({300, 128}), k2({300, 128}), v2({300, 128}), o2({300, 128});
    auto q2d = q2.to(cuda()), k2d = k2.to(cuda()), v2d = v2.to(cuda()), o2d = o2.to(cuda());
    fake()->reset();
    attention_variants::kernel_2d().launch(cuda(), std::as_const(q2d).view(), std::as_const(k2d).view(), std::as_const(v2d).view(), o2d.view());
    EXPECT_EQ(counts().last_block, 384u);
    EXPECT_EQ(counts().last_grid, 3u) << "ceil(300 / 128) CTAs";
}

// The sequence-major layout [batch, sequence, head, channel] (q, k and v as a linear
// layer leaves them, no transpose) takes the attention kernel: each view's tensor
// map has the channels, then the sequence, then the head and the batch, with the
// view's strides (the head 64 channels apart, the sequence all heads apart).
TEST_F(FakeCuda, SequenceMajorAttentionReadsEachViewInItsOwnStrides) {
    Tensor<bf16> q({1, 200, 2, 64}), kk({1, 300, 2, 64}), v({1, 300, 2, 64}), o({1, 200, 2, 64});
    auto qd = q.to(cuda()), kd = kk.to(cuda()), vd = v.to(cuda()), od = o.to(cuda());
    fake()->reset();
    attention_variants::sequence_major().launch(cuda(), std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
    EXPECT_EQ(counts().last_block, 384u) << "the attention kernel";
    TensorMap maps[16];
    const long n = fake()->tensor_maps(maps, 16);
    ASSERT_EQ(n, 3) << "Q, K and V";
    for (long i = 0; i < n; ++i) {
        const std::uint64_t seq = i == 0 ? 200 : 300;
        SCOPED_TRACE(i);
        ASSERT_EQ(maps[i].rank, 4u);
        EXPECT_EQ(std::vector<std::uint64_t>(maps[i].dims, maps[i].dims + 4), (std::vector<std::uint64_t>{64, seq, 2, 1}));
        EXPECT_EQ(std::vector<std::uint64_t>(maps[i].strides, maps[i].strides + 3), (std::vector<std::uint64_t>{2 * 64 * 2, 64 * 2, seq * 2 * 64 * 2}));
        EXPECT_EQ(maps[i].box[0], 64u);
        EXPECT_EQ(maps[i].box[2], 1u);
        EXPECT_EQ(maps[i].box[3], 1u);
    }
}

// Head dimensions that are not whole 64-channel boxes (96 query and key channels, 80
// value channels) take the attention kernel, computed as 128 with the zeros TMA reads
// past each view's end (passes::attention_kernel_head_dim): the maps describe the views
// as they are. A key view wider than the program's tile (128 channels, of which the
// program reads 96) would put its own values in the padding, so that launch takes the
// generic kernel.
TEST_F(FakeCuda, AttentionPadsHeadDimensionsToWholeBoxesWhereTheViewsEndThere) {
    Tensor<bf16> q({1, 2, 200, 96}), kk({1, 2, 300, 96}), v({1, 2, 300, 80}), o({1, 2, 200, 80}), wide({1, 2, 300, 128});
    auto qd = q.to(cuda()), kd = kk.to(cuda()), vd = v.to(cuda()), od = o.to(cuda()), wd = wide.to(cuda());
    Executable exe = attention_variants::kernel_4d(attention_variants::Form::alpha_twice).compile(cuda());
    fake()->reset();
    exe.launch(std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
    EXPECT_EQ(counts().last_block, 384u) << "the attention kernel";
    TensorMap maps[16];
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 3) << "Q, K and V";
    for (int i = 0; i < 3; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(maps[i].dims[0], i == 2 ? 80u : 96u) << "the view's channels; the box reads past them";
        EXPECT_EQ(maps[i].box[0], 64u);
    }
    const std::string plan = exe.plan();
    EXPECT_NE(plan.find("head dims 96/80 (computed as 128/128"), std::string::npos) << plan;
    exe.launch(std::as_const(qd).view(), std::as_const(wd).view(), std::as_const(vd).view(), od.view());
    EXPECT_NE(counts().last_block, 384u) << "a key view of 128 channels for a tile of 96: the generic kernel";
}

// K stored transposed, [batch, head, channel, key] (a key cache kept channel-major):
// the attention kernel reads it in boxes of [d channels][64 keys], its map's dims the
// keys, then the channels, then the head and the batch. (Its rows are the keys: 300
// bf16 keys, 600 bytes, are no row stride TMA takes, and that launch takes the generic
// kernel.)
TEST_F(FakeCuda, AttentionReadsAKeyViewStoredTransposedInBoxesOfKeys) {
    Tensor<bf16> q({1, 2, 200, 64}), kt({1, 2, 64, 320}), v({1, 2, 320, 64}), o({1, 2, 200, 64});
    auto qd = q.to(cuda()), kd = kt.to(cuda()), vd = v.to(cuda()), od = o.to(cuda());
    fake()->reset();
    kiln::variants::attention::fa_kT().launch(cuda(), std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
    EXPECT_EQ(counts().last_block, 384u) << "the attention kernel";
    // The maps encoded by this launch, found by their dims: Q's or V's may come from the
    // process's tensor map cache instead (tensor_map_cache.h), encoded by an earlier test
    // over a buffer freed and reallocated at the same address with the same layout.
    TensorMap maps[16];
    const long encoded = fake()->tensor_maps(maps, 16);
    auto find = [&](std::vector<std::uint64_t> dims) -> const TensorMap* {
        for (long i = 0; i < encoded; ++i)
            if (std::vector<std::uint64_t>(maps[i].dims, maps[i].dims + 4) == dims) return &maps[i];
        return nullptr;
    };
    const TensorMap* k_map = find({320, 64, 2, 1});
    ASSERT_NE(k_map, nullptr) << "K's map: keys, channels, head, batch (" << encoded << " maps encoded)";
    EXPECT_EQ(std::vector<std::uint64_t>(k_map->strides, k_map->strides + 3), (std::vector<std::uint64_t>{320 * 2, 64 * 320 * 2, 2 * 64 * 320 * 2}));
    EXPECT_EQ(k_map->box[0], 64u);
    EXPECT_EQ(k_map->box[1], 64u) << "every channel of a box of 64 keys";
    EXPECT_TRUE(find({64, 320, 2, 1}) || encoded < 3) << "V as ever";
    Tensor<bf16> kt300({1, 2, 64, 300}), v300({1, 2, 300, 64});
    auto k3 = kt300.to(cuda()), v3 = v300.to(cuda());
    kiln::variants::attention::fa_kT().launch(cuda(), std::as_const(qd).view(), std::as_const(k3).view(), std::as_const(v3).view(), od.view());
    EXPECT_NE(counts().last_block, 384u) << "the generic kernel: K's rows of 600 bytes";
}

// A batched GEMM (passes/gemm_match.h): 4-D views [batch, head, rows, cols], two heads
// sharing each head of B (h / 2), the batch axes after the tiles' in the grid. Its
// kernel is the Hopper GEMM with work units of a batch and a tile: each operand a tensor
// map of its view's rank (the leading dims one deep per box, innermost first), a
// persistent grid of one CTA per multiprocessor at most.
TEST_F(FakeCuda, BatchedGemmReadsEachOperandThroughAMapOfItsRank) {
    auto k = kernel("fake_batched_gemm", [](View<const bf16, 4> A, View<const bf16, 4> B, View<bf16, 4> C) {
        auto group = A.extent<1>() / B.extent<1>();
        auto gm = axis("gm", ceil_div(A.extent<2>(), 128)), gn = axis("gn", ceil_div(B.extent<3>(), 128)), kt = axis("kt", ceil_div(A.extent<3>(), 64));
        auto gb = axis("batch", A.extent<0>()), gh = axis("head", A.extent<1>());
        auto one = axis("one", 1), one2 = axis("one2", 1), m = axis("m", 128), n = axis("n", 128), kk = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn, gb, gh))) {
            auto b = nest.index(gb), h = nest.index(gh), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * 64;
                acc = mma(reshape(A[coord(b, h, m0, k0), shape(one, one2, m, kk)], shape(m, kk)),
                          reshape(B[coord(b, h / group, k0, n0), shape(one, one2, kk, n)], shape(kk, n)), acc);
            }
            C(coord(b, h, m0, n0), shape(one, one2, m, n)).store(reshape(cast<bf16>(acc), shape(one, one2, m, n)));
        }
    });
    Tensor<bf16> a({3, 4, 200, 256}), b({3, 2, 256, 384}), c({3, 4, 200, 384});
    auto ad = a.to(cuda()), bd = b.to(cuda()), cd = c.to(cuda());
    Executable exe = k.compile(cuda());
    fake()->reset();
    exe.launch(std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
    EXPECT_EQ(counts().launches, 1);
    EXPECT_EQ(counts().last_block, 384u) << "the Hopper GEMM: a producer and two consumer warpgroups";
    TensorMap maps[16];
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 2) << "A and B";
    EXPECT_EQ(maps[0].rank, 4u);
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].dims, maps[0].dims + 4), (std::vector<std::uint64_t>{256, 200, 4, 3}));
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].strides, maps[0].strides + 3), (std::vector<std::uint64_t>{256 * 2, 200 * 256 * 2, 4 * 200 * 256 * 2}));
    EXPECT_EQ(std::vector<unsigned>(maps[0].box, maps[0].box + 4), (std::vector<unsigned>{64, 128, 1, 1}));
    EXPECT_EQ(maps[1].rank, 4u);
    EXPECT_EQ(std::vector<std::uint64_t>(maps[1].dims, maps[1].dims + 4), (std::vector<std::uint64_t>{384, 256, 2, 3}));
    EXPECT_EQ(std::vector<std::uint64_t>(maps[1].strides, maps[1].strides + 3), (std::vector<std::uint64_t>{384 * 2, 256 * 384 * 2, 2 * 256 * 384 * 2}));
    EXPECT_EQ(maps[1].box[2], 1u);
    EXPECT_EQ(maps[1].box[3], 1u);
    const std::string plan = exe.plan();
    EXPECT_NE(plan.find("batched (work units of a batch and a tile"), std::string::npos) << plan;
    EXPECT_NE(plan.find("12 batch(es)"), std::string::npos) << plan;
    // 12 batches of (2 x 3 tiles of 128 x 128, or 4 x 3 of 64-row tiles chosen at launch): more units than the fake's 132 multiprocessors or not,
    // the grid is at most one CTA per multiprocessor and at most one per unit.
    EXPECT_LE(counts().last_grid, 132u);
    EXPECT_GE(counts().last_grid, 12u * 6u < 132u ? 12u * 6u : 132u) << plan;
}

// An i8 x i8 -> i32 GEMM (a quantised linear layer, X [M, K] against W [N, K]) takes the
// Hopper kernel: its operands are byte maps (UINT8) whose boxes are rows of 128 elements
// (128 bytes, the swizzle's span), strides in bytes. A B stored [K, N] (wgmma reads
// 8-bit operands K-major only) is copied transposed first, and B's map describes the
// copy: [N] rows of K bytes padded to whole 128-byte lines.
TEST_F(FakeCuda, Int8GemmReadsItsOperandsAsByteMapsOf128ElementRows) {
    const Kernel k = kiln::variants::gemm::i8_linear();  // 128x128x64 tiles
    Tensor<i8> x({256, 512}), w({384, 512});
    Tensor<i32> y({256, 384});
    auto xd = x.to(cuda()), wd = w.to(cuda());
    auto yd = y.to(cuda());
    Executable exe = k.compile(cuda());
    fake()->reset();
    exe.launch(std::as_const(xd).view(), std::as_const(wd).view(), yd.view());
    EXPECT_EQ(counts().launches, 1);
    EXPECT_EQ(counts().last_block, 384u) << "the Hopper GEMM: a producer and two consumer warpgroups\n" << exe.plan();
    TensorMap maps[16];
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 2) << "X and W";
    for (int i = 0; i < 2; ++i) {
        EXPECT_EQ(maps[i].type, 0) << "CU_TENSOR_MAP_DATA_TYPE_UINT8";
        EXPECT_EQ(maps[i].rank, 2u);
        EXPECT_EQ(maps[i].box[0], 128u) << "a box row of 128 i8";
        EXPECT_EQ(maps[i].strides[0], 512u) << "rows of 512 bytes";
    }
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].dims, maps[0].dims + 2), (std::vector<std::uint64_t>{512, 256}));
    EXPECT_EQ(std::vector<std::uint64_t>(maps[1].dims, maps[1].dims + 2), (std::vector<std::uint64_t>{512, 384}));
    // bm rows of X, bn of W: the launch's tile (a small problem takes narrower tiles).
    EXPECT_EQ(maps[0].box[1], 128u);
    EXPECT_TRUE(maps[1].box[1] == 64u || maps[1].box[1] == 128u) << maps[1].box[1];
    const std::string plan = exe.plan();
    EXPECT_NE(plan.find("k32 s8 -> s32"), std::string::npos) << plan;
    EXPECT_NE(plan.find("x128 (program's 128x128x64)"), std::string::npos) << "BK 128: a box row of bytes\n" << plan;

    // B stored [K, N], K 320 (rows of the copy padded to 384 bytes): transposed, then the Hopper GEMM.
    const Kernel kn = kiln::variants::gemm::i8_i32();
    Tensor<i8> x2({256, 320}), b({320, 384});
    auto x2d = x2.to(cuda()), bd = b.to(cuda());
    Executable exe_kn = kn.compile(cuda());
    const std::uint64_t transposed = cu::staging_counts().transposed;
    fake()->reset();
    exe_kn.launch(std::as_const(x2d).view(), std::as_const(bd).view(), yd.view());
    EXPECT_EQ(counts().launches, 2) << "B transposed, then the GEMM\n" << exe_kn.plan();
    EXPECT_EQ(counts().last_block, 384u) << "the Hopper GEMM";
    EXPECT_EQ(cu::staging_counts().transposed, transposed + 1);
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 2) << "X and the copy of B";
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].dims, maps[0].dims + 2), (std::vector<std::uint64_t>{320, 256}));
    EXPECT_EQ(maps[0].strides[0], 320u) << "X read in place";
    EXPECT_EQ(std::vector<std::uint64_t>(maps[1].dims, maps[1].dims + 2), (std::vector<std::uint64_t>{320, 384})) << "[N][K]: the copy's";
    EXPECT_EQ(maps[1].strides[0], 384u) << "the copy's rows: K bytes padded to whole 128-byte lines";
    EXPECT_EQ(maps[1].box[0], 128u);
    EXPECT_TRUE(maps[1].box[1] == 64u || maps[1].box[1] == 128u) << "bn rows of the copy (K-major): " << maps[1].box[1];
    const std::string plan_kn = exe_kn.plan();
    EXPECT_NE(plan_kn.find("B stored [K, N] (copied transposed at each launch: wgmma reads 8-bit operands K-major only)"), std::string::npos)
        << plan_kn;
}

// Operand views that lie the other way round in memory from the program's indexing
// (PyTorch's `w.t()`: B indexed [k, n] with strides (1, K)) take the Hopper GEMM as
// they are stored, each a variant of the kernel: B read K-major from its [N][K] rows,
// A indexed [m, k] with strides (1, M) read M-major from its [K][M] rows, no copy.
// Before, TMA could not read them and the generic kernel ran.
TEST_F(FakeCuda, GemmOperandsStoredTheOtherWayRoundAreReadAsStored) {
    const Kernel k = kiln::variants::gemm::t128x128x64();
    Tensor<bf16> a({512, 256}), at({256, 512}), bt({384, 256}), c({512, 384});
    auto ad = a.to(cuda()), atd = at.to(cuda()), btd = bt.to(cuda()), cd = c.to(cuda());
    const HostView<const bf16> b_flipped{btd.data(), {256, 384}, {1, 256}, Device::cuda, 0};  // B [K, N] stored [N][K]
    const HostView<const bf16> a_flipped{atd.data(), {512, 256}, {1, 512}, Device::cuda, 0};  // A [M, K] stored [K][M]
    Executable exe = k.compile(cuda());
    fake()->reset();
    exe.launch(std::as_const(ad).view(), b_flipped, cd.view());
    EXPECT_EQ(counts().launches, 1) << "no copy\n" << exe.plan();
    EXPECT_EQ(counts().last_block, 384u) << "the Hopper GEMM";
    TensorMap maps[16];
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 2) << "A and B";
    EXPECT_EQ(std::vector<std::uint64_t>(maps[1].dims, maps[1].dims + 2), (std::vector<std::uint64_t>{256, 384})) << "B as stored: [N] rows of K";
    EXPECT_EQ(maps[1].strides[0], 256u * 2);
    EXPECT_EQ(maps[1].box[0], 64u);
    const std::string plan = exe.plan();
    EXPECT_NE(plan.find("B's view stored the other way round (strides with the unit one first): read K-major"), std::string::npos) << plan;

    fake()->reset();
    exe.launch(a_flipped, b_flipped, cd.view());
    EXPECT_EQ(counts().launches, 1) << "no copy";
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 1) << "A's (B's map is the first launch's: tensor_map_cache.h)";
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].dims, maps[0].dims + 2), (std::vector<std::uint64_t>{512, 256})) << "A as stored: [K] rows of M";
    EXPECT_EQ(maps[0].strides[0], 512u * 2);
    EXPECT_EQ(maps[0].box[0], 64u);
    EXPECT_EQ(maps[0].box[1], 64u) << "boxes of [bk][64 m] (M-major)";
}

// Triton's grouped order of the tiles over a 1-D grid takes the Hopper GEMM (the
// launch checked it visits each tile once); an order that computes a tile twice runs
// the generic kernel, and says so once at the launch's line.
TEST_F(FakeCuda, AOneDimensionalGridInGroupedOrderTakesTheHopperGemm) {
    Tensor<bf16> a({2400, 64}), b({64, 1024}), c({2400, 1024});  // 19 x 8 blocks: groups of 8, 8 and 3 rows
    auto ad = a.to(cuda()), bd = b.to(cuda()), cd = c.to(cuda());
    fake()->reset();
    kiln::variants::gemm::grid_grouped().launch(cuda(), std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
    EXPECT_EQ(counts().launches, 1);
    EXPECT_EQ(counts().last_block, 384u) << "the Hopper GEMM";

    Tensor<bf16> bias({256}), r({512, 256}), a2({512, 200}), b2({200, 256}), c2({512, 256}), d2({512, 256});
    auto a2d = a2.to(cuda()), b2d = b2.to(cuda()), biasd = bias.to(cuda()), rd = r.to(cuda()), c2d = c2.to(cuda()), d2d = d2.to(cuda());
    testing::internal::CaptureStderr();
    gemm_test::mapped_gemm(gemm_test::TileOrder::repeats)
        .launch(cuda(), std::as_const(a2d).view(), std::as_const(b2d).view(), std::as_const(biasd).view(), std::as_const(rd).view(), c2d.view(),
                d2d.view(), 1.5f);
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(counts().last_block, 384u) << "the generic kernel";
    EXPECT_NE(said.find("the GEMM kernel refused this launch (the 1-D grid's pids 0 and 7 both compute block (0, 0))"), std::string::npos) << said;
}

// An f32 GEMM whose mma allows tf32 takes the Hopper kernel on wgmma k8 tf32: operands
// are FLOAT32 maps whose boxes are rows of 32 elements (128 bytes), read K-major, so a
// B stored [K, N] is copied transposed first ([N] rows of K elements padded to whole
// 128-byte lines), and an A stored [M, K] is read in place.
TEST_F(FakeCuda, Tf32GemmReadsKMajorFloatMapsAndTransposesBStoredKByN) {
    const Kernel k = kiln::variants::gemm::tf32_plain();  // 128x128x32 tiles
    Tensor<f32> a({256, 200}), b({200, 384});
    Tensor<f32> c({256, 384});
    auto ad = a.to(cuda()), bd = b.to(cuda());
    auto cd = c.to(cuda());
    Executable exe = k.compile(cuda());
    const std::uint64_t transposed = cu::staging_counts().transposed;
    fake()->reset();
    exe.launch(std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
    EXPECT_EQ(counts().launches, 2) << "B transposed, then the GEMM\n" << exe.plan();
    EXPECT_EQ(cu::staging_counts().transposed, transposed + 1);
    TensorMap maps[16];
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 2) << "A and the copy of B";
    for (int i = 0; i < 2; ++i) {
        EXPECT_EQ(maps[i].type, 7) << "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
        EXPECT_EQ(maps[i].box[0], 32u) << "a box row of 32 f32";
    }
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].dims, maps[0].dims + 2), (std::vector<std::uint64_t>{200, 256}));
    EXPECT_EQ(maps[0].strides[0], 800u) << "A in place: rows of 200 f32";
    EXPECT_EQ(std::vector<std::uint64_t>(maps[1].dims, maps[1].dims + 2), (std::vector<std::uint64_t>{200, 384})) << "[N][K]: the copy's";
    EXPECT_EQ(maps[1].strides[0], 224u * 4) << "the copy's rows: K elements padded to whole 128-byte lines";
    const std::string plan = exe.plan();
    EXPECT_NE(plan.find("k8 tf32 -> f32 (allow_tf32)"), std::string::npos) << plan;
    EXPECT_NE(plan.find("x32 (program's 128x128x32)"), std::string::npos) << "BK 32: a box row of f32\n" << plan;
    EXPECT_NE(plan.find("B stored [K, N] (copied transposed at each launch: wgmma reads tf32 operands K-major only)"), std::string::npos) << plan;
}

// A batched GEMM whose A rows TMA cannot read in place (100 bf16: 200 bytes, not a
// multiple of 16) packs A's matrices, one after another, into rows of whole 128-byte
// lines (the module's packing kernel: a launch before the GEMM's), and A's map
// describes the copy: rows of 256 bytes, matrices 200 rows apart. B, on whole lines,
// is read in place. Before, such a batch took the generic kernel.
TEST_F(FakeCuda, BatchedGemmPacksOperandsTmaCannotReadInPlace) {
    const Kernel k = kiln::variants::gemm::batched();  // 128x128x64 tiles, [batch, rows, cols] views
    Tensor<bf16> a({3, 200, 100}), b({3, 100, 384}), c({3, 200, 384});
    auto ad = a.to(cuda()), bd = b.to(cuda()), cd = c.to(cuda());
    Executable exe = k.compile(cuda());
    fake()->reset();
    exe.launch(std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
    EXPECT_EQ(counts().launches, 2) << "A packed, then the GEMM\n" << exe.plan();
    EXPECT_EQ(counts().last_block, 384u) << "the Hopper GEMM";
    TensorMap maps[16];
    ASSERT_EQ(fake()->tensor_maps(maps, 16), 2) << "A and B";
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].dims, maps[0].dims + 3), (std::vector<std::uint64_t>{100, 200, 3}));
    EXPECT_EQ(std::vector<std::uint64_t>(maps[0].strides, maps[0].strides + 2), (std::vector<std::uint64_t>{128 * 2, 200 * 128 * 2})) << "the copy's";
    EXPECT_EQ(std::vector<std::uint64_t>(maps[1].strides, maps[1].strides + 2), (std::vector<std::uint64_t>{384 * 2, 100 * 384 * 2})) << "B in place";
    const std::string plan = exe.plan();
    EXPECT_NE(plan.find("GEMM operands: A packed to whole 128-byte lines first (TMA needs a 16-byte aligned base and row stride: rows of 200 bytes)"),
              std::string::npos)
        << plan;
}

// The operand staging kernels are shared by every GEMM, a module each
// (staging_kernels.h), loaded into a device's context once (by the first launch that
// needs one, or here), not a copy in each GEMM's module. Two GEMMs whose rows TMA
// cannot read in place (A's 45 bf16: 90 bytes, B's 70: 140) each load their own
// module alone and launch the packing kernel for each operand before the GEMM.
TEST_F(FakeCuda, EveryGemmPacksWithTheOneStagingModule) {
    const cu::Device& d = *cu::device();
    const cu::CUfunction pack = cu::staging_kernel(d, cu::StagingKernel::pack_rows);
    ASSERT_NE(pack, nullptr);
    EXPECT_NE(cu::staging_kernel(d, cu::StagingKernel::transpose_bytes), nullptr);
    EXPECT_NE(cu::staging_kernel(d, cu::StagingKernel::transpose_words), nullptr);
    EXPECT_NE(cu::staging_kernel(d, cu::StagingKernel::transpose_bytes), pack) << "each its own";
    Tensor<bf16> a({100, 45}), b({45, 70}), c({100, 70});
    auto ad = a.to(cuda()), bd = b.to(cuda()), cd = c.to(cuda());
    for (const char* name : {"staged_a", "staged_b"}) {
        SCOPED_TRACE(name);
        const Kernel k = catalog::make_typed_gemm_kernel<bf16, f32, bf16>(name, {});
        fake()->reset();
        k.launch(cuda(), std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
        EXPECT_EQ(counts().module_loads, 1) << "its own module alone";
        EXPECT_EQ(counts().launches, 3) << "A and B packed, then the GEMM";
    }
    EXPECT_EQ(cu::staging_kernel(d, cu::StagingKernel::pack_rows), pack) << "kept";
}

// A fuzz campaign's batch compiles each program's cuda kernel ahead of the checks
// (TargetImpl::prepare_batch, one program at a time on this target), so that the
// campaign's time report can tell NVRTC from the launches: every module of the
// batch is loaded before its first program is checked, and the checks load none.
TEST_F(FakeCuda, AFuzzBatchCompilesItsKernelsBeforeItsChecks) {
    fuzz::CampaignOptions c;
    c.seed = 7700001;
    c.count = 4;
    c.batch = 4;
    c.targets = {interp(), cuda()};
    c.limits.device = true;
    long at_first_check = -1;
    const fuzz::Summary s = fuzz::run_campaign(c, [&](const fuzz::Result&, std::int64_t done) {
        if (done == 1) at_first_check = counts().module_loads;
    });
    EXPECT_EQ(s.programs, 4);
    EXPECT_GE(at_first_check, 4) << "a module a program, loaded while the batch was prepared";
    EXPECT_EQ(counts().module_loads, at_first_check) << "the launches compiled nothing more";
    EXPECT_GT(s.prepare_seconds, 0.0);
    ASSERT_EQ(s.target_seconds.size(), 2u);
    EXPECT_GT(s.target_seconds[1], 0.0);
}
