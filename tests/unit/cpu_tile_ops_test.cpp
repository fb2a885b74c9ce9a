// The cpu target against the interpreter, byte for byte: reductions over every
// combination of dims (the pinned left-to-right order), scans, argmax/argmin with
// NaN and ties, sort and topk, gather, reindex, broadcast/permute/slice/reshape,
// iota, full and captured constants. Tiles are 3-D [4 x 5 x 6] blocks of a
// [7 x 5 x 6] view, so the second block is partial.
#include "cpu_diff.h"

using namespace kiln;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;

namespace {

constexpr std::int64_t P = 4, Q = 5, S = 6, Rows = 7;

template <class T> void reductions(Kind k, bool specials) {
    auto kern = kernel("reductions_" + std::string(kind_name(k)),
                       [](View<const T, 3> x, View<T, 2> sum_q, View<T, 2> max_s, View<T, 2> min_p, View<T, 1> sum_qs, View<T, 1> max_ps,
                          View<T, 1> all) {
                           auto blocks = axis("blocks", ceil_div(x.extent(0), P));
                           auto p = axis("p", P), q = axis("q", Q), s = axis("s", S);
                           for (auto& nest : parallel(shape(blocks))) {
                               auto b = nest.index();
                               auto v = x[coord(b * P, 0, 0), shape(p, q, s)];
                               sum_q(coord(b * P, 0), shape(p, s)).store(reduce(v, q, add));        // a middle dim
                               max_s(coord(b * P, 0), shape(p, q)).store(reduce(v, s, maximum));    // the innermost dim
                               min_p(coord(b * Q, 0), shape(q, s)).store(reduce(v, p, minimum));    // the outermost dim
                               sum_qs(coord(b * P), shape(p)).store(reduce(v, shape(q, s), add));   // a trailing pair
                               max_ps(coord(b * Q), shape(q)).store(reduce(v, shape(p, s), maximum));  // dims around a kept one
                               all(coord(b), shape(axis("one", 1))).store(reduce(v, shape(p, q, s), add));  // to a scalar
                           }
                       });
    // Exact precision: the whole-tile f64 sum is long enough for standard
    // precision's lanes (cpu_standard_precision_test.cpp covers those).
    expect_same(kern, {input(k, {Rows, Q, S}, 21, -3, 3, specials), output(k, {Rows, S}), output(k, {Rows, Q}), output(k, {2 * Q, S}),
                       output(k, {Rows}), output(k, {2 * Q}), output(k, {2})},
                {.precision = Precision::exact});
}

TEST(CpuTileOps, ReductionsF32) { reductions<f32>(Kind::F32, false), reductions<f32>(Kind::F32, true); }
TEST(CpuTileOps, ReductionsF64) { reductions<f64>(Kind::F64, true); }
TEST(CpuTileOps, ReductionsF16) { reductions<f16>(Kind::F16, false), reductions<f16>(Kind::F16, true); }
TEST(CpuTileOps, ReductionsBF16) { reductions<bf16>(Kind::BF16, true); }
TEST(CpuTileOps, ReductionsI8) { reductions<i8>(Kind::I8, true); }
TEST(CpuTileOps, ReductionsI32) { reductions<i32>(Kind::I32, true); }
TEST(CpuTileOps, ReductionsI64) { reductions<i64>(Kind::I64, true); }

template <class T> void scans_and_args(Kind k, double lo, double hi) {
    auto kern = kernel("scans_" + std::string(kind_name(k)),
                       [](View<const T, 2> x, View<T, 2> sum_c, View<T, 2> max_r, View<T, 2> min_c, View<i64, 1> amax, View<i64, 1> amin,
                          View<i64, 1> amax_r) {
                           auto blocks = axis("blocks", ceil_div(x.extent(0), P));
                           auto r = axis("r", P), c = axis("c", S);
                           for (auto& nest : parallel(shape(blocks))) {
                               auto r0 = nest.index() * P;
                               auto v = x[coord(r0, 0), shape(r, c)];
                               sum_c(coord(r0, 0), shape(r, c)).store(scan(v, c, add));
                               max_r(coord(r0, 0), shape(r, c)).store(scan(v, r, maximum));
                               min_c(coord(r0, 0), shape(r, c)).store(scan(v, c, minimum));
                               amax(coord(r0), shape(r)).store(argmax(v, c));
                               amin(coord(r0), shape(r)).store(argmin(v, c));
                               amax_r(coord(nest.index() * S), shape(c)).store(argmax(v, r));
                           }
                       });
    expect_same(kern, {input(k, {Rows, S}, 22, lo, hi, true), output(k, {Rows, S}), output(k, {Rows, S}), output(k, {Rows, S}),
                       output(Kind::I64, {Rows}), output(Kind::I64, {Rows}), output(Kind::I64, {2 * S})});
}

TEST(CpuTileOps, ScansAndArgReductionsF32) { scans_and_args<f32>(Kind::F32, -2, 2); }
TEST(CpuTileOps, ScansAndArgReductionsBF16) { scans_and_args<bf16>(Kind::BF16, -2, 2); }
TEST(CpuTileOps, ScansAndArgReductionsI32WithTies) { scans_and_args<i32>(Kind::I32, -2, 2); }
TEST(CpuTileOps, ScansAndArgReductionsI8Wrapping) { scans_and_args<i8>(Kind::I8, -100, 100); }

template <class T> void sort_and_topk(Kind k) {
    auto kern = kernel("sort_" + std::string(kind_name(k)),
                       [](View<const T, 2> x, View<T, 2> sv, View<i64, 2> si, View<T, 2> tv, View<i64, 2> ti, View<T, 2> sv_r, View<i64, 2> ti_r) {
                           auto blocks = axis("blocks", ceil_div(x.extent(0), P));
                           auto r = axis("r", P), c = axis("c", S);
                           auto k3 = axis("k3", 3), k2 = axis("k2", 2);
                           for (auto& nest : parallel(shape(blocks))) {
                               auto r0 = nest.index() * P;
                               auto v = x[coord(r0, 0), shape(r, c)];
                               auto sorted = sort(v, c);
                               sv(coord(r0, 0), shape(r, c)).store(sorted.values);
                               si(coord(r0, 0), shape(r, c)).store(sorted.indices);
                               auto top = topk(v, c, 3);
                               tv(coord(r0, 0), shape(r, k3)).store(top.values);
                               ti(coord(r0, 0), shape(r, k3)).store(top.indices);
                               sv_r(coord(r0, 0), shape(r, c)).store(sort(v, r).values);       // along the outer dim
                               ti_r(coord(nest.index() * 2, 0), shape(k2, c)).store(topk(v, r, 2).indices);
                           }
                       });
    expect_same(kern, {input(k, {Rows, S}, 23, -2, 2, true), output(k, {Rows, S}), output(Kind::I64, {Rows, S}), output(k, {Rows, 3}),
                       output(Kind::I64, {Rows, 3}), output(k, {Rows, S}), output(Kind::I64, {4, S})});
}

TEST(CpuTileOps, SortTopkF32WithNaNAndNegativeZero) { sort_and_topk<f32>(Kind::F32); }
TEST(CpuTileOps, SortTopkF16) { sort_and_topk<f16>(Kind::F16); }
TEST(CpuTileOps, SortTopkI64StableTies) { sort_and_topk<i64>(Kind::I64); }

// A line longer than the merge sort's first widths, with many ties.
TEST(CpuTileOps, SortLongLine) {
    auto kern = kernel("sort_long", [](View<const i32, 1> x, View<i64, 1> order, View<i32, 1> top) {
        auto n = axis("n", 100), k = axis("k", 17);
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            (void)nest;
            auto v = x[coord(0), shape(n)];
            order(coord(0), shape(n)).store(sort(v, n).indices);
            top(coord(0), shape(k)).store(topk(v, n, 17).values);
        }
    });
    expect_same(kern, {input(Kind::I32, {100}, 24, -5, 5), output(Kind::I64, {100}), output(Kind::I32, {17})});
}

TEST(CpuTileOps, GatherAndReindex) {
    auto kern = kernel("gather_reindex", [](View<const f32, 2> x, View<const i64, 2> idx, View<f32, 2> g, View<f32, 2> t, View<f32, 2> shifted) {
        auto blocks = axis("blocks", ceil_div(x.extent(0), P));
        auto r = axis("r", P), c = axis("c", S), j = axis("j", S);
        for (auto& nest : parallel(shape(blocks))) {
            auto r0 = nest.index() * P;
            auto v = x[coord(r0, 0), shape(r, c)];
            auto i = idx[coord(r0, 0), shape(r, j)];
            // g[r][j] = v[r][i[r][j]] : gather along c, one index per output element.
            auto picked = gather(reshape(v, shape(r, c)), reduce(i, j, maximum), c);
            g(coord(r0, 0), shape(r, axis("one", 1))).store(picked);
            // Transpose and a shifted window (out-of-range coordinates read 0).
            t(coord(0, r0), shape(c, r)).store(reindex(v, shape(c, r), [&](const Nest& e) { return coord(e.index(r), e.index(c)); }));
            shifted(coord(r0, 0), shape(r, c)).store(reindex(v, shape(r, c), [&](const Nest& e) { return coord(e.index(r) - 1, e.index(c) + 2); }));
        }
    });
    expect_same(kern, {input(Kind::F32, {Rows, S}, 25, -2, 2, true), input(Kind::I64, {Rows, S}, 26, -2, 8), output(Kind::F32, {Rows, 1}),
                       output(Kind::F32, {S, Rows}), output(Kind::F32, {Rows, S})});
}

// Broadcast by axis identity, permute, slice (reduce_rows), reshape, iota, full,
// and a tile captured from the host (a constant of the program).
TEST(CpuTileOps, RelayoutsIotaFullAndConstants) {
    Tile<f32> weights = cast<f32>(from_vec(std::vector<double>{0.5, -1.25, 2.0, 0.1, 3.0, -0.0}, 1, S));
    auto kern = kernel("relayouts", [weights](View<const f32, 2> x, View<f32, 2> a, View<f32, 2> b, View<f32, 2> c_out, View<i64, 2> d) {
        auto blocks = axis("blocks", ceil_div(x.extent(0), P));
        auto r = axis("r", P), c = axis("c", S);
        for (auto& nest : parallel(shape(blocks))) {
            auto r0 = nest.index() * P;
            auto v = x[coord(r0, 0), shape(r, c)];
            auto row_max = reduce(v, c, maximum);                      // [r]
            a(coord(r0, 0), shape(r, c)).store(v - row_max);           // broadcast along c
            b(coord(0, r0), shape(c, r)).store(transpose(v) * 2.0f);   // permute
            auto fold = reduce_rows(reshape(v, shape(P, S)), 0.0f, [](Scalar<f32> acc, Scalar<f32> x) { return acc + x * x; });  // slices
            auto w = reshape(weights, shape(c)) + full<f32>(shape(c), 1.0f);
            c_out(coord(r0, 0), shape(r, c)).store(reshape(fold, shape(r)) + w);  // [r] + [c] broadcasts to [r, c]
            d(coord(r0, 0), shape(r, c)).store(iota(c) + iota(r) * 10 + nest.index());
        }
    });
    expect_same(kern, {input(Kind::F32, {Rows, S}, 27, -2, 2, true), output(Kind::F32, {Rows, S}), output(Kind::F32, {S, 2 * P}),
                       output(Kind::F32, {Rows, S}), output(Kind::I64, {Rows, S})});
}

}  // namespace
