// Kernels the differential fuzzer found the cpu target getting wrong
// (bench/results/fuzz-10000-05a48f0.md), reduced to the pattern and compared byte for
// byte with the interpreter in both precisions.
#include <cmath>

#include "cpu_diff.h"

using namespace kiln;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;

namespace {

// Seed 301: an integer reduce_add after a permute and an argmax. GCC 12.2 at
// -O2 -march=native vectorised the emitted `(long long)((unsigned long long)acc
// + (unsigned long long)x)` fold loop wrongly (3 instead of 7 for this input).
TEST(CpuFuzzRegression, Seed301IntegerSumAfterPermuteAndArgmax) {
    auto kern = kernel("argmax_then_sum", [](View<const f64, 3> x, View<i64, 1> y) {
        auto j = axis("j", 17), i = axis("i", 2), k = axis("k", 8);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0, 0), shape(j, i, k)];  // mostly bounds::zero padding
            auto best = argmax(permute(v, {2, 0, 1}), k);  // i64 [j, i]
            y(coord(0), shape(axis("one", 1))).store(reduce(reduce(best, j, add), i, add));
        }
    });
    // The fuzzer's launch data, which the interpreter sums to 7.
    const double data[] = {-3, 9e263, -3, -3, -1, -2, -3, 0, -2, 2e-308, 3, -2};
    auto x = input(Kind::F64, {3, 2, 2}, 0);
    for (std::int64_t e = 0; e < 12; ++e) ref::write_float(x.arg, e, data[e]);
    for (auto precision : {Precision::standard, Precision::exact}) {
        expect_same(kern, {x, output(Kind::I64, {1})}, {.precision = precision});
        auto got = cpu_diff::run_on(kern, cpu(), {x, output(Kind::I64, {1})}, {.precision = precision});
        got[1].arg.data = got[1].bytes.data();
        EXPECT_EQ(ref::read_int(got[1].arg, 0), 7);  // by hand: the argmax indices along k sum to 7
    }
}

// The same fold on random data, for every integer kind and both a reduced
// innermost dim (one accumulator per output) and a reduced outer dim (outputs
// folded side by side).
template <class T> void integer_sums_after_argmax(Kind kind) {
    auto kern = kernel("int_sums_" + std::string(kind_name(kind)), [](View<const T, 3> x, View<T, 1> rows, View<T, 1> cols, View<T, 1> all) {
        auto j = axis("j", 17), i = axis("i", 6), k = axis("k", 8);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0, 0), shape(j, i, k)];
            auto best = cast<T>(argmax(permute(v, {2, 0, 1}), k)) * reduce(v, k, maximum);  // [j, i], wrapping
            rows(coord(0), shape(i)).store(reduce(best, j, add));
            cols(coord(0), shape(j)).store(reduce(best, i, add));
            all(coord(0), shape(axis("one", 1))).store(reduce(best, shape(j, i), add));
        }
    });
    for (auto precision : {Precision::standard, Precision::exact})
        expect_same(kern, {input(kind, {17, 6, 8}, 7, -120, 120, true), output(kind, {6}), output(kind, {17}), output(kind, {1})},
                    {.precision = precision});
}

TEST(CpuFuzzRegression, IntegerSumsAfterArgmaxI8) { integer_sums_after_argmax<i8>(Kind::I8); }
TEST(CpuFuzzRegression, IntegerSumsAfterArgmaxI32) { integer_sums_after_argmax<i32>(Kind::I32); }
TEST(CpuFuzzRegression, IntegerSumsAfterArgmaxI64) { integer_sums_after_argmax<i64>(Kind::I64); }

// Seed 4504: mma(v, v, acc) with an f16/bf16 v widens its operands into float
// buffers; one tile as both operands once declared the same buffer twice.
template <class T> void mma_of_a_tile_with_itself(Kind kind) {
    auto kern = kernel("mma_self_" + std::string(kind_name(kind)), [](View<const T, 2> x, View<f32, 1> rows, View<f32, 1> total) {
        auto m = axis("m", 5), k = axis("k", 7);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0), shape(m, k)];
            rows(coord(0), shape(m)).store(mma(v, v, zeros<f32>(shape(m))));  // each row's sum of squares: contracts k
            total(coord(0), shape(axis("one", 1))).store(mma(v, v, full<f32>(shape(), 0.5f)));  // contracts m and k
        }
    });
    for (auto precision : {Precision::standard, Precision::exact})
        expect_same(kern, {input(kind, {5, 7}, 8, -3, 3, true), output(Kind::F32, {5}), output(Kind::F32, {1})}, {.precision = precision});
}

TEST(CpuFuzzRegression, MmaOfATileWithItselfF16) { mma_of_a_tile_with_itself<f16>(Kind::F16); }
TEST(CpuFuzzRegression, MmaOfATileWithItselfBF16) { mma_of_a_tile_with_itself<bf16>(Kind::BF16); }

}  // namespace

// Seed 58008371: a sum of seven products 0.0 * ite(c, -2.3e9, x), c true, is -0.0 (each
// product is -0.0). GCC 12 at -O2 with the kernels' -fno-trapping-math made it +0.0;
// exact kernels now keep trapping math (emit_cpp.cpp). On a host with AVX-512 the
// loop vectoriser made it +0.0 again; exact kernels are no longer loop-vectorised. The load is zero-padded past
// its one-element view, as in the fuzzer's program.
TEST(CpuFuzzRegression, Seed58008371SumOfNegativeZeroProducts) {
    auto kern = kernel("signed_zero_sum", [](View<const f64, 2> x, View<f64, 1> y, View<f16, 1> h) {
        auto r = axis("r", 1), k = axis("k", 7), one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0), shape(r, k)];
            auto chosen = ite(cast<bool>(reduce(v, k, add)), -2283959252.6454935, v);  // [r, k]
            auto s = reduce(0.0 * chosen, k, add);                                     // [r]
            y(coord(0), shape(one)).store(s);
            h(coord(0), shape(one)).store(cast<f16>(s));
        }
    });
    auto x = input(Kind::F64, {1, 1}, 0);
    ref::write_float(x.arg, 0, 1.0);
    expect_same(kern, {x, output(Kind::F64, {1}), output(Kind::F16, {1})}, {.precision = Precision::exact});
    auto got = cpu_diff::run_on(kern, cpu(), {x, output(Kind::F64, {1}), output(Kind::F16, {1})}, {.precision = Precision::exact});
    got[1].arg.data = got[1].bytes.data();
    got[2].arg.data = got[2].bytes.data();
    EXPECT_TRUE(std::signbit(ref::read_float(got[1].arg, 0))) << "by hand: -0.0 + -0.0 + ... = -0.0";
    EXPECT_TRUE(std::signbit(ref::read_float(got[2].arg, 0)));
}

// Seed 50000436: a maximum over every dim of a 3-D tile read in place from a
// larger (strided) view took the vector-lanes path, whose step at flat position
// "r + l" was decomposed into coordinates without parentheses (r + l / 80 % 3):
// reads outside the tile, a wrong maximum (an i64 cast of it stored INT64_MAX
// where the interpreter stored 0) or a segfault in the generated kernel.
TEST(CpuFuzzRegression, Seed50000436FullReductionOfAStridedTile) {
    auto kern = kernel("full_reduce_strided", [](View<const f32, 3> x, View<f32, 1> hi, View<f32, 1> lo) {
        auto i = axis("i", 3), k = axis("k", 5), j = axis("j", 16), one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            auto v = x[coord(1, 1, 2), shape(i, k, j)];  // inside the view: read in place, strides 120 and 20
            hi(coord(0), shape(one)).store(reduce(v, shape(i, k, j), maximum));
            lo(coord(0), shape(one)).store(reduce(v, shape(i, k, j), minimum));
        }
    });
    for (auto precision : {Precision::standard, Precision::exact})
        expect_same(kern, {input(Kind::F32, {4, 6, 20}, 11, -100, 100, false), output(Kind::F32, {1}), output(Kind::F32, {1})},
                    {.precision = precision});
}

// Seeds 50002848, 50003330, 50003803: a float cast to an integer and back. With
// -fno-trapping-math GCC folded (double)(long long)x into trunc(x), which keeps the
// sign of a zero result: trunc(-0.5) is -0.0 where the integer 0 converts to +0.0.
TEST(CpuFuzzRegression, Seed50003803IntegerRoundTripGivesPlusZero) {
    auto kern = kernel("int_round_trip", [](View<const f64, 1> x, View<f64, 1> y, View<f32, 1> z) {
        auto i = axis("i", 8);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            auto v = x[coord(0), shape(i)];
            y(coord(0), shape(i)).store(cast<f64>(cast<i64>(v)));
            z(coord(0), shape(i)).store(cast<f32>(cast<i32>(v)));
        }
    });
    const double data[] = {-0.5, -0.25, -0.999, 0.5, -1.5, 2.75, -0.0, -7.0};
    const double want[] = {0.0, 0.0, 0.0, 0.0, -1.0, 2.0, 0.0, -7.0};  // by hand: truncation toward zero, then +0.0 for 0
    auto x = input(Kind::F64, {8}, 0);
    for (std::int64_t e = 0; e < 8; ++e) ref::write_float(x.arg, e, data[e]);
    for (auto precision : {Precision::standard, Precision::exact}) {
        expect_same(kern, {x, output(Kind::F64, {8}), output(Kind::F32, {8})}, {.precision = precision});
        auto got = cpu_diff::run_on(kern, cpu(), {x, output(Kind::F64, {8}), output(Kind::F32, {8})}, {.precision = precision});
        got[1].arg.data = got[1].bytes.data();
        got[2].arg.data = got[2].bytes.data();
        for (std::int64_t e = 0; e < 8; ++e) {
            const double y = ref::read_float(got[1].arg, e), z = ref::read_float(got[2].arg, e);
            EXPECT_EQ(y, want[e]) << e;
            EXPECT_FALSE(std::signbit(y) && y == 0) << "element " << e << " is -0.0";
            EXPECT_FALSE(std::signbit(z) && z == 0) << "element " << e << " (f32) is -0.0";
        }
    }
}
