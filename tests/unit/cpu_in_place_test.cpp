// Values the cpu target reads where they are instead of copying them into an
// array first, against the interpreter byte for byte in both precisions:
//   - f16/bf16 loads read in the view, each element converted as it is read
//     (branch-free conversions, cpu_narrow_float_test), and f16/bf16 casts and
//     stores fused into their consumers' loops;
//   - broadcasts read through an index map in their consumers' loops (row
//     vectors, column vectors, middle dims, into reductions and stores);
//   - reductions over outer dims with the innermost kept, read in the view
//     with its row stride.
// Ragged tiles (partial boxes take the copying path), strided views (no
// in-place read) and special values (NaN, inf, -0, huge) everywhere.
#include <cmath>

#include "cpu_diff.h"
#include "cpu_source.h"

using namespace kiln;
using cpu_diff::Buffer;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;

namespace {

void both_precisions(const Kernel& k, const std::vector<Buffer>& bufs) {
    expect_same(k, bufs, {.precision = Precision::exact});
    expect_same(k, bufs, {.precision = Precision::standard});
}

// y = cast<N>(cast<f32>(x) * 3 - w) and z = x * x + w in N's own arithmetic,
// per block of 4 rows; w is a row vector broadcast over them.
template <class N> Kernel narrow_kernel(std::int64_t cols) {
    return kernel("narrow_" + std::string(kind_name(kind_of<N>)),
                  [=](View<const N, 2> x, View<const N, 1> w, View<N, 2> y, View<N, 2> z, View<f32, 2> widened) {
                      auto r = axis("r", 4), c = axis("c", cols);
                      for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 4))))) {
                          auto o = coord(nest.index() * 4, 0);
                          auto v = x[o, shape(r, c)];
                          auto wv = w[coord(0), shape(c)];
                          y(o, shape(r, c)).store(cast<N>(cast<f32>(v) * 3.0f - cast<f32>(wv)));
                          z(o, shape(r, c)).store(v * v + wv);
                          widened(o, shape(r, c)).store(cast<f32>(v));
                      }
                  });
}

template <class N> void narrow(std::int64_t rows, std::int64_t view_cols, std::int64_t tile_cols, bool specials) {
    const Kind k = kind_of<N>;
    std::vector<Buffer> bufs = {input(k, {rows, view_cols}, 7, -300, 300, specials), input(k, {view_cols}, 8, -2, 2, specials),
                                output(k, {rows, view_cols}), output(k, {rows, view_cols}), output(Kind::F32, {rows, view_cols})};
    auto kern = narrow_kernel<N>(tile_cols);
    both_precisions(kern, bufs);
    if (view_cols == tile_cols) {
        // The path under test: the view's 16-bit elements read where they are.
        const std::string src = cpu_diff::cpu_source(kern, bufs);
        EXPECT_NE(src.find("(read in place when contiguous, widened as read)"), std::string::npos) << "a 16-bit load should be read in place";
        EXPECT_EQ(src.find("kiln_rt::round_bf16("), std::string::npos);
        EXPECT_EQ(src.find("kiln_rt::bf16_bits_to_double("), std::string::npos);
    }
}

TEST(CpuInPlace, BF16LoadsCastsAndStores) {
    narrow<bf16>(9, 48, 48, false);
    narrow<bf16>(9, 48, 48, true);
    narrow<bf16>(6, 37, 48, true);  // every box partial: the copying path
}
TEST(CpuInPlace, F16LoadsCastsAndStores) {
    narrow<f16>(9, 48, 48, false);
    narrow<f16>(9, 48, 48, true);  // +-300 squared overflows f16: inf
    narrow<f16>(6, 37, 48, true);
}

// A view whose rows are not contiguous in memory (inner stride 2): copied, not read in place.
TEST(CpuInPlace, StridedNarrowViews) {
    auto kern = narrow_kernel<bf16>(16);
    Buffer x = input(Kind::BF16, {8, 16}, 9, -4, 4, true, {40, 2});
    both_precisions(kern, {x, input(Kind::BF16, {16}, 10), output(Kind::BF16, {8, 16}), output(Kind::BF16, {8, 16}), output(Kind::F32, {8, 16})});
}

// A bf16 LayerNorm with weight and bias as a user writes it: the statistics in
// f32. Exact precision gives the interpreter's bytes.
TEST(CpuInPlace, BF16LayerNorm) {
    auto kern = kernel("layernorm_bf16", [](View<const bf16, 2> x, View<const bf16, 1> w, View<const bf16, 1> b, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        const float inv_n = 1.0f / static_cast<float>(x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = cast<f32>(x[o, shape(r, c)]);
            auto mean = reduce(v, c, add) * inv_n;
            auto d = v - mean;
            auto rstd = rsqrt(reduce(d * d, c, add) * inv_n + 1e-5f);
            y(o, shape(r, c)).store(cast<bf16>(d * rstd * cast<f32>(w[coord(0), shape(c)]) + cast<f32>(b[coord(0), shape(c)])));
        }
    });
    for (std::int64_t cols : {1, 100, 1000}) {
        std::vector<Buffer> bufs = {input(Kind::BF16, {5, cols}, 11, -3, 5, cols == 100), input(Kind::BF16, {cols}, 12, 0.5, 1.5),
                                    input(Kind::BF16, {cols}, 13), output(Kind::BF16, {5, cols})};
        expect_same(kern, bufs, {.precision = Precision::exact});
    }
}

// Broadcasts of a [c] row vector and an [r] column vector over [r, c], of a
// [p, s] tile over [p, q, s] (a middle dim), and of one element, consumed by
// stores, reductions and elementwise chains.
template <class T> Kernel broadcast_kernel() {
    return kernel("broadcasts_" + std::string(kind_name(kind_of<T>)),
                  [](View<const T, 2> x, View<const T, 1> row, View<const T, 1> col, View<const T, 2> ps, View<T, 2> y, View<T, 2> z,
                     View<T, 1> sums, View<T, 3> w) {
                      auto r = axis("r", 3), c = axis("c", 20), p = axis("p", 2), q = axis("q", 3), s = axis("s", 5);
                      for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 3))))) {
                          auto i = nest.index();
                          auto o = coord(i * 3, 0);
                          auto v = x[o, shape(r, c)];
                          auto rv = row[coord(0), shape(c)];
                          auto cv = col[coord(i * 3), shape(r)];
                          y(o, shape(r, c)).store(v * rv + cv);                      // both into one store
                          z(o, shape(r, c)).store(maximum(v, rv) - cv);              // one each side
                          sums(coord(i * 3), shape(r)).store(reduce(v - rv, c, add));  // into a reduction
                          auto t = ps[coord(0, 0), shape(p, s)];
                          w(coord(i * 2, 0, 0), shape(p, q, s)).store(t + full<T>(shape(p, q, s), 1) * t);  // over a middle dim
                      }
                  });
}

template <class T> void broadcasts(bool specials) {
    const Kind k = kind_of<T>;
    const std::int64_t rows = 8;  // the third block is partial
    std::vector<Buffer> bufs = {input(k, {rows, 20}, 21, -4, 4, specials), input(k, {20}, 22, -4, 4, specials), input(k, {rows}, 23, -4, 4, specials),
                                input(k, {2, 5}, 24), output(k, {rows, 20}), output(k, {rows, 20}), output(k, {rows}), output(k, {6, 3, 5})};
    auto kern = broadcast_kernel<T>();
    both_precisions(kern, bufs);
    // The path under test: no broadcast is copied into an array of its own.
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    for (std::size_t at = src.find("= broadcast :"); at != std::string::npos; at = src.find("= broadcast :", at + 1))
        EXPECT_NE(src.substr(at, src.find('\n', at) - at).find("(read in place by its consumers)"), std::string::npos)
            << src.substr(at, src.find('\n', at) - at);
}

TEST(CpuInPlace, BroadcastsF32) { broadcasts<f32>(false), broadcasts<f32>(true); }
TEST(CpuInPlace, BroadcastsBF16) { broadcasts<bf16>(true); }
TEST(CpuInPlace, BroadcastsI32) { broadcasts<i32>(true); }

// Column sums: a [br, bc] block of a wider view reduced over its rows, read
// where it lies (the view's row stride), in blocks of a serial loop; the
// interpreter's bytes in exact precision (each column folded in row order).
template <class T> Kernel column_sum_kernel(std::int64_t bc, std::int64_t br) {
    return kernel("column_sum_" + std::string(kind_name(kind_of<T>)), [=](View<const T, 2> x, View<T, 1> y) {
        auto r = axis("r", br), c = axis("c", bc);
        for (auto& nest : parallel(shape(axis("col_blocks", ceil_div(x.extent(1), bc))))) {
            auto c0 = nest.index() * bc;
            auto acc = zeros<T>(shape(c));
            for (auto& step : nest.serial(shape(axis("row_blocks", ceil_div(x.extent(0), br)))))
                acc = acc + reduce(x[coord(step.index() * br, c0), shape(r, c)], r, add);
            y(coord(c0), shape(c)).store(acc);
        }
    });
}

template <class T> void column_sums(std::int64_t rows, std::int64_t cols, std::int64_t bc, std::int64_t br, bool specials) {
    const Kind k = kind_of<T>;
    auto kern = column_sum_kernel<T>(bc, br);
    std::vector<Buffer> bufs = {input(k, {rows, cols}, 31, -4, 4, specials), output(k, {cols})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    expect_same(kern, bufs, {.precision = Precision::standard});  // the order per column is the same in both
    if (rows % br == 0 && cols % bc == 0) {
        const std::string src = cpu_diff::cpu_source(kern, bufs);
        EXPECT_NE(src.find("(read in place, row stride"), std::string::npos) << "the block should be read where it lies";
    }
}

TEST(CpuInPlace, ColumnSumsF32) {
    column_sums<f32>(64, 96, 32, 16, false);
    column_sums<f32>(64, 96, 32, 16, true);
    column_sums<f32>(50, 90, 32, 16, true);  // ragged in both dims
    column_sums<f32>(40, 40, 20, 8, false);  // 20 columns: not a multiple of the vector width
}
TEST(CpuInPlace, ColumnSumsOtherKinds) {
    column_sums<f64>(64, 64, 32, 16, true);
    column_sums<i32>(64, 64, 32, 16, true);
    column_sums<bf16>(64, 64, 32, 16, true);
}

}  // namespace
