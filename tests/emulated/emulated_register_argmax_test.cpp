// argmax and argmin along the rows in registers (src/targets/cuda/emit_register_reduce.cpp:
// arg_combine), on the emulated cuda target, bit for bit with the interpreter's walk in
// order: the first index of the extreme value, NaN winning (the first NaN), -0 and +0
// equal (the first of them), ties (rows of repeated small integers), ragged widths, a
// row over several warps, f32, bf16, i32, i8 and bool values, and a tile of several rows.
#include <gtest/gtest.h>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "tests/unit/cpu_diff.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;

namespace {

// The index of each row's maximum and minimum, `rows` rows an instance.
template <Element T> Kernel row_extremes(std::int64_t rows) {
    return kernel("row_extremes", [rows](View<const T, 2> x, View<i64, 1> hi, View<i64, 1> lo) {
        auto r = axis("r", rows), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), rows))))) {
            auto v = x[coord(nest.index() * rows, 0), shape(r, c)];
            hi(coord(nest.index() * rows), shape(r)).store(argmax(v, c));
            lo(coord(nest.index() * rows), shape(r)).store(argmin(v, c));
        }
    });
}

template <Element T> void check(Kind k, std::int64_t rows_per_instance, std::int64_t rows, std::int64_t cols, double lo, double hi, bool specials) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    std::vector<Buffer> bufs = {cpu_diff::input(k, {rows, cols}, static_cast<unsigned>(cols * 7 + rows), lo, hi, specials),
                                cpu_diff::output(Kind::I64, {rows}), cpu_diff::output(Kind::I64, {rows})};
    expect_interp_bytes(row_extremes<T>(rows_per_instance), bufs);
    expect_interp_bytes(row_extremes<T>(rows_per_instance), bufs, Precision::standard);
}

}  // namespace

TEST(EmulatedRegisterArgmax, FloatsWithNaNsZerosOfBothSignsAndTies) {
    check<f32>(Kind::F32, 1, 16, 1000, -4, 4, true);   // NaN, +-inf, -0 among the values
    check<f32>(Kind::F32, 1, 12, 5123, -2, 2, true);   // ragged, several warps a row
    check<f32>(Kind::F32, 1, 9, 77, -1, 1, false);     // a narrow ragged row
    check<f32>(Kind::F32, 4, 10, 300, -4, 4, true);    // four rows an instance, ragged rows
    check<f32>(Kind::F32, 1, 8, 4096, -1e-40, 1e-40, false);  // subnormals and zeros of both signs
    check<bf16>(Kind::BF16, 1, 16, 2048, -2, 2, true); // bf16: many equal values
}

TEST(EmulatedRegisterArgmax, IntegersAndBoolsWithTies) {
    check<i32>(Kind::I32, 1, 16, 1000, -3, 3, true);   // a handful of values: ties everywhere, and the extremes
    check<i8>(Kind::I8, 1, 8, 333, -2, 2, false);
    check<bool>(Kind::Bool, 1, 8, 700, 0, 1, false);
}
