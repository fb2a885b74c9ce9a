// Must-fail programs: state. Loop-carried tiles (inferred from assignment) keep
// their shape; a tile belongs to the trace it was made in; grid instances are
// independent, so nothing is carried across them. And explicit memory<T>
// layouts, which must be provably total and injective.
#include "must_fail.h"

using namespace kiln;
using must_fail::trace;

TEST(CarriedStateErrors, Loops) {
    auto g = axis("g", 2), s = axis("s", 2), m = axis("m", 2), m3 = axis("m3", 3);
    must_fail::expect({
        {__LINE__ + 2, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) {
                                                                   auto acc = zeros<f32>(shape(m));
                                                                   for (auto& i : n.serial(shape(s))) (void)i, acc = zeros<f32>(shape(m3)); } })); },
         "loop: loop-carried value changes shape or kind: 2 (m) before the loop, 3 (m3) after one iteration"},
        {__LINE__ + 2, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) {
                                                                   auto acc = zeros<f32>(shape(m));
                                                                   for (auto& i : n.pipeline(shape(s))) for (auto& j : i.serial(shape(s)))
                                                                       (void)j, acc = reshape(acc, shape(1, 2)); } })); },
         "loop: loop-carried value changes shape or kind: 2 (m) before the loop, 1x2 after one iteration"},
        // Instances of the grid run independently, in any order: nothing flows between them.
        {__LINE__ + 2, [&] { trace(kernel("k", [&](View<f32, 1> y) { auto total = zeros<f32>(shape(1));
                                                                     for (auto& n : parallel(shape(g))) {
                                                                         total = total + 1.0f; y(coord(n.index()), shape(1)).store(total); } })); },
         "parallel: a value assigned inside the parallel nest cannot be carried across instances (instances are independent)"},
    });
}

TEST(CarriedStateErrors, Traces) {
    auto g = axis("g", 2), m = axis("m", 2);
    must_fail::expect({
        {__LINE__, [&] { auto outer = zeros<f32>(shape(m)); trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) outer = outer + 1.0f, (void)n; })); },
         "assign: a tile captured from outside the kernel cannot be assigned inside it (capture it by value, or declare the variable inside the kernel)"},
        // A tile made while tracing one kernel, used after (or by another kernel).
        {__LINE__, [&] { std::optional<Tile<f32>> leaked; trace(kernel("a", [&](View<f32, 1> y) { leaked = y[coord(0), shape(m)]; })); (void)(*leaked + 1.0f); },
         "add: a traced value was used outside its kernel"},
        {__LINE__, [&] { std::optional<Tile<f32>> leaked; trace(kernel("a", [&](View<f32, 1> y) { leaked = y[coord(0), shape(m)]; })); trace(kernel("b", [&](View<f32, 1>) { (void)exp(*leaked); })); },
         "exp: a traced value escaped from another kernel's trace"},
        {__LINE__, [&] { std::optional<Tile<f32>> leaked; trace(kernel("a", [&](View<f32, 1> y) { leaked = y[coord(0), shape(m)]; })); (void)leaked->to_vector(); },
         "to_vector: the value is traced (inside a kernel) and has no data yet"},
    });
}

TEST(LayoutErrors, Memory) {
    auto m = axis("m", 2), k = axis("k", 2), n = axis("n", 2), big = axis("big", 2048);
    must_fail::expect({
        {__LINE__, [&] { (void)memory<f32>(layout(shape(m, k), stride(1, 1))); },                "memory: layout is not injective: elements (0, 1) and (1, 0) share offset 1"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(m, k), stride(2, 2))); },                "memory: layout is not injective: elements (0, 1) and (1, 0) share offset 2"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(m, k), stride(0, 1))); },                "memory: layout is not injective: elements (0, 0) and (1, 0) share offset 0"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(m, k), stride(1))); },                   "memory: layout has 1 strides for a rank-2 shape"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(m, k), stride(2, 1, 4))); },             "memory: layout has 3 strides for a rank-2 shape"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(m, k), stride(-2, 1))); },               "memory: negative stride -2 in layout"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(0, 2), stride(2, 1))); },                "memory: non-positive shape: 0x2"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(big, big), stride(2047, 1))); },         "memory: cannot prove the layout injective: 4194304 points exceed the enumeration budget of 1048576"},
        {__LINE__, [&] { (void)memory<f32>(layout(shape(m, k), stride(std::int64_t{1} << 62, std::int64_t{1} << 62))); },
         "memory: the layout spans more than 2^40 elements"},
        {__LINE__, [&] { memory<f32>(layout(shape(m, k), stride(2, 1))).store(zeros<f32>(shape(k, 3))); },
         "memory store: shape mismatch: 2x3 (k, _) vs the memory's 2x2 (m, k)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 2> y) { auto mem = memory<f32>(layout(shape(m, k), stride(1, 2))); mem.store(y[coord(0, 0), shape(m, n)]); })); },
         "memory store: shape mismatch: 2x2 (m, n) vs the memory's 2x2 (m, k)"},
    });
}
