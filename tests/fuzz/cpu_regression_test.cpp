// Programs the interp vs cpu fuzz campaigns found differing, replayed from their
// seeds (docs/fuzzing.md). 80239140 (session 22, bench/results/fuzz-cpu-20261204.md):
// a serial loop's carried f32 row initialised from cast<f32>(iota < 6) came out as
// eight ones on an AVX-512 host. GCC's x86 backend loaded the folded constant
// {1, 1, 1, 1, 1, 1, 0, 0} as 1.0 broadcast to every lane; the cpu target's GCC
// flags now turn that path off (targets/common/host_compiler.cpp: kGnuFlags).
#include <gtest/gtest.h>

#include <string>

#include "fuzz/differential.h"
#include "fuzz/minimize.h"
#include "fuzz/recipe.h"

using namespace kiln;
using namespace kiln::fuzz;

namespace {

// The program `seed` as `kiln fuzz --minimize` shrank it (the edits), then whole: both
// identical on interp and cpu in exact precision.
void replay(std::uint64_t seed, const std::vector<std::string>& edits) {
    const Result shrunk = check_recipe(apply_edits(make_recipe(seed), edits), {interp(), cpu()}, {.precision = Precision::exact});
    EXPECT_EQ(shrunk.verdict, Verdict::same) << shrunk.detail;
    const Result whole = check_program(seed, {interp(), cpu()}, {.precision = Precision::exact});
    EXPECT_EQ(whole.verdict, Verdict::same) << whole.detail;
}

}  // namespace

TEST(CpuFuzzRegression, Seed80239140MaskRowIsNotBroadcastFromItsFirstWord) {
    // It differs in full too.
    replay(80239140, {"view-:0", "scalar-:0", "trips=1", "serial", "grid=1:0", "axis/2:0", "axis/2:0", "extents/2:3", "extents/2:3",
                      "extents/2:2", "extents/2:1", "extents/2:0", "plain:3", "plain:1", "ops_in_loop-1", "axis/2:0"});
}

// 81640822 (session 30, bench/results/fuzz-cpu-20261205-s30.md): an i8 output 1
// where the interpreter gives 4, in exact precision. Per instance the program loads
// x, stores `69 < (x != 0 ? x : -1)` as f16, and squares (i64)(x != 0 ? pow(x, x) :
// 2 pow(x, x)) through a 1 x 1 mma; for x = 0 that is 2^2. GCC 12.2 left the first
// select's range "not 0" on x itself and then took the second select to be always
// its first arm; the cpu target's GCC flags now leave VRP out
// (targets/common/host_compiler.cpp: kGnuFlags).
TEST(CpuFuzzRegression, Seed81640822ASelectOnXIsNotAssumedNonzeroFromAnother) {
    // It differs in full too.
    replay(81640822, {"trips=1", "serial", "axis/2:1", "axis/2:1", "axis/2:1", "axis/2:1", "axis/2:1", "axis/2:0", "axis/2:0", "plain:1",
                      "extents/2:1", "grid-:1", "extents/2:2", "extents/2:1", "extents/2:2", "extents/2:0"});
}
