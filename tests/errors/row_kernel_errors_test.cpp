// Must-fail programs: row kernels written the way examples/row_kernels.h writes
// them (one row per instance, f32 math on bf16 rows, parameter vectors broadcast
// along the row), each with one mistake a user makes there: a coordinate of the
// wrong rank, a vector on an axis the row does not have, a reduction or a store
// that does not fit. (A kind left uncast does not compile: tests/compile_fail.)
#include "must_fail.h"

using namespace kiln;
using must_fail::trace;

using Rows = View<const bf16, 2>;
using Vec = View<const bf16, 1>;
using Out = View<bf16, 2>;

TEST(RowKernelErrors, Coordinates) {
    must_fail::expect({
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) (void)x[coord(n.index()), shape(axis("r", 1), c)]; })); },
         "load: coord has 1 components for argument 0 (View<const bf16, 2>)"},
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) (void)x[coord(n.index(), 0, 0), shape(c)]; })); },
         "load: shape has rank 1 for argument 0 (View<const bf16, 2>)"},
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) (void)x[coord(n.index(), 0), shape(r, c, axis("z", 1))]; })); },
         "load: shape has rank 3 for argument 0 (View<const bf16, 2>)"},
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("b", 2), axis("rows", 2)))) (void)x[coord(n.index(), 0), shape(axis("r", 1), c)]; })); },
         "index: this nest has 2 dimensions; name the axis: nest.index(axis)"},
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) (void)x[coord(n.index(axis("cols", 4)), 0), shape(axis("r", 1), c)]; })); },
         "index: axis 'cols' is not a dimension of this nest or its ancestors"},
        // The store's coordinate written for the loss vector, on the 2-D output.
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) y(coord(n.index()), shape(r, c)).store(x[coord(n.index(), 0), shape(r, c)]); })); },
         "store: coord has 1 components for argument 1 (View<bf16, 2>)"},
        // A row width computed to nothing (4 columns minus 4).
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>() - 4); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) (void)x[coord(n.index(), 0), shape(r, c)]; })); },
         "shape: axis 'c' of extent 0 (read from a launch argument) sizes a tile; a tile's extents are positive"},
    });
}

TEST(RowKernelErrors, ParameterVectors) {
    must_fail::expect({
        // The weight loaded on an axis of its own: named axes broadcast by identity, so
        // the product is every row element times every weight, which the store refuses.
        {__LINE__ + 1, [] { trace(kernel("k", [](Rows x, Vec w, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) {
                            y(coord(n.index(), 0), shape(r, c)).store(cast<bf16>(cast<f32>(x[coord(n.index(), 0), shape(r, c)]) * cast<f32>(w[coord(0), shape(axis("k", x.extent<1>()))]))); } })); },
         "store: shape mismatch: value 1x4x4 (r, c, k) vs destination 1x4 (r, c)"},
        // The weight loaded with the row's shape from a 1-D view.
        {__LINE__, [] { trace(kernel("k", [](Rows x, Vec w, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) (void)w[coord(0), shape(r, c)]; })); },
         "load: shape has rank 2 for argument 1 (View<const bf16, 1>)"},
        // A bias one element shorter than the row, on a new axis that reuses the name c.
        {__LINE__ + 1, [] { trace(kernel("k", [](Rows x, Vec b, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) {
                            y(coord(n.index(), 0), shape(r, c)).store(cast<bf16>(cast<f32>(x[coord(n.index(), 0), shape(r, c)]) + cast<f32>(b[coord(0), shape(axis("c", x.extent<1>() - 1))]))); } })); },
         "store: shape mismatch: value 1x4x3 (r, c, c) vs destination 1x4 (r, c); two different axes are named 'c' (each axis(...) call makes a new axis: make it once and use it)"},
    });
}

TEST(RowKernelErrors, ReductionsAndStores) {
    must_fail::expect({
        // Reducing along the grid's axis (an index, not a dimension of the row tile).
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) (void)reduce(cast<f32>(x[coord(n.index(), 0), shape(r, c)]), axis("rows", 4), add); })); },
         "reduce: axis 'rows' is not a dimension of a tile of shape 1x4 (r, c)"},
        // The row sum (shape r) stored as if it were the row.
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) y(coord(n.index(), 0), shape(r, c)).store(cast<bf16>(reduce(cast<f32>(x[coord(n.index(), 0), shape(r, c)]), c, add))); })); },
         "store: shape mismatch: value 1 (r) vs destination 1x4 (r, c)"},
        // A store whose shape names the columns first.
        {__LINE__, [] { trace(kernel("k", [](Rows x, Out y) { auto r = axis("r", 1), c = axis("c", x.extent<1>()); for (auto& n : parallel(shape(axis("rows", x.extent<0>())))) y(coord(n.index(), 0), shape(c, r)).store(x[coord(n.index(), 0), shape(r, c)]); })); },
         "store: instance 0 and instance 1 both write element (1, 0) of argument 1 (View<bf16, 2>)"},
    });
}
