// The cpu emitter's storage decisions against the interpreter, byte for byte:
// elementwise chains fused into their consumer's loop (with f32 exp in its
// vectorised form and the recomputation when a result is in doubt), loads read
// where they lie in the view, and an mma accumulating in its loop's carried
// slot. Each test also checks the generated source takes the path it is about.
#include <cmath>

#include "cpu_diff.h"
#include "cpu_source.h"

using namespace kiln;
using cpu_diff::Buffer;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;

namespace {

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Row softmax over 300 columns (the last block of rows ragged), with NaN, -inf
// (a masked entry) and large values in some rows: the fused exp loop, its
// rerun for NaN rows, and stores of a fused value into a partial window.
TEST(CpuFusion, SoftmaxRowsWithSpecialValues) {
    auto kern = kernel("fused_softmax", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 4), c = axis("c", 300);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 4))))) {
            auto o = coord(nest.index() * 4, 0);
            auto v = x[o, shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(o, shape(r, c)).store(e / reduce(e, c, add));
        }
    });
    auto x = input(Kind::F32, {10, 300}, 81, -30, 30);
    auto set = [&](std::int64_t r, std::int64_t c, double v) { ref::write_float(x.arg, r * 300 + c, v); };
    set(1, 17, std::nan("")), set(2, 5, -INFINITY), set(2, 6, -INFINITY), set(3, 299, 88.0), set(5, 0, -1e30), set(9, 150, INFINITY);
    const std::vector<Buffer> bufs = {x, output(Kind::F32, {10, 300})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    const std::string src = cpu_diff::cpu_source(kern, bufs, {.precision = Precision::exact});
    EXPECT_TRUE(contains(src, "kiln_cpu::exp32(")) << "exp runs in its vectorised form";
    EXPECT_TRUE(contains(src, "kiln_rt::k_exp(")) << "with the scalar rerun";
    EXPECT_TRUE(contains(src, "= sub : f32[4x300 (r, c)] (fused into its use)"));
    EXPECT_TRUE(contains(src, "= div : f32[4x300 (r, c)] (fused into its use)"));
    EXPECT_TRUE(contains(src, "part[1200]")) << "a fused value stored into a partial window";
    // Standard precision sums the denominator in lanes: close to the f64 softmax.
    auto got = cpu_diff::run_on(kern, cpu(), bufs);
    detail::Arg in = bufs[0].arg, out = got[1].arg;
    in.data = const_cast<unsigned char*>(bufs[0].bytes.data());
    out.data = got[1].bytes.data();
    for (std::int64_t row : {0, 4, 7}) {
        double m = -INFINITY, s = 0;
        for (std::int64_t c = 0; c < 300; ++c) m = std::max(m, ref::read_float(in, row * 300 + c));
        for (std::int64_t c = 0; c < 300; ++c) s += std::exp(ref::read_float(in, row * 300 + c) - m);
        for (std::int64_t c = 0; c < 300; ++c) {
            const double d = ref::read_float(in, row * 300 + c) - m, want = std::exp(d) / s;
            // f32 rounding of x - max moves the exponent by up to |d| 2^-24; then a few f32 roundings.
            EXPECT_NEAR(ref::read_float(out, row * 300 + c), want, want * (std::fabs(d) * 0x1p-23 + 1e-6) + 1e-37) << "row " << row << " column " << c;
        }
    }
}

// A value with two uses is computed once into an array; a broadcast of one
// element is fused into both of its consumers; iota and a cast fuse into a
// reduction.
TEST(CpuFusion, MultipleUsesAndCopies) {
    auto kern = kernel("fusion_uses", [](View<const f32, 2> x, View<f32, 2> a, View<f32, 2> b, View<i64, 1> s) {
        auto one = axis("one", 1), n = axis("n", 40);
        for (auto& nest : parallel(shape(axis("g", 1)))) {
            (void)nest;
            auto v = x[coord(0, 0), shape(one, n)];
            auto t = tanh(v) * 3.0f;                        // two uses: one array
            auto m = reduce(v, n, maximum);                 // [one], broadcast into two consumers
            a(coord(0, 0), shape(one, n)).store(t + m);
            b(coord(0, 0), shape(one, n)).store(t * m - v);
            s(coord(0), shape(one)).store(reduce(iota(n) * cast<i64>(reduce(v, one, add)), n, add));
        }
    });
    const std::vector<Buffer> bufs = {input(Kind::F32, {1, 40}, 82, -3, 3, true), output(Kind::F32, {1, 40}), output(Kind::F32, {1, 40}),
                                      output(Kind::I64, {1})};
    for (auto precision : {Precision::standard, Precision::exact}) expect_same(kern, bufs, {.precision = precision});
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    EXPECT_TRUE(contains(src, "= mul : f32[1x40 (one, n)]\n")) << "t has two uses and is not fused";
    EXPECT_TRUE(contains(src, "= broadcast : f32[1x40 (one, n)] (fused into its use)"));
    EXPECT_TRUE(contains(src, "= iota : i64[40 (n)] (fused into its use)"));
}

// Loads read in place, and where the instance's own stores forbid it: a tile
// read after a store into the same view (shifted by one element) must keep
// the values it was loaded with; so must one read in a loop whose iterations
// store into the view it came from. A store that itself reads the tile counts
// too: its destination might overlap the tile shifted.
TEST(CpuFusion, LoadsReadInPlaceOnlyWithoutStoresBeforeTheirLastRead) {
    auto kern = kernel("in_place_loads", [](View<f32, 1> x, View<const f32, 1> z, View<f32, 1> y, View<f32, 1> w) {
        auto n = axis("n", 64);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto v = x[coord(0), shape(n)];               // copied: a store into x comes before its last read
            x(coord(1), shape(n)).store(v * 2.0f);
            y(coord(0), shape(n)).store(v + 1.0f);
            auto u = z[coord(0), shape(n)];               // read in place: no store up to its last read
            auto e = exp(u) - u;                          // (two uses: computed into an array)
            y(coord(64), shape(n)).store(e * e);
            auto acc = zeros<f32>(shape(n));
            auto q = x[coord(100), shape(n)];             // copied: read again after the loop's store
            for (auto& step : nest.serial(shape(axis("steps", 3)))) {
                acc = acc + q;
                x(coord(100 + step.index()), shape(n)).store(acc);
            }
            w(coord(0), shape(n)).store(acc);
        }
    });
    const std::vector<Buffer> bufs = {cpu_diff::inout(Kind::F32, {200}, 83), input(Kind::F32, {64}, 84), output(Kind::F32, {128}),
                                      output(Kind::F32, {64})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    const std::string src = cpu_diff::cpu_source(kern, bufs, {.precision = Precision::exact});
    std::size_t in_place = 0;
    for (std::size_t at = src.find("(read in place when contiguous)"); at != std::string::npos; at = src.find("(read in place when contiguous)", at + 1))
        ++in_place;
    EXPECT_EQ(in_place, 1u) << "only the load of z is read in place";
}

// acc = mma(a, b, acc) in a pipeline loop accumulates in the carried slot.
TEST(CpuFusion, MmaAccumulatesInItsCarriedSlot) {
    auto kern = kernel("mma_in_slot", [](View<const f32, 2> a, View<const f32, 2> b, View<f32, 2> c) {
        auto m = axis("m", 16), n = axis("n", 32), k = axis("k", 8);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            auto acc = full<f32>(shape(m, n), 1.0f);
            for (auto& step : nest.pipeline(shape(axis("kt", ceil_div(a.extent(1), 8)))))
                acc = mma(a[coord(0, step.index() * 8), shape(m, k)], b[coord(step.index() * 8, 0), shape(k, n)], acc);
            c(coord(0, 0), shape(m, n)).store(acc);
        }
    });
    const std::vector<Buffer> bufs = {input(Kind::F32, {16, 29}, 85, -1, 1, true), input(Kind::F32, {29, 32}, 86, -1, 1, true),
                                      output(Kind::F32, {16, 32})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    cpu_diff::expect_close(kern, bufs, 1e-6, 1e-6);  // standard: products may fuse with their sums
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    EXPECT_TRUE(contains(src, "kiln_cpu::mma_block_fused<8, 2>(")) << src.substr(src.find("= mma"), 400);
    EXPECT_FALSE(contains(src, "_next0")) << "no staging copy at the yield";
    const std::size_t mma = src.find("= mma : f32[16x32 (m, n)]");
    ASSERT_NE(mma, std::string::npos);
    EXPECT_TRUE(contains(src.substr(mma, 300), "_c0 + ")) << "the mma writes the carried slot";
}

}  // namespace
