// Scans along a line on the cpu target. Integer scans (wrapping) and max/min
// scans give the same bits in any order, so they run in vector lanes in both
// precisions and must write the interpreter's bytes (a line holding a NaN is
// scanned again in order). Float sums keep the pinned order in exact precision
// (the interpreter's bytes) and run in lanes in standard precision, where each
// prefix must lie within the error bound of any order of its additions and be
// deterministic. Lines of every length around the vector width, scans along
// inner and outer dims, ragged tiles, specials.
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

// Scans of a [2 x cols] tile along its columns (the innermost dim), with add,
// max and min, and along its rows (the outer dim) with add.
template <class T> Kernel scans(std::int64_t cols) {
    return kernel("scans_" + std::string(kind_name(kind_of<T>)) + "_" + std::to_string(cols),
                  [=](View<const T, 2> x, View<T, 2> sum, View<T, 2> hi, View<T, 2> lo, View<T, 2> down) {
                      auto r = axis("r", 2), c = axis("c", cols);
                      for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 2))))) {
                          auto o = coord(nest.index() * 2, 0);
                          auto v = x[o, shape(r, c)];
                          sum(o, shape(r, c)).store(scan(v, c, add));
                          hi(o, shape(r, c)).store(scan(v, c, maximum));
                          lo(o, shape(r, c)).store(scan(v, c, minimum));
                          down(o, shape(r, c)).store(scan(v, r, add));
                      }
                  });
}

std::vector<Buffer> buffers(Kind k, std::int64_t rows, std::int64_t view_cols, unsigned seed, bool specials, double lo = -4, double hi = 4) {
    return {input(k, {rows, view_cols}, seed, lo, hi, specials), output(k, {rows, view_cols}), output(k, {rows, view_cols}),
            output(k, {rows, view_cols}), output(k, {rows, view_cols})};
}

// Lengths below, at and around the lane counts (16 f32/i32, 8 f64/i64, 64 i8) and long.
const std::int64_t kLengths[] = {1, 7, 8, 15, 16, 17, 63, 64, 65, 200, 1000};

template <class T> void exact_everywhere(double lo, double hi) {
    const Kind k = kind_of<T>;
    for (std::int64_t n : kLengths)
        for (bool specials : {false, true}) {
            auto kern = scans<T>(n);
            auto bufs = buffers(k, 5, n, static_cast<unsigned>(n), specials, lo, hi);
            expect_same(kern, bufs, {.precision = Precision::exact});
            if (!is_float(k)) expect_same(kern, bufs, {.precision = Precision::standard});  // no order can show
        }
}

TEST(CpuScan, I32InLanesBitExact) { exact_everywhere<i32>(-1e9, 1e9); }  // sums wrap
TEST(CpuScan, I64InLanesBitExact) { exact_everywhere<i64>(-1e18, 1e18); }
TEST(CpuScan, I8InLanesBitExact) { exact_everywhere<i8>(-128, 128); }
TEST(CpuScan, F32ExactPrecision) { exact_everywhere<f32>(-4, 4); }
TEST(CpuScan, F64ExactPrecision) { exact_everywhere<f64>(-4, 4); }
TEST(CpuScan, F16AndBF16ExactPrecision) {
    exact_everywhere<f16>(-4, 4);
    exact_everywhere<bf16>(-4, 4);
}

// A tile wider than the view (zero padding scanned too) and one narrower.
TEST(CpuScan, RaggedTiles) {
    for (std::int64_t view_cols : {37, 100}) {
        auto bufs = buffers(Kind::F32, 3, view_cols, 5, true);
        expect_same(scans<f32>(64), bufs, {.precision = Precision::exact});
        auto ibufs = buffers(Kind::I32, 3, view_cols, 6, true, -1e9, 1e9);
        expect_same(scans<i32>(64), ibufs, {.precision = Precision::standard});
    }
}

double element(const Buffer& b, std::int64_t e) {
    detail::Arg a = b.arg;
    a.data = const_cast<unsigned char*>(b.bytes.data());
    return ref::read_float(a, e);
}

// Standard precision: max and min as exact as ever; each prefix sum within
// gamma_j sum |x| of the exact one; the same bits run to run.
template <class T> void standard_sums(double unit_roundoff) {
    const Kind k = kind_of<T>;
    const std::int64_t rows = 4;
    for (std::int64_t n : kLengths) {
        auto kern = scans<T>(n);
        auto bufs = buffers(k, rows, n, static_cast<unsigned>(n + 100), false, -0.5, 1);
        auto want = run_on(kern, interp(), bufs, {.precision = Precision::standard});
        auto got = run_on(kern, cpu(), bufs, {.precision = Precision::standard});
        auto again = run_on(kern, cpu(), bufs, {.precision = Precision::standard});
        for (int out : {2, 3, 4}) EXPECT_EQ(cpu_diff::hex_diff(want[out], got[out]), "") << "output " << out << ", length " << n;
        EXPECT_TRUE(got[1].bytes == again[1].bytes) << "standard-precision scans must be deterministic";
        for (std::int64_t i = 0; i < rows; ++i) {
            long double exact = 0, magnitude = 0;
            for (std::int64_t j = 0; j < n; ++j) {
                const long double x = element(bufs[0], i * n + j);
                exact += x, magnitude += std::fabs(x);
                const double gamma = j * unit_roundoff / (1 - j * unit_roundoff), y = element(got[1], i * n + j);
                ASSERT_LE(std::fabs(y - static_cast<double>(exact)), gamma * static_cast<double>(magnitude) + unit_roundoff * std::fabs(y))
                    << kind_name(k) << " length " << n << " row " << i << " prefix " << j;
            }
        }
    }
    // The path under test: lanes in standard precision only.
    auto bufs = buffers(k, rows, 200, 1, false);
    EXPECT_NE(cpu_diff::cpu_source(scans<T>(200), bufs, {.precision = Precision::standard}).find("kiln_cpu::scan_add_lanes"), std::string::npos);
    EXPECT_EQ(cpu_diff::cpu_source(scans<T>(200), bufs, {.precision = Precision::exact}).find("kiln_cpu::scan_add_lanes"), std::string::npos);
}

TEST(CpuScan, F32SumsInLanesWithinTheBound) { standard_sums<f32>(0x1p-24); }
TEST(CpuScan, F64SumsInLanesWithinTheBound) { standard_sums<f64>(0x1p-53); }

// NaN anywhere poisons every later prefix (canonical in f32), and -0 alone stays -0.
TEST(CpuScan, SpecialValuesInLanes) {
    const std::int64_t n = 40;
    auto bufs = buffers(Kind::F32, 4, n, 3, false);
    auto& x = bufs[0];
    x.arg.data = x.bytes.data();  // the Buffer was copied: its pointer is run_on's to refresh, and ours here
    auto set = [&](std::int64_t e, double v) { ref::write_float(x.arg, e, v); };
    for (std::int64_t j = 0; j < n; ++j) set(j, -0.0);                                 // row 0: all -0
    set(n + 20, std::numeric_limits<double>::quiet_NaN());                              // row 1: a NaN mid-line
    set(2 * n + 3, std::numeric_limits<double>::infinity());                           // row 2: +inf, then -inf
    set(2 * n + 30, -std::numeric_limits<double>::infinity());
    set(3 * n + 39, -std::numeric_limits<double>::quiet_NaN());                         // row 3: a NaN last
    const CompileOptions standard{.precision = Precision::standard};
    auto want = run_on(scans<f32>(n), interp(), bufs, standard);
    auto got = run_on(scans<f32>(n), cpu(), bufs, standard);
    for (int out : {2, 3, 4}) EXPECT_EQ(cpu_diff::hex_diff(want[out], got[out]), "") << "output " << out;
    // The sums are reassociated: the specials' positions must hold what any order gives.
    auto bits = [&](std::int64_t e) {
        std::uint32_t b;
        std::memcpy(&b, got[1].bytes.data() + 4 * e, 4);
        return b;
    };
    for (std::int64_t j = 0; j < n; ++j) EXPECT_EQ(bits(j), 0x80000000u) << "-0 + -0 + ... is -0, prefix " << j;
    for (std::int64_t j = 20; j < n; ++j) EXPECT_EQ(bits(n + j), 0x7fc00000u) << "after a NaN, the canonical NaN, prefix " << j;
    for (std::int64_t j = 3; j < 30; ++j) EXPECT_EQ(bits(2 * n + j), 0x7f800000u) << "after +inf, +inf, prefix " << j;
    for (std::int64_t j = 30; j < n; ++j) EXPECT_EQ(bits(2 * n + j), 0x7fc00000u) << "inf + -inf is the canonical NaN, prefix " << j;
    EXPECT_EQ(bits(3 * n + 39), 0x7fc00000u);
    EXPECT_TRUE(std::isfinite(element(got[1], 3 * n + 38)));
    EXPECT_NE(cpu_diff::cpu_source(scans<f32>(n), bufs, standard).find("kiln_cpu::scan_add_lanes"), std::string::npos);
}

// The interpreter's scan of an i32 line, computed here: wrapping sums.
TEST(CpuScan, I32SumsWrapLikeTheReference) {
    const std::int64_t n = 50;
    Buffer x = input(Kind::I32, {2, n}, 8, -2e9, 2e9);
    auto got = run_on(scans<i32>(n), cpu(), {x, output(Kind::I32, {2, n}), output(Kind::I32, {2, n}), output(Kind::I32, {2, n}),
                                             output(Kind::I32, {2, n})});
    for (std::int64_t i = 0; i < 2; ++i) {
        std::uint32_t acc = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            std::int32_t xv, yv;
            std::memcpy(&xv, x.bytes.data() + 4 * (i * n + j), 4);
            std::memcpy(&yv, got[1].bytes.data() + 4 * (i * n + j), 4);
            acc += static_cast<std::uint32_t>(xv);
            ASSERT_EQ(yv, static_cast<std::int32_t>(acc)) << i << " " << j;
        }
    }
}

}  // namespace
