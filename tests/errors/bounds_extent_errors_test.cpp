// Must-fail programs: bounds and extents. Accesses that leave a view under
// bounds::check (raised on the host targets, naming the access's line, the
// element and the instance) or break a bounds::assume contract (the
// interpreter verifies it); grids, loops and tiles sized by extents read from
// the launch that are negative, empty or too large.
#include "must_fail.h"

using namespace kiln;

namespace {

std::vector<Target> host_targets() {
    std::vector<Target> t = {interp()};
    if (cpu().available()) t.push_back(cpu());
    return t;
}

// Each kernel's offending line is the constant just above it.
const int kReadPastTheEnd = __LINE__ + 3;
Kernel read_past_the_end() {
    return kernel("read_past_the_end", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("g", x.extent(0))))) y(coord(n.index()), shape(1)).store(x[coord(n.index() + 1), shape(1), bounds::check]);
    });
}
const int kWriteBeforeTheStart = __LINE__ + 3;
Kernel write_before_the_start() {
    return kernel("write_before_the_start", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("g", x.extent(0))))) y(coord(n.index() - 1), shape(1), bounds::check).store(x[coord(n.index()), shape(1)]);
    });
}
const int kRowTooWide = __LINE__ + 4;
Kernel row_too_wide() {
    return kernel("row_too_wide", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", 8);
        for (auto& n : parallel(shape(axis("g", x.extent(0))))) y(coord(n.index(), 0), shape(r, c)).store(x[coord(n.index(), 0), shape(r, c), bounds::check]);
    });
}
const int kStepsPastTheEnd = __LINE__ + 6;
Kernel steps_past_the_end() {
    return kernel("steps_past_the_end", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", 2);
        for (auto& n : parallel(shape(axis("g", x.extent(0))))) {
            auto acc = zeros<f32>(shape(c));
            for (auto& s : n.serial(shape(axis("s", 3)))) acc = acc + reshape(x[coord(n.index(), s.index() * 2), shape(1, c), bounds::check], shape(c));
            y(coord(n.index(), 0), shape(1, c)).store(acc);
        }
    });
}
const int kAssumedInRange = __LINE__ + 3;
Kernel assumed_in_range() {
    return kernel("assumed_in_range", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& n : parallel(shape(axis("g", x.extent(0))))) y(coord(n.index()), shape(1)).store(x[coord(n.index() + 2), shape(1), bounds::assume]);
    });
}

}  // namespace

TEST(BoundsErrors, CheckedAccessesRaiseOnHostTargets) {
    Tensor<f32> x({4}), y({4}), x2({3, 5}), y2({3, 8}), x3({2, 5}), y3({2, 2});
    const auto k1 = read_past_the_end(), k2 = write_before_the_start(), k3 = row_too_wide(), k4 = steps_past_the_end();
    for (const Target& t : host_targets()) {
        SCOPED_TRACE(t.name());
        must_fail::expect({
            {kReadPastTheEnd, [&] { k1.launch(t, std::as_const(x).view(), y.view()); },     "load: index (4) is out of range for argument 0 of extent 4 in instance 3"},
            {kWriteBeforeTheStart, [&] { k2.launch(t, std::as_const(x).view(), y.view()); }, "store: index (-1) is out of range for argument 1 of extent 4 in instance 0"},
            {kRowTooWide, [&] { k3.launch(t, std::as_const(x2).view(), y2.view()); },        "load: index (0, 5) is out of range for argument 0 of extent 3x5 in instance 0"},
            {kStepsPastTheEnd, [&] { k4.launch(t, std::as_const(x3).view(), y3.view()); },   "load: index (0, 5) is out of range for argument 0 of extent 2x5 in instance 0"},
        });
    }
}

TEST(BoundsErrors, AssumptionsAreVerifiedByTheInterpreter) {
    Tensor<f32> x({4}), y({4});
    const auto k = assumed_in_range();
    must_fail::expect({
        {kAssumedInRange, [&] { k.launch(interp(), std::as_const(x).view(), y.view()); },
         "load: index (4) is out of range for argument 0 of extent 4 (bounds::assume was violated) in instance 2"},
    });
}

// A fallback is what an out-of-range element reads under bounds::zero; the other
// policies never read one.
TEST(BoundsErrors, FallbackWithAPolicyThatNeverReadsIt) {
    auto m = axis("m", 2);
    must_fail::expect({
        {__LINE__, [&] { must_fail::trace(kernel("k", [&](View<const f32, 1> x) { (void)x(coord(0), shape(m), bounds::check).load(1.0f); })); },
         "load: a fallback with bounds::check is never read (out-of-range elements raise); use bounds::zero"},
        {__LINE__, [&] { must_fail::trace(kernel("k", [&](View<const f32, 1> x) { (void)x(coord(0), shape(m), bounds::assume).load(1.0f); })); },
         "load: a fallback with bounds::assume is never read (accesses are assumed in range); use bounds::zero"},
    });
}

TEST(ExtentErrors, Grids) {
    Tensor<f32> x({3}), y({3});
    static float one[1];
    const HostView<const f32> huge{one, {std::int64_t{1} << 33}, {0}};  // 2^33 elements, all one: a broadcast view
    for (const Target& t : host_targets()) {
        SCOPED_TRACE(t.name());
        must_fail::expect({
            {__LINE__, [&] { kernel("shrink", [](View<const f32, 1> x, View<f32, 1> y) { for (auto& n : parallel(shape(axis("g", x.extent(0) - 5)))) y(coord(n.index()), shape(1)).store(x[coord(n.index()), shape(1)]); })
                                 .launch(t, std::as_const(x).view(), y.view()); },
             "parallel: negative grid extent -2"},
            {__LINE__, [&] { kernel("square", [](View<const f32, 1> x, View<f32, 1> y) { auto a = axis("a", x.extent(0)), b = axis("b", x.extent(0)); for (auto& n : parallel(shape(a, b))) y(coord(n.index(b)), shape(1)).store(x[coord(0), shape(1)]); })
                                 .launch(t, huge, y.view()); },
             "parallel: the grid has more than 2^63 instances"},
        });
    }
}

TEST(ExtentErrors, TileShapes) {
    Tensor<f32> x({2, 0}), y({2, 0});
    static float one[1];
    const HostView<const f32> huge{one, {std::int64_t{1} << 41}, {0}};  // 2^41 elements, all one
    Tensor<f32> out({1});
    for (const Target& t : host_targets()) {
        SCOPED_TRACE(t.name());
        must_fail::expect({
            {__LINE__, [&] { kernel("cols", [](View<const f32, 2> x, View<f32, 2> y) { auto c = axis("c", x.extent(1)); for (auto& n : parallel(shape(axis("g", x.extent(0))))) y(coord(n.index(), 0), shape(1, c)).store(x[coord(n.index(), 0), shape(1, c)]); })
                                 .launch(t, std::as_const(x).view(), y.view()); },
             "shape: axis 'c' of extent 0 (read from a launch argument) sizes a tile; a tile's extents are positive"},
            {__LINE__, [&] { kernel("cols", [](View<const f32, 2> x, View<f32, 2> y) { for (auto& n : parallel(shape(axis("g", x.extent(0))))) y(coord(n.index(), 0), shape(1, x.extent(1))).store(x[coord(n.index(), 0), shape(1, x.extent(1))]); })
                                 .launch(t, std::as_const(x).view(), y.view()); },
             "shape: a dimension of extent 0 (read from a launch argument) sizes a tile; a tile's extents are positive"},
            {__LINE__, [&] { kernel("all", [](View<const f32, 1> x, View<f32, 1> y) { auto c = axis("c", x.extent(0)); for (auto& n : parallel(shape(axis("g", 1)))) y(coord(n.index()), shape(1)).store(reduce(x[coord(0), shape(c)], c, add)); })
                                 .launch(t, huge, out.view()); },
             "shape: tile too large: more than 2^40 elements (1 dimension, one of extent 2199023255552)"},
        });
    }
}
