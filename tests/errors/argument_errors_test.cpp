// Must-fail programs: launch arguments. Every argument is checked before
// anything runs, and the error names the line of the launch: the count, each
// argument's kind, rank and access, the view's data, extents and strides, and
// where its memory lives. The same words on every target.
#include "must_fail.h"

using namespace kiln;

namespace {

Kernel scale_kernel() {
    return kernel("scale", [](View<const f32, 1> x, View<f32, 1> y, Scalar<f32> a) {
        for (auto& n : parallel(shape(axis("g", x.extent(0))))) y(coord(n.index()), shape(1)).store(x[coord(n.index()), shape(1)] * a);
    });
}

std::vector<Target> host_targets() {
    std::vector<Target> t = {interp()};
    if (cpu().available()) t.push_back(cpu());
    return t;
}

// A view of `extents` that claims to live in device memory (as a view of a
// Tensor moved with .to(cuda()) does) over host bytes: no device is needed to
// make one, and no target may read it as host memory.
HostView<const f32> device_view(const float* p, std::vector<std::int64_t> extents) {
    return HostView<const f32>{p, std::move(extents), {1}, Device::cuda};
}

}  // namespace

TEST(ArgumentErrors, CountKindRankAccess) {
    const auto k = scale_kernel();
    Tensor<f32> x({4}), y({4}), m({4, 1});
    Tensor<f64> d({4});
    Tensor<i32> i({4});
    for (const Target& t : host_targets()) {
        SCOPED_TRACE(t.name());
        must_fail::expect({
            {__LINE__, [&] { k.launch(t, std::as_const(x).view(), y.view()); },                    "launch: kernel 'scale' takes 3 arguments, got 2"},
            {__LINE__, [&] { k.launch(t, std::as_const(x).view(), y.view(), 2.0f, 3.0f); },        "launch: kernel 'scale' takes 3 arguments, got 4"},
            {__LINE__, [&] { k.launch(t, std::as_const(d).view(), y.view(), 2.0f); },              "launch: kernel 'scale' argument 0 expects View<const f32, 1>, got a read-only view of f64 with rank 1"},
            {__LINE__, [&] { k.launch(t, std::as_const(i).view(), y.view(), 2.0f); },              "launch: kernel 'scale' argument 0 expects View<const f32, 1>, got a read-only view of i32 with rank 1"},
            {__LINE__, [&] { k.launch(t, std::as_const(x).view(), m.view(), 2.0f); },              "launch: kernel 'scale' argument 1 expects View<f32, 1>, got a view of f32 with rank 2"},
            {__LINE__, [&] { k.launch(t, std::as_const(x).view(), std::as_const(y).view(), 2.0f); }, "launch: kernel 'scale' argument 1 (View<f32, 1>) is written, but a read-only view was passed"},
            {__LINE__, [&] { k.launch(t, 1.0f, y.view(), 2.0f); },                                 "launch: kernel 'scale' argument 0 expects View<const f32, 1>, got a scalar f32"},
            {__LINE__, [&] { k.launch(t, std::as_const(x).view(), y.view(), y.view()); },          "launch: kernel 'scale' argument 2 expects Scalar<f32>, got a view of f32 with rank 1"},
            {__LINE__, [&] { k.launch(t, std::as_const(x).view(), y.view(), 2); },                 "launch: kernel 'scale' argument 2 expects Scalar<f32>, got a scalar i64"},
            {__LINE__, [&] { k.launch(t, std::as_const(x).view(), y.view(), true); },              "launch: kernel 'scale' argument 2 expects Scalar<f32>, got a scalar bool"},
        });
    }
}

TEST(ArgumentErrors, ScalarKinds) {
    auto k = kernel("count", [](View<i32, 1> y, Scalar<i32> n) {
        for (auto& g : parallel(shape(axis("g", 1)))) y(coord(g.index()), shape(1)).store(full<i32>(shape(1), n));
    });
    auto flag = kernel("flag", [](View<i32, 1> y, Scalar<bool> b) {
        for (auto& g : parallel(shape(axis("g", 1)))) y(coord(g.index()), shape(1)).store(cast<i32>(full<bool>(shape(1), b)));
    });
    Tensor<i32> y({1});
    must_fail::expect({
        {__LINE__, [&] { k.launch(interp(), y.view(), 2.5); },                                     "launch: kernel 'count' argument 1 expects Scalar<i32>, got a scalar f64"},
        {__LINE__, [&] { flag.launch(interp(), y.view(), 1.0f); },                                 "launch: kernel 'flag' argument 1 expects Scalar<bool>, got a scalar f32"},
    });
}

TEST(ArgumentErrors, ViewsMadeByHand) {
    const auto k = scale_kernel();
    static std::vector<float> mem(16);
    Tensor<f32> y({4});
    alignas(8) static unsigned char bytes[64] = {};
    const auto* odd = reinterpret_cast<const f32*>(bytes + 2);
    char odd_text[32];
    std::snprintf(odd_text, sizeof odd_text, "%p", static_cast<const void*>(odd));
    for (const Target& t : host_targets()) {
        SCOPED_TRACE(t.name());
        must_fail::expect({
            {__LINE__, [&] { k.launch(t, HostView<const f32>{nullptr, {3}, {1}}, y.view(), 1.0f); },           "launch: kernel 'scale' argument 0 (View<const f32, 1>): the data pointer is null, but the view (3) has elements"},
            {__LINE__, [&] { k.launch(t, HostView<const f32>{odd, {3}, {1}}, y.view(), 1.0f); },                "launch: kernel 'scale' argument 0 (View<const f32, 1>): the data pointer " + std::string(odd_text) + " is not aligned to its 4-byte elements"},
            {__LINE__, [&] { k.launch(t, HostView<const f32>{mem.data(), {3}, {-1}}, y.view(), 1.0f); },       "launch: kernel 'scale' argument 0 (View<const f32, 1>): negative stride -1 in dimension 0"},
            {__LINE__, [&] { k.launch(t, HostView<const f32>{mem.data(), {-3}, {1}}, y.view(), 1.0f); },       "launch: kernel 'scale' argument 0 (View<const f32, 1>): negative extent -3 in dimension 0"},
            {__LINE__, [&] { k.launch(t, HostView<const f32>{mem.data(), {3}, {1, 1}}, y.view(), 1.0f); },     "launch: kernel 'scale' argument 0 (View<const f32, 1>): 1 extents but 2 strides"},
            {__LINE__, [&] { k.launch(t, HostView<const f32>{mem.data(), {3}, {}}, y.view(), 1.0f); },         "launch: kernel 'scale' argument 0 (View<const f32, 1>): 1 extents but 0 strides"},
            {__LINE__, [&] { k.launch(t, HostView<const f32>{mem.data(), {std::int64_t{1} << 62}, {4}}, y.view(), 1.0f); },
             "launch: kernel 'scale' argument 0 (View<const f32, 1>): extents and strides overflow 64-bit offsets (dimension 0)"},
            {__LINE__, [&] { k.launch(t, HostView<const f32>{mem.data(), {std::int64_t{1} << 61}, {1}}, y.view(), 1.0f); },
             "launch: kernel 'scale' argument 0 (View<const f32, 1>): the view spans more bytes than a 64-bit offset can address"},
        });
    }
}

// Where the memory lives: host targets read host memory; the cuda target reads
// device memory. Checked with the other arguments, so on any machine.
TEST(ArgumentErrors, Placement) {
    const auto k = scale_kernel();
    static float mem[4];
    Tensor<f32> x({4}), y({4});
    must_fail::expect({
        {__LINE__, [&] { k.launch(interp(), device_view(mem, {4}), y.view(), 1.0f); },
         "launch: kernel 'scale' argument 0 is in device memory; the interp target runs on host memory (copy it back with .to(host()))"},
        {__LINE__, [&] { k.launch(cuda(), std::as_const(x).view(), y.view(), 1.0f); },
         "launch: kernel 'scale' argument 0 is in host memory; the cuda target runs on device memory (copy it with .to(cuda()))"},
    });
    if (cpu().available())
        must_fail::expect({
            {__LINE__, [&] { k.launch(cpu(), device_view(mem, {4}), y.view(), 1.0f); },
             "launch: kernel 'scale' argument 0 is in device memory; the cpu target runs on host memory (copy it back with .to(host()))"},
        });
}

TEST(ArgumentErrors, Targets) {
    must_fail::expect({
        {__LINE__, [] { (void)target_named("tpu"); },                                              "target: unknown target 'tpu' (known: interp, cpu, cuda, metal, auto)"},
        {0, [] { ::setenv("KILN_TARGET", "metalx", 1); try { (void)default_target(); } catch (...) { ::unsetenv("KILN_TARGET"); throw; } },
         "KILN_TARGET='metalx' is not a known target (known: interp, cpu, cuda, metal, auto)"},
        {__LINE__, [] { auto h = handle_launch(nullptr); },                                        "handle_launch: empty handler"},
        {__LINE__, [] { auto outer = handle_launch([](LaunchRequest&, const Next&) { auto inner = handle_launch([](LaunchRequest& r, const Next& n) { n(r); }); });
                        launch(1, [](std::int64_t) {}); },
         "handle_launch: a handler cannot be installed from inside another handler"},
    });
}
