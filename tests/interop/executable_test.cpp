// Compiled handles: k.compile(target, options[, shapes]), exe.launch/plan/source/ir,
// capture from shapes alone, per-launch precision, and the retrace counter.
#include <gtest/gtest.h>

#include <cstdlib>
#include <algorithm>
#include <filesystem>

#include "interop_util.h"

using namespace kiln;
using namespace kiln::interop_test;

namespace {
std::string here(int line) { return "executable_test.cpp:" + std::to_string(line) + ": "; }
}  // namespace

TEST(Executable, CapturedFromShapesBeforeAnyMemory) {
    Kernel k = softmax_kernel();
    Executable exe = k.compile(interp(), {}, tensor_shape(6, 20), tensor_shape(6, 20));
    EXPECT_EQ(k.traces(), 1) << "traced at compile, before a launch";
    EXPECT_TRUE(contains(exe.ir(), "specialized(")) << exe.ir();
    EXPECT_TRUE(contains(exe.plan(), "target interp: kernel softmax")) << exe.plan();
    Tensor<f32> x = inputs(6, 20), y({6, 20});
    exe.launch(std::as_const(x).view(), y.view());
    EXPECT_EQ(k.traces(), 1) << "the launch's shapes are the captured ones";
    auto ref = softmax_reference(x);
    for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(y.values()[i], ref[i], 2e-7 + 1e-6 * ref[i]) << i;
}

TEST(Executable, SeedCaptureThenCompile) {
    Kernel k = softmax_kernel();
    Capture c = k.capture(tensor_shape(3, 9), tensor_shape(3, 9));
    EXPECT_TRUE(contains(c.ir(), "kernel softmax")) << c.ir();
    Executable exe = c.compile(cpu());
    EXPECT_TRUE(contains(exe.plan(), "target cpu")) << exe.plan();
    EXPECT_EQ(&exe.kernel().impl(), &k.impl());
}

TEST(Executable, ExactCpuIsBitExactWithTheInterpreterAndStandardIsNot) {
    Kernel k = softmax_kernel();
    Tensor<f32> x = inputs(9, 257, 3), want({9, 257}), exact({9, 257});
    k.launch(interp(), std::as_const(x).view(), want.view());
    Executable e = k.compile(cpu(), {.precision = Precision::exact});
    e.launch(std::as_const(x).view(), exact.view());
    EXPECT_EQ(exact.values(), want.values());
    Executable s = k.compile(cpu(), {.precision = Precision::standard}, tensor_shape(9, 257), tensor_shape(9, 257));
    // The standard program calls the fast vectorised f32 exp; the exact one kiln's, with its fallback.
    EXPECT_TRUE(contains(s.source(), "= kiln_cpu::exp32_fast("));
    EXPECT_FALSE(contains(e.source(), "= kiln_cpu::exp32_fast("));
    EXPECT_TRUE(contains(e.source(), "kiln_rt::k_exp("));
    EXPECT_EQ(e.options().precision, Precision::exact);
}

TEST(Executable, PrecisionPerLaunch) {
    Kernel k = softmax_kernel();
    Tensor<f32> x = inputs(4, 300, 5), want({4, 300}), got({4, 300});
    k.launch(interp(), std::as_const(x).view(), want.view());
    Precision seen = Precision::standard;
    {
        auto scope = handle_launch([&](LaunchRequest& r, const Next& next) {
            seen = r.options.precision;
            next(r);
        });
        k.launch(cpu(), Precision::exact, std::as_const(x).view(), got.view());
    }
    EXPECT_EQ(seen, Precision::exact);
    EXPECT_EQ(got.values(), want.values());
    k.launch(cpu(), CompileOptions{.precision = Precision::exact}, std::as_const(x).view(), got.view());
    EXPECT_EQ(got.values(), want.values());
}

TEST(Executable, OptionsBelongRightAfterTheTarget) {
    Kernel k = softmax_kernel();
    Tensor<f32> x({2, 3}), y({2, 3});
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; k.launch(std::as_const(x).view(), Precision::exact, y.view()); });
    EXPECT_EQ(e, here(line) + "launch: compile options go right after the target: k.launch(target, Precision::exact, args...)");
}

TEST(Executable, HandlersSeeTheExecutablesTargetAndOptions) {
    Kernel k = softmax_kernel();
    Executable exe = k.compile(interp({.checked = false}), {.precision = Precision::exact});
    Tensor<f32> x = inputs(2, 5), y({2, 5});
    std::string target;
    Precision precision = Precision::standard;
    auto scope = handle_launch([&](LaunchRequest& r, const Next& next) {
        target = r.target->name();
        precision = r.options.precision;
        next(r);
    });
    exe.launch(std::as_const(x).view(), y.view());
    EXPECT_EQ(target, "interp");
    EXPECT_EQ(precision, Precision::exact);
    EXPECT_TRUE(contains(exe.plan(), "unchecked")) << "the launch's program is the one described";
}

TEST(Executable, NothingToDescribeBeforeShapesOrALaunch) {
    Executable exe = softmax_kernel().compile(cpu());
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; (void)exe.plan(); });
    EXPECT_EQ(e, here(line) + "plan: kernel 'softmax' has no program yet: compile it with shapes "
                              "(k.compile(target, options, tensor_shape(...), ...)) or launch it first");
}

TEST(Executable, LaunchGetsArgumentsOnly) {
    Executable exe = softmax_kernel().compile(interp());
    Tensor<f32> x({2, 3}), y({2, 3});
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; exe.launch(cpu(), std::as_const(x).view(), y.view()); });
    EXPECT_EQ(e, here(line) + "launch: an executable runs on the target it was compiled for (interp); launch it with the kernel's arguments only");
}

TEST(Executable, LaunchesValidateTheirViews) {
    // A handle skips the retrace, not the checks a kernel's launch makes: a view
    // made by hand with a null pointer is refused, naming the launch's line.
    Executable exe = softmax_kernel().compile(cpu());
    Tensor<f32> y({2, 3});
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; exe.launch(HostView<const f32>{nullptr, {2, 3}, {3, 1}}, y.view()); });
    EXPECT_EQ(e, here(line) + "launch: kernel 'softmax' argument 0 (View<const f32, 2>): the data pointer is null, but the view (2x3) has elements");
}

TEST(Executable, CaptureErrorsNameTheShapesLine) {
    auto k = kernel("scale", [](View<const f32, 1> x, View<f32, 1> y, Scalar<f32> a) {
        auto n = axis("n", 8);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 8))))) {
            auto at = coord(nest.index() * 8);
            y(at, shape(n)).store(x[at, shape(n)] * a);
        }
    });
    int line = 0;
    std::string e = error_of([&] { line = __LINE__; (void)k.capture(tensor_shape(4), tensor_shape(4), tensor_shape(1)); });
    EXPECT_EQ(e, here(line) + "capture: kernel 'scale' argument 2 is Scalar<f32>; capture it with a value, not a tensor_shape");
    e = error_of([&] { line = __LINE__; (void)k.capture(tensor_shape(4), tensor_shape(-4), 2.0f); });
    EXPECT_EQ(e, here(line) + "view: negative extent -4 in dimension 0");
    EXPECT_TRUE(contains(k.capture(tensor_shape(16), tensor_shape(16), 2.0f).ir(), "kernel scale"));
    e = error_of([&] { (void)k.capture(tensor_shape(4, 4), tensor_shape(4), 2.0f); });
    EXPECT_TRUE(contains(e, "argument 0 expects View<const f32, 1>, got a read-only view of f32 with rank 2")) << e;
}

TEST(Executable, StridedShapes) {
    Kernel k = softmax_kernel();
    // A column-major input: the cpu program is specialised on its non-unit inner stride.
    Executable exe = k.compile(cpu(), {}, strided_shape({5, 7}, {1, 5}), tensor_shape(5, 7));
    EXPECT_TRUE(contains(exe.plan(), "target cpu")) << exe.plan();
    Tensor<f32> xt = inputs(7, 5, 9), y({5, 7});  // x = xt transposed
    exe.launch(view<const f32>(xt.data(), {5, 7}, {1, 5}), y.view());
    for (std::int64_t i = 0; i < 5; ++i) {
        double total = 0;
        for (std::int64_t j = 0; j < 7; ++j) total += y.values()[static_cast<std::size_t>(i * 7 + j)];
        EXPECT_NEAR(total, 1.0, 1e-6);
    }
}

TEST(Executable, AheadOfTimeCompilationFillsTheCache) {
    auto dir = std::filesystem::temp_directory_path() / ("kiln-aot-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    ::setenv("KILN_CACHE_DIR", dir.c_str(), 1);
    Kernel k = softmax_kernel();
    Executable exe = k.compile(cpu(), {.precision = Precision::exact}, tensor_shape(3, 33), tensor_shape(3, 33));
    std::size_t entries = 0;
    for (auto& e : std::filesystem::recursive_directory_iterator(dir)) entries += e.path().extension() == ".so";
    ::unsetenv("KILN_CACHE_DIR");
    std::filesystem::remove_all(dir);
    EXPECT_GE(entries, 1u) << "compile() with shapes compiles the shared object before any launch";
}

TEST(Specialisation, RetracesAreCounted) {
    Kernel k = softmax_kernel();  // the column count sizes the tile: a static use
    Tensor<f32> a({2, 8}), b({2, 8}), c({3, 8}), d({3, 8}), e({2, 16}), f({2, 16});
    k.launch(interp(), std::as_const(a).view(), b.view());
    k.launch(interp(), std::as_const(c).view(), d.view());
    EXPECT_EQ(k.traces(), 1) << "another row count is a launch value";
    k.launch(interp(), std::as_const(e).view(), f.view());
    EXPECT_EQ(k.traces(), 2) << "another column count is a new program";
}

TEST(Specialisation, StaticAndDynamicExtents) {
    // static_extent bakes the value in even where only index arithmetic uses it.
    auto baked = kernel("baked", [](View<const f32, 1> x, View<f32, 1> y) {
        auto blocks = axis("blocks", ceil_div(x.static_extent(0), 4));
        for (auto& nest : parallel(shape(blocks))) {
            auto at = coord(nest.index() * 4);
            y(at, shape(axis("b", 4))).store(x[at, shape(axis("b", 4))]);
        }
    });
    Tensor<f32> a({8}), b({8}), c({12}), d({12});
    baked.launch(interp(), std::as_const(a).view(), b.view());
    baked.launch(interp(), std::as_const(c).view(), d.view());
    EXPECT_EQ(baked.traces(), 2);
    // dynamic_extent refuses a static use, naming the declaration.
    int line = 0;
    auto tiled = kernel("tiled", [&](View<const f32, 2> x, View<f32, 2> y) {
        line = __LINE__ + 1;
        auto c = axis("c", x.dynamic_extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto v = x[coord(nest.index(), 0), shape(axis("r", 1), c)];
            y(coord(nest.index(), 0), shape(axis("r", 1), c)).store(v);
        }
    });
    Tensor<f32> x({2, 4}), y({2, 4});
    std::string e = error_of([&] { tiled.launch(interp(), std::as_const(x).view(), y.view()); });
    EXPECT_EQ(e.rfind(here(line) + "extent: declared dynamic (dynamic_extent) but used where a static number is needed", 0), 0u) << e;
}

TEST(Bench, WarmsUpThenTimesEachLaunch) {
    Kernel k = softmax_kernel();
    Executable exe = k.compile(cpu());
    Tensor<f32> x = inputs(64, 128), y({64, 128});
    HostView<const f32> xv = std::as_const(x).view();
    HostView<f32> yv = y.view();
    int launches = 0;
    auto scope = handle_launch([&](LaunchRequest& r, const Next& next) {
        ++launches;
        next(r);
    });
    BenchResult r = bench(exe, {.warmup = 3, .reps = 9, .flush_l2 = true}, xv, yv);
    EXPECT_EQ(launches, 12);
    ASSERT_EQ(r.samples.size(), 9u);
    EXPECT_GT(r.min, 0.0);
    EXPECT_LE(r.min, r.median);
    std::vector<double> sorted = r.samples;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(r.median, sorted[4]);
    auto ref = softmax_reference(x);
    EXPECT_NEAR(y[0], ref[0], 1e-6) << "the timed launches ran the kernel";
    BenchResult d = bench(exe, xv, yv);  // default options
    EXPECT_EQ(d.samples.size(), 100u);
    int line = __LINE__ + 1;
    std::string e = error_of([&] { (void)detail::bench(exe, {.reps = 0}, [] {}, Loc::here()); });
    EXPECT_EQ(e, here(line) + "bench: needs warmup >= 0 and reps >= 1");
}
