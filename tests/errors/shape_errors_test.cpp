// Must-fail programs: shapes. Tiles whose shapes do not fit the operation, as
// plain C++ values (eager) and inside kernels (traced): the same rules and the
// same words either way, naming the line of the offending call.
#include "must_fail.h"

using namespace kiln;
using must_fail::trace;

TEST(ShapeErrors, Elementwise) {
    auto m = axis("m", 2), n = axis("n", 3);
    must_fail::expect({
        {__LINE__, [] { (void)(zeros(2, 3) + zeros(3, 2)); },                                  "add: shape mismatch: 2x3 vs 3x2"},
        {__LINE__, [&] { (void)(zeros<f32>(shape(m, n)) + zeros<f32>(shape(3, 2))); },        "add: shape mismatch: 2x3 (m, n) vs 3x2"},
        {__LINE__, [] { (void)(zeros(2, 3) < zeros(2, 2)); },                                  "lt: shape mismatch: 2x3 vs 2x2"},
        {__LINE__, [] { (void)maximum(zeros(1, 3), zeros(3, 1)); },                            "maximum: shape mismatch: 1x3 vs 3x1"},
        {__LINE__, [] { (void)ite(zeros<bool>(2, 2), zeros(2, 3), zeros(2, 3)); },             "ite: shape mismatch: 2x2 vs 2x3"},
        {__LINE__, [] { (void)ite(zeros<bool>(2, 3), zeros(2, 3), zeros(3, 2)); },             "ite: shape mismatch: 2x3 vs 3x2"},
        {__LINE__, [] { (void)zip(zeros(2, 3), zeros(3, 2), [](Scalar<f64> a, Scalar<f64> b) { return a + b; }); }, "zip: shape mismatch: 2x3 vs 3x2"},
        {__LINE__, [] { (void)sub_rows(zeros<f32>(2, 3), zeros<f32>(3, 1)); },                 "broadcast_rows: shape mismatch: 2x3 vs 3x1 (expected a 2x1 tile)"},
        {__LINE__, [] { (void)broadcast_cols(zeros(2, 3), zeros(1, 2), [](Scalar<f64> a, Scalar<f64> b) { return a * b; }); },
         "broadcast_cols: shape mismatch: 2x3 vs 1x2 (expected a 1x3 tile)"},
    });
}

TEST(ShapeErrors, Construction) {
    auto m = axis("m", 2);
    must_fail::expect({
        {__LINE__, [] { (void)zeros(0, 3); },                                                   "full: non-positive shape: 0x3"},
        {__LINE__, [] { (void)filled(2, -1, 1.5); },                                            "full: non-positive shape: 2x-1"},
        {__LINE__, [] { (void)arange(-2, 2); },                                                 "arange: non-positive shape: -2x2"},
        {__LINE__, [&] { (void)zeros<f32>(shape(m, m)); },                                      "full: axis 'm' appears twice in shape 2x2 (m, m)"},
        {__LINE__, [&] { (void)full<f32>(shape(m), zeros<f32>(shape(m))); },                    "full: the fill value must be a scalar, got shape 2 (m)"},
        {__LINE__, [] { (void)zeros<i8>(shape(std::int64_t{1} << 21, std::int64_t{1} << 20)); }, "shape: tile too large: more than 2^40 elements (2 dimensions, one of extent 1048576)"},
        {__LINE__, [] { (void)from_vec(std::vector<double>{1, 2, 3}, 2, 2); },                 "from_vec: got 3 values for a 2x2 tile"},
    });
}

TEST(ShapeErrors, Rearrangement) {
    auto m = axis("m", 3), n = axis("n", 2);
    must_fail::expect({
        {__LINE__, [] { (void)reshape(zeros(2, 3), shape(4, 2)); },                             "reshape: element count differs: 2x3 has 6, 4x2 has 8"},
        {__LINE__, [] { (void)permute(zeros(2, 3), {0, 0}); },                                  "permute: order is not a permutation of the tile's dimensions"},
        {__LINE__, [] { (void)permute(zeros(2, 3), {1, 0, 2}); },                               "permute: order has 3 entries for a rank-2 tile"},
        {__LINE__, [] { (void)permute(zeros(2, 3), {0, 2}); },                                  "permute: order is not a permutation of the tile's dimensions"},
        {__LINE__, [&] { (void)transpose(zeros<f32>(shape(m))); },                              "transpose: needs a tile of rank 2 or more, got rank 1"},
        {__LINE__, [&] { (void)gather(zeros<f32>(shape(m, n)), zeros<i64>(shape(m)), m); },     "gather: index shape 3 (m) must be the source's shape without the gathered axis: 2 (n)"},
        {__LINE__, [&] { (void)gather(zeros<f32>(shape(m)), zeros<i64>(shape(n)), n); },        "gather: axis 'n' is not a dimension of a tile of shape 3 (m)"},
        {__LINE__, [&] { (void)reindex(zeros<f32>(shape(m, n)), shape(m, n), [&](const Nest& p) { return coord(p.index(m)); }); },
         "reindex: the coordinate has 1 components for a rank-2 tile"},
        {__LINE__, [&] { (void)reindex(zeros<f32>(shape(m)), shape(m, n), [&](const Nest& p) { return coord(p.index()); }); },
         "index: this element nest has 2 dimensions; name the axis"},
        {__LINE__, [&] { (void)reindex(zeros<f32>(shape(m)), shape(m), [&](const Nest& p) { return coord(p.index(n)); }); },
         "index: axis 'n' is not a dimension of the reindexed shape"},
    });
}

TEST(ShapeErrors, Reductions) {
    auto m = axis("m", 2), n = axis("n", 3), k = axis("k", 4);
    must_fail::expect({
        {__LINE__, [&] { (void)reduce(zeros<f32>(shape(m, n)), k, add); },                     "reduce: axis 'k' is not a dimension of a tile of shape 2x3 (m, n)"},
        {__LINE__, [&] { (void)reduce(zeros<f32>(shape(m, n)), shape(m, m), maximum); },       "reduce (maximum): an axis is named twice"},
        {__LINE__, [&] { (void)reduce(zeros<f32>(shape(m, n)), Shape{}, minimum); },           "reduce (minimum): no axis to reduce"},
        {__LINE__, [&] { (void)scan(zeros<f32>(shape(m)), n, add); },                          "scan: axis 'n' is not a dimension of a tile of shape 2 (m)"},
        {__LINE__, [&] { (void)argmax(zeros<f32>(shape(m)), n); },                             "argmax: axis 'n' is not a dimension of a tile of shape 2 (m)"},
        {__LINE__, [&] { (void)sort(zeros<i32>(shape(m)), k); },                               "sort: axis 'k' is not a dimension of a tile of shape 2 (m)"},
        {__LINE__, [&] { (void)topk(zeros<f32>(shape(n)), n, 4); },                            "topk: k = 4 outside 1..3"},
        {__LINE__, [&] { (void)topk(zeros<f32>(shape(n)), n, 0); },                            "topk: k = 0 outside 1..3"},
        {__LINE__, [] { (void)reduce_rows(zeros<f64>(shape(axis("v", 3))), 0.0, [](Scalar<f64> a, Scalar<f64> b) { return a + b; }); },
         "reduce_rows: needs a 2-D tile, got 3 (v)"},
        {__LINE__, [&] { (void)layer_norm(zeros<f32>(shape(m, n)), k); },                      "layer_norm: axis 'k' is not a dimension of a tile of shape 2x3 (m, n)"},
        {__LINE__, [&] { (void)rms_norm(zeros<f32>(shape(m, n)), Axis::anonymous_dim(3)); },   "rms_norm: needs a named axis (axis(\"name\", extent))"},
    });
}

TEST(ShapeErrors, Contractions) {
    auto m = axis("m", 2), n = axis("n", 2), k = axis("k", 3), k2 = axis("k2", 4), x = axis("x", 2);
    must_fail::expect({
        {__LINE__, [] { (void)dot(zeros(2, 3), zeros(2, 3)); },                                 "dot: inner dimensions differ: 2x3 vs 2x3"},
        {__LINE__, [] { (void)dot(zeros<f64>(shape(2, 3, 1)), zeros(3, 2)); },                  "dot: needs 2-D tiles, got 2x3x1 and 3x2"},
        {__LINE__, [&] { (void)mma(zeros<f32>(shape(m, k)), zeros<f32>(shape(k2, n)), zeros<f32>(shape(m, n))); },
         "mma: axis 'k' of the first operand is neither contracted nor in the accumulator: 2x3 (m, k) x 4x2 (k2, n) -> 2x2 (m, n)"},
        {__LINE__, [&] { (void)mma(zeros<f32>(shape(m, k)), zeros<f32>(shape(k, n)), zeros<f32>(shape(m, x))); },
         "mma: accumulator axis 'x' is in neither operand: 2x3 (m, k) x 3x2 (k, n) -> 2x2 (m, x)"},
        {__LINE__, [&] { (void)mma(zeros<f32>(shape(m, k)), zeros<f32>(shape(k, n, k2)), zeros<f32>(shape(m, n))); },
         "mma: axis 'k2' of the second operand is neither contracted nor in the accumulator: 2x3 (m, k) x 3x2x4 (k, n, k2) -> 2x2 (m, n)"},
        {__LINE__, [] { (void)mma(zeros<f32>(shape(2, 3)), zeros<f32>(shape(4, 2)), zeros<f32>(shape(2, 2))); },
         "mma: inner dimensions differ: 2x3 x 4x2 -> 2x2"},
        {__LINE__, [] { (void)mma(zeros<f32>(shape(2, 3, 1)), zeros<f32>(shape(3, 2)), zeros<f32>(shape(2, 2))); },
         "mma: positional mma needs 2-D tiles: 2x3x1 x 3x2 -> 2x2"},
        {__LINE__, [] { (void)attention(zeros<f32>(4, 8), zeros<f32>(4, 6), zeros<f32>(4, 8), 2); }, "attention: expects q [n, d], k [m, d], v [m, dv]"},
        {__LINE__, [] { (void)attention(zeros<f32>(4, 8), zeros<f32>(4, 8), zeros<f32>(4, 8), 0); }, "attention: block must be positive"},
    });
}

// Inside a kernel the same rules apply when it is traced (at its first launch),
// and the message names the kernel's line, not the launch's.
TEST(ShapeErrors, Traced) {
    auto m = axis("m", 4), n = axis("n", 4);
    must_fail::expect({
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 2> y) { (void)(y[coord(0, 0), shape(m, n)] + y[coord(0, 0), shape(2, 8)]); })); },
         "add: shape mismatch: 4x4 (m, n) vs 2x8"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 2> y) { (void)reshape(y[coord(0, 0), shape(m, n)], shape(3, 5)); })); },
         "reshape: element count differs: 4x4 (m, n) has 16, 3x5 has 15"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 2> y) { (void)reduce(y[coord(0, 0), shape(m, n)], axis("z", 4), add); })); },
         "reduce: axis 'z' is not a dimension of a tile of shape 4x4 (m, n)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 1> y) { (void)mma(y[coord(0), shape(m)], y[coord(0), shape(m)], zeros<f32>(shape(n))); })); },
         "mma: accumulator axis 'n' is in neither operand: 4 (m) x 4 (m) -> 4 (n)"},
        {__LINE__, [&] { trace(kernel("k", [&](View<f32, 2> y) { for (auto& g : parallel(shape(axis("g", 1)))) y(coord(g.index(), 0), shape(m, n)).store(zeros<f32>(shape(n, 2))); })); },
         "store: shape mismatch: value 4x2 (n, _) vs destination 4x4 (m, n)"},
    });
}
