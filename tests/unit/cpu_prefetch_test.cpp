// The cpu emitter's prefetch of the next instance's windows (emit_prefetch.cpp):
// which loads and stores get one, and that the kernels still compute the
// interpreter's bytes (the prefetch reads nothing the program can observe, but
// the next instance's origins are evaluated again from its indices, which must
// be the ones the grid loop derives).
#include "cpu_diff.h"
#include "cpu_source.h"
#include "targets/cpu/emitter.h"

using namespace kiln;
using cpu_diff::Buffer;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;

namespace {

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Row softmax of 1024 columns (4 KB rows): each instance prefetches the next row
// to read and the next row to write, in the chunks of its exp loop.
TEST(CpuPrefetch, RowKernelsPrefetchTheNextRowsTheyReadAndWrite) {
    auto kern = kernel("prefetched_softmax", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = x[o, shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(o, shape(r, c)).store(e / reduce(e, c, add));
        }
    });
    auto x = input(Kind::F32, {7, 1024}, 91, -20, 20);
    ref::write_float(x.arg, 3 * 1024 + 5, std::nan(""));
    const std::vector<Buffer> bufs = {x, output(Kind::F32, {7, 1024})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    cpu_diff::expect_close(kern, bufs, 2e-6, 1e-30);
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    EXPECT_TRUE(contains(src, "_0 = kiln_cpu::prefetch_window(args[0].view")) << "the next row read";
    EXPECT_TRUE(contains(src, "_1 = kiln_cpu::prefetch_window(args[1].view")) << "the next row written";
    EXPECT_TRUE(contains(src, "kiln_cpu::prefetch_step<false>(kiln_pf")) << src;
    EXPECT_TRUE(contains(src, "kiln_cpu::prefetch_step<true>(kiln_pf"));
    // The max and the sum are lines of contiguous floats: the vector forms.
    EXPECT_TRUE(contains(src, "kiln_cpu::order_key_extremes(")) << src;
    EXPECT_TRUE(contains(src, "kiln_cpu::lane_sum64("));
}

// A grid of two dims (row pairs x column halves), the origins computed from both
// indices through scalar arithmetic: the next instance's indices come from pid + 1
// as the grid loop derives them (the last index fastest), and its origin from them.
TEST(CpuPrefetch, GridsOfSeveralDimsFindTheNextInstancesOrigin) {
    auto kern = kernel("prefetched_halves", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 2), c = axis("c", 512);
        auto pairs = axis("pairs", ceil_div(x.extent(0), 2)), halves = axis("halves", 2);
        for (auto& nest : parallel(shape(pairs, halves))) {
            auto o = coord(nest.index(pairs) * 2, nest.index(halves) * 512);
            auto e = exp(x[o, shape(r, c)]);  // held in an array (two uses): a loop that issues the prefetches
            y(o, shape(r, c)).store(e / reduce(e, c, add));
        }
    });
    const std::vector<Buffer> bufs = {input(Kind::F32, {9, 1024}, 92), output(Kind::F32, {9, 1024})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    cpu_diff::expect_close(kern, bufs, 2e-6, 1e-30);
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    EXPECT_TRUE(contains(src, "long long rest_ahead = pid + 1;")) << src;
    EXPECT_TRUE(contains(src, "kiln_cpu::prefetch_window(args[0].view"));
}

// Where no loop of an instance's own computes in chunks (a store of a fused value,
// whose loop is the access's), nothing is prefetched: the windows' code would cost
// without issuing anything.
TEST(CpuPrefetch, NothingWithoutAComputingLoopToIssueIt) {
    auto kern = kernel("fused_rows", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            y(o, shape(r, c)).store(x[o, shape(r, c)] * 3.0f);
        }
    });
    const std::vector<Buffer> bufs = {input(Kind::F32, {5, 2048}, 95), output(Kind::F32, {5, 2048})};
    expect_same(kern, bufs, {.precision = Precision::standard});
    EXPECT_FALSE(contains(cpu_diff::cpu_source(kern, bufs), "kiln_pf"));
}

// A row chosen by a value the instance loads (a permutation): its origin is not
// known before the instance runs, so only the store, whose origin is the grid
// index, is prefetched.
TEST(CpuPrefetch, OriginsFromLoadedValuesAreNotPrefetched) {
    auto kern = kernel("permuted_rows", [](View<const i64, 1> order, View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto from = sum(order[coord(nest.index()), shape(axis("one", 1))]);
            auto e = exp(x[coord(from, 0), shape(r, c)]);
            y(coord(nest.index(), 0), shape(r, c)).store(e / reduce(e, c, add));
        }
    });
    auto order = input(Kind::I64, {6}, 93);
    for (int i = 0; i < 6; ++i) ref::write_int(order.arg, i, (i * 5 + 2) % 6);
    const std::vector<Buffer> bufs = {order, input(Kind::F32, {6, 2048}, 94), output(Kind::F32, {6, 2048})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    EXPECT_FALSE(contains(src, "prefetch_window(args[1].view")) << "the gathered row";
    EXPECT_TRUE(contains(src, "_0 = kiln_cpu::prefetch_window(args[2].view")) << src;
}

// A column sum written as users write it: one instance a block of 256 columns, a
// serial loop over blocks of `rows` rows.
Kernel column_sum(const std::string& name, std::int64_t rows) {
    return kernel(name, [rows](View<const f32, 2> x, View<f32, 1> y) {
        auto r = axis("r", rows), c = axis("c", 256);
        for (auto& nest : parallel(shape(axis("col_blocks", ceil_div(x.extent(1), 256))))) {
            auto c0 = nest.index() * 256;
            auto acc = zeros<f32>(shape(c));
            for (auto& step : nest.serial(shape(axis("row_blocks", ceil_div(x.extent(0), rows)))))
                acc = acc + reduce(x[coord(step.index() * rows, c0), shape(r, c)], r, add);
            y(coord(c0), shape(c)).store(acc);
        }
    });
}

// Each iteration of the column sum prefetches a later block of rows, one row of it a
// step of the reduction's fold, and the rows' box spans the view's row stride. 300
// rows: the last block runs past the view (its box is not prefetched).
TEST(CpuPrefetch, SerialLoopsPrefetchTheNextIterationsRows) {
    auto kern = column_sum("prefetched_column_sum", 32);
    const std::vector<Buffer> bufs = {input(Kind::F32, {300, 1024}, 96), output(Kind::F32, {1024})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    expect_same(kern, bufs, {.precision = Precision::standard});
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    EXPECT_TRUE(contains(src, "_0 = kiln_cpu::prefetch_window(args[0].view, 2, o, n, 4);")) << src;
    const std::size_t fold = src.find("for (int r = 1; r < 32; ++r) {");
    ASSERT_NE(fold, std::string::npos);
    // 32 rows of 1 KB: 32 KB, more than half of any L1d up to 64 KiB, so they go to L2
    // two iterations ahead (the rows the iteration reads would be evicted otherwise).
    ASSERT_LT(native::l1_data_cache_bytes(), 2 * 32 * 1024) << "a machine with a larger L1d than this test assumes";
    EXPECT_TRUE(contains(src.substr(fold, 200), "kiln_cpu::prefetch_step<false, 2, 32>(kiln_pf")) << src.substr(fold, 200);
    EXPECT_TRUE(contains(src, "_ahead0 = l") && contains(src, "_i0 + 2 < l") && contains(src, "_i0 + 2 : l")) << src;
}

// A serial loop's windows that fit in half of L1 beside the iteration's own lines
// are prefetched into L1 for the next iteration: 4 rows of 1 KB.
TEST(CpuPrefetch, SmallSerialWindowsGoToL1ForTheNextIteration) {
    auto kern = column_sum("prefetched_column_sum_4", 4);
    const std::vector<Buffer> bufs = {input(Kind::F32, {301, 512}, 97), output(Kind::F32, {512})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    ASSERT_GT(native::l1_data_cache_bytes(), 2 * 4 * 1024) << "a machine with a smaller L1d than this test assumes";
    EXPECT_TRUE(contains(src, "kiln_cpu::prefetch_step<false>(kiln_pf")) << src;
    EXPECT_FALSE(contains(src, "_i0 + 2")) << src;
}

}  // namespace
