// Launches given bad arguments: each error names the line of the launch (or of
// the view or access at fault) and what is wrong, on the interpreter and the cpu
// target alike; an empty Kernel, a null or misaligned view, strides that cannot be
// and an access out of range all fail cleanly, and a launch over an empty view is
// an empty launch whatever was traced before.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <utility>

#include <kiln/kiln.h>

using namespace kiln;

namespace {

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

// "launch_errors_test.cpp:<line>: <what>" somewhere in the message.
void expect_at(const std::string& msg, int line, const std::string& what) {
    EXPECT_NE(msg.find("launch_errors_test.cpp:" + std::to_string(line) + ": " + what), std::string::npos)
        << "message: " << msg << "\nexpected at line " << line << ": " << what;
}

std::vector<Target> host_targets() {
    std::vector<Target> t = {interp()};
    if (cpu().available()) t.push_back(cpu());
    return t;
}

Kernel copy() {
    return kernel("copy", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", x.extent(0))))) y(coord(nest.index()), shape(1)).store(x[coord(nest.index()), shape(1)]);
    });
}

}  // namespace

// ---- the launch's own line

TEST(LaunchSite, ArgumentCountKindRankAndAccessNameTheLaunchLine) {
    auto k = copy();
    Tensor<f32> x({3}), y({3});
    Tensor<f64> d({3});
    Tensor<f32> m({3, 1});
    for (const Target& t : host_targets()) {
        int line = __LINE__ + 1;
        std::string msg = error_of([&] { k.launch(t, std::as_const(x).view()); });
        expect_at(msg, line, "launch: kernel 'copy' takes 2 arguments, got 1");
        line = __LINE__ + 1;
        msg = error_of([&] { k.launch(t, std::as_const(d).view(), y.view()); });
        expect_at(msg, line, "launch: kernel 'copy' argument 0 expects View<const f32, 1>, got a read-only view of f64 with rank 1");
        line = __LINE__ + 1;
        msg = error_of([&] { k.launch(t, std::as_const(x).view(), m.view()); });
        expect_at(msg, line, "launch: kernel 'copy' argument 1 expects View<f32, 1>, got a view of f32 with rank 2");
        line = __LINE__ + 1;
        msg = error_of([&] { k.launch(t, std::as_const(x).view(), std::as_const(y).view()); });
        expect_at(msg, line, "launch: kernel 'copy' argument 1 (View<f32, 1>) is written, but a read-only view was passed");
    }
    // Through the handler stack to the default target: the same line.
    const int line = __LINE__ + 1;
    std::string msg = error_of([&] { k.launch(std::as_const(x).view()); });
    expect_at(msg, line, "launch: kernel 'copy' takes 2 arguments, got 1");
}

// ---- empty kernels

TEST(EmptyKernel, LaunchAndNameAreErrorsNotCrashes) {
    Kernel k;
    EXPECT_FALSE(k);
    Tensor<f32> y({3});
    int line = __LINE__ + 1;
    std::string msg = error_of([&] { k.launch(interp(), y.view()); });
    expect_at(msg, line, "launch: this Kernel is empty (default-constructed or moved from); assign it a kernel(name, lambda) first");
    line = __LINE__ + 1;
    msg = error_of([&] { (void)k.name(); });
    expect_at(msg, line, "kernel: this Kernel is empty");
    msg = error_of([&] { (void)k.params(); });
    EXPECT_NE(msg.find("kernel: this Kernel is empty"), std::string::npos) << msg;
    msg = error_of([&] { run_kernel(k, interp(), {}, {}, Loc::here()); });
    EXPECT_NE(msg.find("launch: this Kernel is empty"), std::string::npos) << msg;
    auto real = copy();
    Kernel moved = std::move(real);
    EXPECT_TRUE(moved);
    line = __LINE__ + 1;
    msg = error_of([&] { real.launch(cpu(), y.view()); });  // NOLINT(bugprone-use-after-move): that is the point
    expect_at(msg, line, "launch: this Kernel is empty");
}

// ---- views

TEST(HostViews, NullDataWithElementsIsRefusedWhenMadeAndAtLaunch) {
    int line = __LINE__ + 1;
    std::string msg = error_of([] { (void)view<const f32>(nullptr, {3, 4}); });
    expect_at(msg, line, "view: the data pointer is null, but the view (3x4) has elements");
    EXPECT_EQ(error_of([] { (void)view<const f32>(nullptr, {0, 4}); }), "no error");  // an empty view reaches nothing
    auto k = copy();
    Tensor<f32> y({3});
    for (const Target& t : host_targets()) {
        line = __LINE__ + 1;
        msg = error_of([&] { k.launch(t, HostView<const f32>{nullptr, {3}, {1}}, y.view()); });
        expect_at(msg, line, "launch: kernel 'copy' argument 0 (View<const f32, 1>): the data pointer is null, but the view (3) has elements");
    }
}

TEST(HostViews, MisalignedDataIsRefused) {
    alignas(8) unsigned char bytes[64] = {};
    const auto* odd = reinterpret_cast<const f32*>(bytes + 2);
    const int line = __LINE__ + 1;
    std::string msg = error_of([&] { (void)view(odd, {4}); });
    expect_at(msg, line, "view: the data pointer ");
    EXPECT_NE(msg.find(" is not aligned to its 4-byte elements"), std::string::npos) << msg;
}

TEST(HostViews, ImpossibleStridesAndExtentsAreRefusedAtLaunch) {
    auto k = copy();
    std::vector<float> mem(16);
    Tensor<f32> y({3});
    struct Case {
        HostView<const f32> v;
        std::string what;
    };
    const Case cases[] = {
        {{mem.data(), {3}, {-1}}, "negative stride -1 in dimension 0"},
        {{mem.data(), {-3}, {1}}, "negative extent -3 in dimension 0"},
        {{mem.data(), {3}, {1, 1}}, "1 extents but 2 strides"},
        {{mem.data(), {std::int64_t{1} << 62}, {4}}, "extents and strides overflow 64-bit offsets (dimension 0)"},
        {{mem.data(), {std::int64_t{1} << 61}, {1}}, "the view spans more bytes than a 64-bit offset can address"},
    };
    for (const Target& t : host_targets())
        for (const Case& c : cases) {
            const int line = __LINE__ + 1;
            std::string msg = error_of([&] { k.launch(t, c.v, y.view()); });
            expect_at(msg, line, "launch: kernel 'copy' argument 0 (View<const f32, 1>): " + c.what);
        }
}

// ---- accesses name their own line, not their coord()'s

TEST(AccessSite, LoadAndStoreErrorsNameTheAccessLine) {
    int load_line = 0, store_line = 0;
    auto k = kernel("shifted", [&](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", x.extent(0))))) {
            auto at = coord(nest.index() + 1);
            auto here = coord(nest.index());
            load_line = __LINE__ + 1;
            auto v = x[at, shape(1), bounds::check];
            store_line = __LINE__ + 1;
            y(at, shape(1), bounds::check).store(v * 2.0f);
            (void)here;
        }
    });
    auto k2 = kernel("shifted_store", [&](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("g", x.extent(0))))) {
            auto at = coord(nest.index() + 1);
            auto v = x[coord(nest.index()), shape(1)];
            store_line = __LINE__ + 1;
            y(at, shape(1), bounds::check).store(v);
        }
    });
    Tensor<f32> x({4}), y({4});
    for (const Target& t : host_targets()) {
        std::string msg = error_of([&] { k.launch(t, std::as_const(x).view(), y.view()); });
        expect_at(msg, load_line, "load: index (4) is out of range for argument 0 of extent 4 in instance 3");
        msg = error_of([&] { k2.launch(t, std::as_const(x).view(), y.view()); });
        expect_at(msg, store_line, "store: index (4) is out of range for argument 1 of extent 4 in instance 3");
    }
}

// ---- empty launches

// A grid over a view's rows with no rows is an empty launch: the same on a
// fresh kernel and on one traced before with rows (the trace is shared: grid
// extents stay dynamic), on every host target.
TEST(EmptyLaunch, ZeroRowsIsAnEmptyLaunchInEitherOrder) {
    auto make = [] {
        return kernel("rows", [](View<const f32, 2> x, View<f32, 2> y) {
            auto c = axis("c", 4);
            for (auto& nest : parallel(shape(axis("g", x.extent(0))))) {
                auto r = nest.index();
                y(coord(r, 0), shape(1, c)).store(x[coord(r, 0), shape(1, c)] + 1.0f);
            }
        });
    };
    for (const Target& t : host_targets())
        for (bool empty_first : {true, false}) {
            auto k = make();
            Tensor<f32> x0({0, 4}), y0({0, 4});
            Tensor<f32> x2({2, 4}, std::vector<float>(8, 1.5f)), y2({2, 4});
            auto empty = [&] { k.launch(t, std::as_const(x0).view(), y0.view()); };
            auto full = [&] { k.launch(t, std::as_const(x2).view(), y2.view()); };
            if (empty_first) {
                EXPECT_EQ(error_of(empty), "no error") << t.name();
                EXPECT_EQ(error_of(full), "no error") << t.name();
            } else {
                EXPECT_EQ(error_of(full), "no error") << t.name();
                EXPECT_EQ(error_of(empty), "no error") << t.name();
            }
            EXPECT_EQ(y2.values(), std::vector<float>(8, 2.5f)) << t.name();
        }
}

// An extent from an empty view cannot size a tile: an error naming the axis's
// line, in either order too (a static use specialises, so each extent traces).
TEST(EmptyLaunch, AnEmptyExtentSizingATileIsAnError) {
    int axis_line = 0;
    auto k = kernel("cols", [&](View<const f32, 2> x, View<f32, 2> y) {
        axis_line = __LINE__ + 1;
        auto c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("g", x.extent(0))))) y(coord(nest.index(), 0), shape(1, c)).store(x[coord(nest.index(), 0), shape(1, c)]);
    });
    Tensor<f32> x({2, 0}), y({2, 0}), x1({2, 3}), y1({2, 3});
    for (const Target& t : host_targets()) {
        std::string msg = error_of([&] { k.launch(t, std::as_const(x).view(), y.view()); });
        expect_at(msg, axis_line, "shape: axis 'c' of extent 0 (read from a launch argument) sizes a tile; a tile's extents are positive");
        EXPECT_EQ(error_of([&] { k.launch(t, std::as_const(x1).view(), y1.view()); }), "no error");
    }
}

// A negative grid extent is an error at launch, on a fresh kernel as on one
// traced before with a positive extent.
TEST(EmptyLaunch, NegativeGridExtentIsAnErrorInEitherOrder) {
    for (const Target& t : host_targets()) {
        auto k = kernel("shrink", [](View<const f32, 1> x, View<f32, 1> y) {
            for (auto& nest : parallel(shape(axis("g", x.extent(0) - 5)))) y(coord(nest.index()), shape(1)).store(x[coord(nest.index()), shape(1)]);
        });
        Tensor<f32> x({3}), y({3}), x9({9}), y9({9});
        EXPECT_NE(error_of([&] { k.launch(t, std::as_const(x).view(), y.view()); }).find("parallel: negative grid extent -2"), std::string::npos);
        EXPECT_EQ(error_of([&] { k.launch(t, std::as_const(x9).view(), y9.view()); }), "no error");
        EXPECT_NE(error_of([&] { k.launch(t, std::as_const(x).view(), y.view()); }).find("parallel: negative grid extent -2"), std::string::npos);
    }
}
