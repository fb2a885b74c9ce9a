// Layout assignment for CUDA: where each value's elements live among the threads
// of a CTA (one program instance). A tile is held in registers spread over the
// CTA's T threads in runs of V row-major-consecutive elements, dealt to the
// threads in turn: slot j of thread t holds element
//     e = (j / V) * T * V + t * V + j % V
// (V = 1 is the plain cyclic layout e = t + j * T). V is the kernel's 16-byte
// vector length (8 for f16/bf16, 4 for f32, 2 for f64; from its global loads and
// stores), shortened for a tile until it divides the tile's element count and
// every thread has a whole run; a run never crosses a row when V divides the
// innermost extent, so loads and stores move runs as vectors. A one-element tile,
// like a scalar, is uniform: every thread holds it. Elementwise ops and reshapes
// keep their operand's layout; other ops convert (the `conversion` of a value says
// how: register reductions with shuffles, or staging through shared memory).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "ir/ir.h"

namespace kiln::passes {

struct Lowered;

struct CudaLayout {
    std::int64_t count = 1;  // elements
    int vec = 1;             // V: a run of V row-major-consecutive elements per slot group
    std::int64_t runs = 1;   // runs per thread; the last ones may lie past the tile's end
    bool uniform = false;    // a scalar or one-element tile that every thread holds
    std::int64_t slots() const { return runs * vec; }
    std::string describe(int threads, bool scalar) const;
};

struct CudaLayouts {
    int threads = 32;           // per CTA
    int vec = 1;                // the kernel's widest run (elements), from its global loads and stores
    std::int64_t largest = 1;   // elements of the largest tile
    std::unordered_map<const ir::Node*, CudaLayout> values;
    // The layout of a value (region arguments included: computed from its count).
    CudaLayout of(const ir::Node* n) const;
    CudaLayout for_count(std::int64_t count) const;
};

void cuda_layout(Lowered& l);

}  // namespace kiln::passes
