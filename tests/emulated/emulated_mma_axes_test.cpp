// A contraction over two axes (k and j) whose operands hold them in other orders
// than the output's (a [i, k, j], b [j, l, k], acc [l, i]), f64, in the pinned
// order and reassociated, on the emulated cuda target against the interpreter:
// the form of the ordered f64 mma in the fuzz program 7000248 (docs/fuzzing.md),
// which this alone does not reproduce.
#include <gtest/gtest.h>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "tests/unit/cpu_diff.h"

using namespace kiln;
using emulated::expect_interp_bytes;

TEST(EmulatedMmaAxes, TwoContractedAxesPermuted) {
    for (bool reassoc : {false, true}) {
        auto k = kernel(reassoc ? "mma_axes_r" : "mma_axes_o", [reassoc](View<const f64, 3> A, View<const f64, 3> B, View<const f64, 2> C, View<f64, 2> out) {
            auto i = axis("i", 13), kk = axis("k", 1), j = axis("j", 2), l = axis("l", 2);
            auto a = A[coord(0, 0, 0), shape(i, kk, j)];
            auto b = B[coord(0, 0, 0), shape(j, l, kk)];
            auto c = C[coord(0, 0), shape(l, i)];
            out(coord(0, 0), shape(l, i)).store(mma(a, b, c, MmaOptions{.allow_reassociation = reassoc}));
        });
        for (auto precision : {Precision::exact, Precision::standard})
            expect_interp_bytes(k, {cpu_diff::input(Kind::F64, {13, 1, 2}, 1, -4, 4), cpu_diff::input(Kind::F64, {2, 2, 1}, 2, -4, 4),
                                    cpu_diff::input(Kind::F64, {2, 13}, 3, -4, 4), cpu_diff::output(Kind::F64, {2, 13})},
                                precision);
    }
}
