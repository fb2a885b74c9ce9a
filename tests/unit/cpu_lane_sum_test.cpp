// Sums in vector lanes (standard precision) of lines computed as they are summed,
// with a select in the element: GCC 12.2's loop vectoriser lost lanes 16-63 (AVX2)
// or 32-63 (AVX-512) of the scalar lane form kiln emitted, so a one-hot sum (a
// cross entropy's picked logit, a segmented sum) came out 0 whenever the hit fell
// in those lanes (the catalog's cross_entropy and segmented_sum at medium size, on
// a Zen 4; cpu_lines.h lanes_add). A one-hot sum is exact in any order: the value
// itself (-0 comes out +0), checked here at every lane of several chunks.
#include <cmath>

#include "cpu_diff.h"

using namespace kiln;
using cpu_diff::input;
using cpu_diff::output;
using cpu_diff::run_on;

namespace {

// Per row: the element at the row's label, as a masked sum, and the number of hits;
// the mask is used twice, so it is stored as a bool tile before the sums.
template <Element T> Kernel picked_by_label() {
    return kernel("lane_sum_picked", [](View<const T, 2> z, View<const i64, 1> labels, View<T, 1> picked, View<f32, 1> hits) {
        auto r = axis("r", 1), c = axis("c", z.template extent<1>());
        for (auto& nest : parallel(shape(axis("rows", z.template extent<0>())))) {
            auto row = z[coord(nest.index(), 0), shape(r, c)];
            auto hit = labels[coord(nest.index()), shape(r)] == iota(c);
            picked(coord(nest.index()), shape(r)).store(reduce(ite(hit, row, T(0)), c, add));
            hits(coord(nest.index()), shape(r)).store(reduce(ite(hit, 1.0f, 0.0f), c, add));
        }
    });
}

template <Element T> void one_hot_sums_are_the_picked_elements(Kind kind, std::int64_t cols) {
    // A label in every lane of the first chunks, the last chunk and the tail, and
    // one past the end (no hit: the sum is 0).
    std::vector<std::int64_t> labels;
    for (std::int64_t l = 0; l < 192; ++l) labels.push_back(l);
    for (std::int64_t l = cols - 130; l < cols; ++l) labels.push_back(l);
    labels.push_back(cols);
    const auto rows = static_cast<std::int64_t>(labels.size());
    auto z = input(kind, {rows, cols}, 17);
    auto lab = input(Kind::I64, {rows}, 18);
    for (std::int64_t i = 0; i < rows; ++i) ref::write_int(lab.arg, i, labels[static_cast<std::size_t>(i)]);
    auto got = run_on(picked_by_label<T>(), cpu(), {z, lab, output(kind, {rows}), output(Kind::F32, {rows})}, {.precision = Precision::standard});
    for (auto& b : got) b.arg.data = b.bytes.data();
    for (std::int64_t i = 0; i < rows; ++i) {
        const std::int64_t at = labels[static_cast<std::size_t>(i)];
        const double want = at < cols ? ref::read_float(z.arg, i * cols + at) + 0.0 : 0.0;
        ASSERT_EQ(ref::read_float(got[2].arg, i), want) << "row " << i << ": label " << at << " of " << cols << " (lane " << at % 64 << ")";
        ASSERT_EQ(ref::read_float(got[3].arg, i), at < cols ? 1.0 : 0.0) << "row " << i;
    }
}

}  // namespace

TEST(CpuLaneSums, OneHotF32SumsKeepEveryLane) {
    one_hot_sums_are_the_picked_elements<f32>(Kind::F32, 1000);
    one_hot_sums_are_the_picked_elements<f32>(Kind::F32, 5123);
}

TEST(CpuLaneSums, OneHotF64SumsKeepEveryLane) { one_hot_sums_are_the_picked_elements<f64>(Kind::F64, 4000); }
