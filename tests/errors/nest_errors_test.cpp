// Must-fail programs: loop nests. One parallel nest (the grid), outermost; serial
// and pipeline nests opened from a nest while its body runs; stages only in
// pipelines; stores only inside the grid.
#include "must_fail.h"

using namespace kiln;
using must_fail::trace;

TEST(NestErrors, Grid) {
    auto a = axis("a", 2), b = axis("b", 2);
    must_fail::expect({
        {__LINE__, [&] { for (auto& n : parallel(shape(a))) (void)n; },                  "parallel: only inside a kernel (kernel(name, lambda))"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(Shape{})) (void)n; })); },
         "parallel: the domain needs at least one axis"},
        {__LINE__ + 1, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& x : parallel(shape(a)))
                                                                  for (auto& y : parallel(shape(b))) (void)x, (void)y; })); },
         "parallel: the grid must be the outermost nest; use nest.serial or nest.pipeline inside it"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& x : parallel(shape(a))) (void)x; for (auto& y : parallel(shape(b))) (void)y; })); },
         "parallel: a kernel has one parallel nest (its grid)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1> y) { y(coord(0), shape(2)).store(zeros<f32>(shape(2))); for (auto& n : parallel(shape(a))) (void)n; })); },
         "store: a store outside the parallel nest would be performed by every instance; move it inside"},
    });
}

TEST(NestErrors, Loops) {
    auto g = axis("g", 2), s = axis("s", 3), t = axis("t", 2);
    must_fail::expect({
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) for (auto& i : n.serial(Shape{})) (void)i; })); },
         "serial: the domain needs at least one axis"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) for (auto& i : n.pipeline(shape(s), {.window = 0})) (void)i; })); },
         "pipeline: window and interval must be positive"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) for (auto& i : n.pipeline(shape(s), {.interval = 0})) (void)i; })); },
         "pipeline: window and interval must be positive"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) for (auto& i : n.serial(shape(s))) i.stage("load"); })); },
         "stage: stages belong to pipeline nests"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) n.stage("load"); })); },
         "stage: stages belong to pipeline nests"},
        // A Nest kept past its loop's end: its index and its loops are gone.
        {__LINE__ + 2, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) {
                                                                   std::optional<Nest> kept; for (auto& i : n.serial(shape(s))) kept = i;
                                                                   (void)kept->index(); } })); },
         "index: the nest's loop has ended (or the kernel is not being traced)"},
        {__LINE__ + 2, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) {
                                                                   std::optional<Nest> kept; for (auto& i : n.pipeline(shape(s))) kept = i;
                                                                   for (auto& j : kept->serial(shape(t))) (void)j; } })); },
         "serial: the parent nest's loop has already ended"},
        {__LINE__ + 2, [&] { trace(kernel("k", [&](View<f32, 1>) { for (auto& n : parallel(shape(g))) {
                                                                   std::optional<Nest> kept; for (auto& i : n.pipeline(shape(s))) kept = i;
                                                                   kept->stage("late"); } })); },
         "stage: only inside the nest's loop body"},
    });
}

// A kernel's nests as a whole.
TEST(NestErrors, Kernels) {
    must_fail::expect({
        {__LINE__, [] { Kernel k; k.launch(interp()); },                                 "launch: this Kernel is empty (default-constructed or moved from); assign it a kernel(name, lambda) first"},
        {__LINE__, [] { Kernel k; (void)k.name(); },                                     "kernel: this Kernel is empty (default-constructed or moved from); assign it a kernel(name, lambda) first"},
        {__LINE__, [] { launch(-1, [](std::int64_t) {}); },                              "launch: negative instance count -1"},
        {__LINE__, [] { launch(4, nullptr); },                                           "launch: no kernel function"},
    });
}
