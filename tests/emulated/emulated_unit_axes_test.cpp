// Unit axes hold no order (src/passes/cuda_layout.cpp: last_wide_dim): a [1, c] row
// used in a [c, 1] expression (a cross-entropy mask written iota(c) == label) stays
// one row of c in registers, the broadcast that moves its unit axis a register alias,
// and tiles whose own last axis is a unit one ([c, 1], loaded and stored) read and
// write element by element. On the emulated cuda target, bit for bit with the
// interpreter in exact precision and within its bytes in standard too.
#include <gtest/gtest.h>

#include "cuda_emulator.h"
#include "interp_bytes.h"
#include "tests/unit/cpu_diff.h"

using namespace kiln;
using cpu_diff::Buffer;
using emulated::expect_interp_bytes;

namespace {

// Cross-entropy loss and gradient with the mask in either axis order.
Kernel cross_entropy(bool iota_first) {
    return kernel(iota_first ? "ce_iota_first" : "ce_label_first",
                  [iota_first](View<const f32, 2> logits, View<const i64, 1> labels, View<f32, 1> loss, View<f32, 2> gradient) {
                      auto r = axis("r", 1), c = axis("c", logits.extent(1));
                      for (auto& nest : parallel(shape(axis("rows", logits.extent(0))))) {
                          auto origin = coord(nest.index(), 0);
                          auto z = logits[origin, shape(r, c)];
                          auto label = labels[coord(nest.index()), shape(r)];
                          auto peak = reduce(z, c, maximum);
                          auto e = exp(z - peak);
                          auto total = reduce(e, c, add);
                          auto hit = iota_first ? iota(c) == label : label == iota(c);
                          loss(coord(nest.index()), shape(r)).store(log(total) + peak - reduce(ite(hit, z, 0.0f), c, add));
                          gradient(origin, shape(r, c)).store(e / total - ite(label == iota(c), 1.0f, 0.0f));
                      }
                  });
}

// A column of a matrix as a [c, 1] tile: loaded, scaled by its own sum, stored back
// into a column of another ([c, 1] tiles whose last axis is a unit one).
Kernel column_scale() {
    return kernel("column_scale", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", x.extent(0)), one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("cols", x.extent(1))))) {
            auto origin = coord(0, nest.index());
            auto v = x[origin, shape(c, one)];
            y(origin, shape(c, one)).store(v / reduce(abs(v), c, add));
        }
    });
}

}  // namespace

TEST(EmulatedUnitAxes, TheMaskInEitherAxisOrderMatchesTheInterpreter) {
    for (bool iota_first : {true, false}) {
        SCOPED_TRACE(iota_first ? "iota(c) == label" : "label == iota(c)");
        for (std::int64_t cols : {1000, 64, 5123}) {
            SCOPED_TRACE(cols);
            std::vector<Buffer> bufs = {cpu_diff::input(Kind::F32, {7, cols}, 401), cpu_diff::input(Kind::I64, {7}, 402, 0, static_cast<double>(cols)),
                                        cpu_diff::output(Kind::F32, {7}), cpu_diff::output(Kind::F32, {7, cols})};
            expect_interp_bytes(cross_entropy(iota_first), bufs);
        }
    }
}

TEST(EmulatedUnitAxes, ATileWhoseLastAxisIsAUnitOneMatchesTheInterpreter) {
    for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{300, 5}, {64, 33}, {1000, 2}}) {
        SCOPED_TRACE(rows);
        std::vector<Buffer> bufs = {cpu_diff::input(Kind::F32, {rows, cols}, 403), cpu_diff::output(Kind::F32, {rows, cols})};
        expect_interp_bytes(column_scale(), bufs);
    }
}
