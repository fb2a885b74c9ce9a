// Must-fail programs: views. Host views and tensors with impossible extents,
// strides or data; and inside kernels, accesses that do not fit the view they
// name: rank, coordinates, access mode, dimensions.
#include "must_fail.h"

using namespace kiln;
using must_fail::trace;

TEST(ViewErrors, HostViews) {
    static float d[16];
    must_fail::expect({
        {__LINE__, [] { (void)view(d, {2, -2}); },                                                  "view: negative extent -2 in dimension 1"},
        {__LINE__, [] { (void)view(d, {2, 2}, {-2, 1}); },                                          "view: negative stride -2 in dimension 0"},
        {__LINE__, [] { (void)view(d, {2, 2}, {1}); },                                              "view: 2 extents but 1 strides"},
        {__LINE__, [] { (void)view(d, {}); },                                                       "view: a view needs at least one dimension"},
        {__LINE__, [] { (void)view(d, {1, 1, 1, 1, 1, 1, 1, 1, 1}); },                              "view: views have rank 1 to 8, got 9"},
        {__LINE__, [] { (void)view(d, {std::int64_t{1} << 40, 2}, {std::int64_t{1} << 40, 1}); },  "view: extents and strides overflow 64-bit offsets (dimension 0)"},
        {__LINE__, [] { (void)view(d, {std::int64_t{1} << 61}); },                                  "view: the view spans more bytes than a 64-bit offset can address"},
        {__LINE__, [] { (void)view<const f32>(nullptr, {3, 4}); },                                  "view: the data pointer is null, but the view (3x4) has elements"},
    });
}

TEST(ViewErrors, Tensors) {
    must_fail::expect({
        {__LINE__, [] { (void)Tensor<f32>({2, 2}, std::vector<float>{1, 2, 3}); },                  "Tensor: got 3 values for 4 elements"},
        {__LINE__, [] { (void)Tensor<f32>({4, -1}); },                                              "view: negative extent -1 in dimension 1"},
        {__LINE__, [] { (void)Tensor<i8>({std::int64_t{1} << 32, std::int64_t{1} << 32}); },        "view: extents and strides overflow 64-bit offsets (dimension 0)"},
        {__LINE__, [] { (void)Tensor<f64>(std::vector<std::int64_t>{}); },                          "view: a view needs at least one dimension"},
    });
    // Only where no device can hold it: the reason is this machine's (no driver, no device).
    if (!cuda().available())
        must_fail::expect({
            {__LINE__, [] { Tensor<f32> t({2, 2}); (void)t.to(cuda()); }, "to: cannot copy a tensor to cuda: " + cuda().unavailable_reason()},
        });
}

// Seed 000's windows over host vectors.
TEST(ViewErrors, BufferWindows) {
    static std::vector<double> v(10, 1.0);
    must_fail::expect({
        {__LINE__, [] { (void)load(v, 8, 1, 4); },                                  "load: window of 4 elements at offset 8 (row stride 4) is outside a buffer of 10 elements"},
        {__LINE__, [] { (void)load(v, -1, 1, 2); },                                 "load: window of 2 elements at offset -1 (row stride 2) is outside a buffer of 10 elements"},
        {__LINE__, [] { (void)load(v, 0, 0, 3); },                                  "load: non-positive shape: 0x3"},
        {__LINE__, [] { (void)load_rows(v, 0, 2, 2, 3); },                          "load_rows: rows of 3 elements overlap: the row stride 2 is less than the width"},
        {__LINE__, [] { (void)load_rows(v, 2, 4, 3, 2); },                          "load_rows: window of 6 elements at offset 2 (row stride 4) is outside a buffer of 10 elements"},
        {__LINE__, [] { store(v, 8, filled(1, 4, 7.0)); },                          "store: window of 4 elements at offset 8 (row stride 4) is outside a buffer of 10 elements"},
        {__LINE__, [] { store_rows(v, 0, 4, zeros<f64>(shape(3))); },                "store_rows: needs a 2-D tile"},
    });
}

// Accesses inside a kernel, named at their own line when the kernel is traced.
TEST(ViewErrors, Accesses) {
    auto m = axis("m", 2), n = axis("n", 2);
    must_fail::expect({
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 2> x) { (void)x[coord(0, 0), shape(m)]; })); },
         "load: shape has rank 1 for argument 0 (View<const f32, 2>)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 2> x) { (void)x[coord(0), shape(m, n)]; })); },
         "load: coord has 1 components for argument 0 (View<const f32, 2>)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1> y) { for (auto& g : parallel(shape(m))) y(coord(g.index()), shape(m, n)).store(zeros<f32>(shape(m, n))); })); },
         "store: shape has rank 2 for argument 0 (View<f32, 1>)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 2> y) { for (auto& g : parallel(shape(m))) y(coord(g.index(), 0, 0), shape(m, n)).store(zeros<f32>(shape(m, n))); })); },
         "store: coord has 3 components for argument 0 (View<f32, 2>)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 1> x) { for (auto& g : parallel(shape(m))) x(coord(g.index()), shape(1)).store(zeros<f32>(shape(1))); })); },
         "store: argument 0 (View<const f32, 1>) is read-only; declare it View<f32, 1> to write to it"},
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 3> x) { (void)x.extent(3); })); },
         "extent: dimension 3 is outside argument 0 (View<const f32, 3>)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 2> x) { (void)x.stride(-1); })); },
         "stride: dimension -1 is outside argument 0 (View<const f32, 2>)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 1> x) { (void)x[coord(0), shape(0)]; })); },
         "load: non-positive shape: 0"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1> y) { for (auto& g : parallel(shape(m))) y(coord(g.index()), shape(-1)).store(zeros<f32>(shape(1))); })); },
         "store: non-positive shape: -1"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1> y) { for (auto& g : parallel(shape(m))) y(coord(g.index()), shape(n)).store(zeros<f32>(shape(3))); })); },
         "store: shape mismatch: value 3 vs destination 2 (n)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 1> x) { (void)x[coord(0), shape(m)].to_vector(); })); },
         "to_vector: the value is traced (inside a kernel) and has no data yet"},
    });
}

// Reading a view outside a kernel has no meaning: there is no launch to read.
TEST(ViewErrors, OutsideKernels) {
    must_fail::expect({
        {__LINE__, [] { View<const f32, 1> x(0); (void)x.extent(0); },                     "extent: only inside a kernel (kernel(name, lambda)); outside, use the eager tile functions"},
        {__LINE__, [] { View<const f32, 1> x(0); (void)x[coord(0), shape(2)]; },          "load: only inside a kernel (kernel(name, lambda)); outside, use the eager tile functions"},
        {__LINE__, [] { View<f32, 1> y(0); y(coord(0), shape(2)).store(zeros<f32>(shape(2))); }, "store: only inside a kernel (kernel(name, lambda)); outside, use the eager tile functions"},
    });
}
