// Precision::standard on the cpu target. Long f32/f64 sums run in vector lanes
// and a tree (docs/semantics.md "Orders" lets standard precision reassociate),
// so they are checked against the exact sum with the error bound of any
// summation order, for determinism, and for NaN and infinity; in exact
// precision the same kernels must write the interpreter's bytes. Max, min and
// integer sums take order-free paths in both precisions and must always write
// the interpreter's bytes.
#include <cmath>
#include <cstring>

#include "cpu_diff.h"
#include "cpu_source.h"

using namespace kiln;
using cpu_diff::Buffer;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;
using cpu_diff::run_on;

namespace {

constexpr std::int64_t Rows = 6, Cols = 1000;  // 1000: not a multiple of the 64 f32 / 32 f64 lanes

// Row sums over the innermost dim, and over a trailing pair of dims (10 x 100).
template <class T> Kernel sums_kernel() {
    return kernel("long_sums_" + std::string(kind_name(kind_of<T>)), [](View<const T, 2> x, View<T, 1> rows, View<T, 1> pairs) {
        auto r = axis("r", Rows), c = axis("c", Cols), p = axis("p", 10), q = axis("q", 100);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0), shape(r, c)];
            rows(coord(0), shape(r)).store(reduce(v, c, add));
            pairs(coord(0), shape(r)).store(reduce(reshape(v, shape(r, p, q)), shape(p, q), add));
        }
    });
}

double element(const Buffer& b, std::int64_t e) {
    detail::Arg a = b.arg;
    a.data = const_cast<unsigned char*>(b.bytes.data());
    return ref::read_float(a, e);
}

template <class T> void sums_within_bound(double unit_roundoff) {
    const Kind k = kind_of<T>;
    auto kern = sums_kernel<T>();
    std::vector<Buffer> bufs = {input(k, {Rows, Cols}, 71, -1, 1), output(k, {Rows}), output(k, {Rows})};
    auto got = run_on(kern, cpu(), bufs, {.precision = Precision::standard});
    auto again = run_on(kern, cpu(), bufs, {.precision = Precision::standard});
    // Any order of n - 1 additions is within gamma = (n - 1) u / (1 - (n - 1) u)
    // of the exact sum, relative to the sum of magnitudes (Higham, ch. 4).
    const double n1 = Cols - 1, gamma = n1 * unit_roundoff / (1 - n1 * unit_roundoff);
    for (std::int64_t r = 0; r < Rows; ++r) {
        long double exact = 0, magnitude = 0;
        for (std::int64_t c = 0; c < Cols; ++c) {
            const long double v = element(bufs[0], r * Cols + c);
            exact += v, magnitude += std::fabs(v);
        }
        for (int out : {1, 2}) {
            const double sum = element(got[out], r);
            EXPECT_LE(std::fabs(sum - static_cast<double>(exact)), gamma * static_cast<double>(magnitude) + unit_roundoff * std::fabs(sum))
                << kind_name(k) << " row " << r << " output " << out;
        }
    }
    for (int out : {1, 2}) EXPECT_TRUE(got[out].bytes == again[out].bytes) << "standard-precision sums must be deterministic";
    expect_same(kern, bufs, {.precision = Precision::exact});
    // The paths under test: lanes in standard precision only (an f32 line stored
    // contiguously is summed by kiln_cpu::lane_sum64, in the same lanes).
    const std::string lanes = k == Kind::F32 ? "kiln_cpu::lane_sum64(" : " acc[" + std::to_string(256 / kind_bytes(k)) + "];";
    EXPECT_NE(cpu_diff::cpu_source(kern, bufs, {.precision = Precision::standard}).find(lanes), std::string::npos);
    EXPECT_EQ(cpu_diff::cpu_source(kern, bufs, {.precision = Precision::exact}).find(lanes), std::string::npos);
}

TEST(CpuStandardPrecision, F32SumsWithinTheReassociationBound) { sums_within_bound<f32>(0x1p-24); }
TEST(CpuStandardPrecision, F64SumsWithinTheReassociationBound) { sums_within_bound<f64>(0x1p-53); }

// NaN anywhere gives NaN (canonical in f32, as round_f32 makes it), +inf alone
// gives +inf, both infinities give NaN: in lanes as in order.
TEST(CpuStandardPrecision, SumsOfSpecialValues) {
    auto kern = sums_kernel<f32>();
    auto x = input(Kind::F32, {Rows, Cols}, 72, -1, 1);
    auto set = [&](std::int64_t r, std::int64_t c, double v) { ref::write_float(x.arg, r * Cols + c, v); };
    set(1, 517, std::nan(""));
    set(2, 3, -std::nan(""));
    set(3, 999, INFINITY);
    set(4, 64, INFINITY), set(4, 65, -INFINITY);
    set(5, 0, -INFINITY);
    std::vector<Buffer> bufs = {x, output(Kind::F32, {Rows}), output(Kind::F32, {Rows})};
    auto got = run_on(kern, cpu(), bufs, {.precision = Precision::standard});
    auto want = run_on(kern, interp(), bufs, {.precision = Precision::exact});
    for (std::int64_t r = 0; r < Rows; ++r)
        for (int out : {1, 2}) {
            const double g = element(got[out], r), w = element(want[out], r);
            EXPECT_EQ(std::isnan(g), std::isnan(w)) << "row " << r;
            if (std::isinf(w)) EXPECT_EQ(g, w) << "row " << r;
            if (std::isnan(g)) {
                std::uint32_t bits;
                std::memcpy(&bits, &got[out].bytes[static_cast<std::size_t>(r) * 4], 4);
                EXPECT_EQ(bits, 0x7fc00000u) << "row " << r;
            }
        }
}

// Max and min over long rows run as lanes of order keys; a row with a NaN is
// folded again in order. The interpreter's bytes in both precisions, for signed
// zeros (max(-0, +0) = +0 either way round), infinities and NaNs of both signs.
template <class T> void extremes(Kind k) {
    auto kern = kernel("long_extremes_" + std::string(kind_name(k)), [](View<const T, 2> x, View<T, 1> hi, View<T, 1> lo) {
        auto r = axis("r", 8), c = axis("c", 300);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0), shape(r, c)];
            hi(coord(0), shape(r)).store(reduce(v, c, maximum));
            lo(coord(0), shape(r)).store(reduce(v, c, minimum));
        }
    });
    auto x = input(k, {8, 300}, 73, -5, 5);
    auto set = [&](std::int64_t r, std::int64_t c, double v) { ref::write_float(x.arg, r * 300 + c, v); };
    for (std::int64_t c = 0; c < 300; ++c) set(1, c, c == 150 ? 0.0 : -0.0), set(2, c, -0.0), set(3, c, c % 2 ? 0.0 : -0.0);
    set(4, 150, std::nan("")), set(5, 7, -std::nan("")), set(5, 290, std::nan(""));
    set(6, 0, INFINITY), set(6, 299, -INFINITY);
    set(7, 10, -INFINITY);
    for (auto precision : {Precision::standard, Precision::exact}) {
        expect_same(kern, {x, output(k, {8}), output(k, {8})}, {.precision = precision});
        EXPECT_NE(cpu_diff::cpu_source(kern, {x, output(k, {8}), output(k, {8})}, {.precision = precision}).find("kiln_cpu::order_key("),
                  std::string::npos);
    }
}

TEST(CpuStandardPrecision, MaxMinF32) { extremes<f32>(Kind::F32); }
TEST(CpuStandardPrecision, MaxMinF64) { extremes<f64>(Kind::F64); }
TEST(CpuStandardPrecision, MaxMinBF16) { extremes<bf16>(Kind::BF16); }

// Integer sums over long rows wrap; any order gives the interpreter's sum.
template <class T> void integer_sums(Kind k) {
    auto kern = kernel("long_int_sums_" + std::string(kind_name(k)), [](View<const T, 2> x, View<T, 1> rows, View<T, 1> cols) {
        auto r = axis("r", 5), c = axis("c", 700);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0), shape(r, c)];
            rows(coord(0), shape(r)).store(reduce(v, c, add));
            cols(coord(0), shape(c)).store(reduce(v, r, add));
        }
    });
    for (auto precision : {Precision::standard, Precision::exact})
        expect_same(kern, {input(k, {5, 700}, 74, -120, 120, true), output(k, {5}), output(k, {700})}, {.precision = precision});
}

TEST(CpuStandardPrecision, IntegerSumsI8) { integer_sums<i8>(Kind::I8); }
TEST(CpuStandardPrecision, IntegerSumsI32) { integer_sums<i32>(Kind::I32); }
TEST(CpuStandardPrecision, IntegerSumsI64) { integer_sums<i64>(Kind::I64); }

}  // namespace
