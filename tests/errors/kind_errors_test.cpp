// Must-fail programs: element kinds. Mixing kinds is a C++ compile error
// (tests/compile_fail/); these are the kind rules only known once the operation
// runs or is traced: bool tiles in arithmetic, kinds an operation has no meaning
// for, and mma kind pairs with no contraction rule.
#include "must_fail.h"

using namespace kiln;
using must_fail::trace;

TEST(KindErrors, BoolTiles) {
    auto m = axis("m", 3);
    const auto b = zeros<bool>(shape(m));
    must_fail::expect({
        {__LINE__, [&] { (void)(b + b); },                                       "add: arithmetic on bool tiles; convert with cast<T>() first"},
        {__LINE__, [&] { (void)(b * true); },                                    "mul: arithmetic on bool tiles; convert with cast<T>() first"},
        {__LINE__, [&] { (void)(-b); },                                          "neg: cannot negate a bool tile (use !)"},
        {__LINE__, [&] { (void)reduce(b, m, add); },                             "reduce: cannot reduce a bool tile; convert with cast<T>() first"},
        {__LINE__, [&] { (void)scan(b, m, maximum); },                           "scan: cannot scan a bool tile; convert with cast<T>() first"},
        {__LINE__, [&] { (void)sort(b, m); },                                    "sort: cannot sort a bool tile"},
        {__LINE__, [&] { (void)topk(b, m, 1); },                                 "topk: cannot rank a bool tile"},
        {__LINE__, [] { (void)dot(zeros<bool>(2, 2), zeros<bool>(2, 2)); },      "dot: cannot multiply bool tiles"},
        {__LINE__, [&] { (void)mma(b, b, zeros<bool>(shape(2))); },              "mma: unsupported operand/accumulator kinds bool -> bool"},
        {__LINE__, [] { (void)sum(zeros<bool>(2, 2)); },                         "reduce: cannot reduce a bool tile; convert with cast<T>() first"},
    });
}

TEST(KindErrors, Contractions) {
    auto m = axis("m", 2), n = axis("n", 2), k = axis("k", 2);
    must_fail::expect({
        // allow_tf32 lets an f32 mma round its inputs to tf32; on other kinds it can never take effect.
        {__LINE__, [&] { (void)mma(zeros<f16>(shape(m, k)), zeros<f16>(shape(k, n)), zeros<f32>(shape(m, n)), {.allow_tf32 = true}); },
         "mma: allow_tf32 applies to f32 operands; these are f16"},
        {__LINE__, [&] { (void)mma(zeros<i8>(shape(m, k)), zeros<i8>(shape(k, n)), zeros<i32>(shape(m, n)), {.allow_tf32 = true}); },
         "mma: allow_tf32 applies to f32 operands; these are i8"},
    });
}

// Inside kernels: the same rules, named at the kernel's line.
TEST(KindErrors, Traced) {
    auto m = axis("m", 4);
    must_fail::expect({
        {__LINE__, [&] { trace(kernel("k", [&](View<bool, 1> y) { (void)(y[coord(0), shape(m)] - y[coord(0), shape(m)]); })); },
         "sub: arithmetic on bool tiles; convert with cast<T>() first"},
        {__LINE__, [&] { trace(kernel("k", [&](View<bool, 1> y) { (void)argmax(cast<i32>(y[coord(0), shape(m)]), m), (void)reduce(y[coord(0), shape(m)], m, maximum); })); },
         "reduce (maximum): cannot reduce a bool tile; convert with cast<T>() first"},
        {__LINE__, [&] { trace(kernel("k", [&](View<const f32, 1> x, View<f32, 1> y) { y(coord(0), shape(m)).store(x(coord(0), shape(m)).load(zeros<f32>(shape(m)))); })); },
         "load: the fallback must be a scalar of the view's kind"},
    });
}
