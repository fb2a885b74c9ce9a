// topk on the cpu target: a partial selection per line (cpu_lines.h top_line,
// the insertion form for small k and the heap form for larger), never a sort,
// bit-exact with the interpreter's stable sort: descending, NaN (of either
// sign) above +inf, ties (equal values, -0 beside +0, NaN beside NaN) in source
// order. Values alone, indices alone and both; lines longer and shorter than
// the view (padded with zeros); every kind; both precisions.
#include <cmath>
#include <limits>

#include "cpu_diff.h"
#include "cpu_source.h"

using namespace kiln;
using cpu_diff::Buffer;
using cpu_diff::expect_same;
using cpu_diff::output;

namespace {

// Which results a kernel stores: the selection is shared when both are.
enum class Wanted { values, indices, both };

template <class T> Kernel topk_kernel(std::int64_t cols, std::int64_t k, Wanted wanted) {
    return kernel("topk_" + std::string(kind_name(kind_of<T>)), [=](View<const T, 2> x, View<T, 2> values, View<i64, 2> indices) {
        auto r = axis("r", 2), c = axis("c", cols), kk = axis("k", k);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 2))))) {
            auto o = coord(nest.index() * 2, 0);
            auto top = topk(x[o, shape(r, c)], c, k);
            if (wanted != Wanted::indices) values(o, shape(r, kk)).store(reshape(top.values, shape(r, kk)));
            if (wanted != Wanted::values) indices(o, shape(r, kk)).store(reshape(top.indices, shape(r, kk)));
        }
    });
}

// Lines full of ties: a few levels, signed zeros, infinities and NaNs of both signs.
Buffer tied_input(Kind kind, std::int64_t rows, std::int64_t cols, unsigned seed) {
    Buffer b = cpu_diff::input(kind, {rows, cols}, seed);
    std::mt19937 g(seed);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const double floats[] = {1.5, -1.5, 0.0, -0.0, 2.0, 2.0, 1.5, nan, -nan, inf, -inf, 0.25};
    const std::int64_t ints[] = {3, -3, 0, 7, 7, -100, 3, 1};
    for (std::int64_t e = 0; e < rows * cols; ++e) {
        if (is_float(kind)) ref::write_float(b.arg, e, floats[g() % 12]);
        else ref::write_int(b.arg, e, ints[g() % 8]);
    }
    return b;
}

template <class T> void check(std::int64_t rows, std::int64_t view_cols, std::int64_t tile_cols, std::int64_t k) {
    const Kind kind = kind_of<T>;
    for (Wanted w : {Wanted::both, Wanted::values, Wanted::indices}) {
        auto kern = topk_kernel<T>(tile_cols, k, w);
        std::vector<Buffer> bufs = {tied_input(kind, rows, view_cols, static_cast<unsigned>(rows * 31 + k)), output(kind, {rows, k}),
                                    output(Kind::I64, {rows, k})};
        for (Precision p : {Precision::exact, Precision::standard}) expect_same(kern, bufs, {.precision = p});
        // The path under test: a selection, no sort of the line.
        const std::string src = cpu_diff::cpu_source(kern, bufs);
        EXPECT_NE(src.find("kiln_cpu::top_line("), std::string::npos) << "topk should select, not sort";
        EXPECT_EQ(src.find("kiln_cpu::sort_line("), std::string::npos);
    }
}

TEST(CpuTopk, F32Top2WithTiesNaNsAndSignedZeros) { check<f32>(9, 64, 64, 2); }
TEST(CpuTopk, F32SmallKOverRaggedLines) { check<f32>(7, 13, 16, 5); }  // 3 zero-padded columns join the ranking
TEST(CpuTopk, F32LargeKUsesTheHeap) { check<f32>(5, 300, 300, 40); }
TEST(CpuTopk, F32KEqualsTheLine) { check<f32>(4, 33, 33, 33); }
TEST(CpuTopk, F64AndNarrowKinds) {
    check<f64>(5, 50, 50, 3);
    check<f16>(5, 50, 50, 17);
    check<bf16>(5, 20, 24, 4);
}
TEST(CpuTopk, Integers) {
    check<i32>(6, 40, 40, 2);
    check<i64>(6, 40, 40, 20);
    check<i8>(3, 17, 17, 1);
}

// Sort keeps its merge sort; topk of the same line beside it selects.
TEST(CpuTopk, SortBesideTopk) {
    auto kern = kernel("sort_beside_topk", [](View<const f32, 2> x, View<f32, 2> sorted, View<i64, 2> top) {
        auto r = axis("r", 1), c = axis("c", 24), k = axis("k", 3);
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = x[o, shape(r, c)];
            sorted(o, shape(r, c)).store(sort(v, c).values);
            top(o, shape(r, k)).store(reshape(topk(v, c, 3).indices, shape(r, k)));
        }
    });
    std::vector<Buffer> bufs = {tied_input(Kind::F32, 5, 24, 9), output(Kind::F32, {5, 24}), output(Kind::I64, {5, 3})};
    expect_same(kern, bufs, {.precision = Precision::exact});
    const std::string src = cpu_diff::cpu_source(kern, bufs);
    EXPECT_NE(src.find("kiln_cpu::sort_line("), std::string::npos);
    EXPECT_NE(src.find("kiln_cpu::top_line("), std::string::npos);
}

}  // namespace
