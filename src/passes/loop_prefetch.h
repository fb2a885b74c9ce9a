// Loop prefetch (CUDA): which loads of a loop in the parallel nest's body a thread
// issues one iteration ahead. A row walked in column chunks (an online softmax's
// running maximum and sum, a chunked LayerNorm's sums: a `serial` or `pipeline`
// loop over the chunks) otherwise waits out a load's latency every iteration: the
// chunk's loads, then its reductions' shuffles, then the next chunk's loads. With
// this, iteration t + 1's loads are in flight while iteration t computes, as the
// grid prefetch (grid_prefetch.h) does for whole rows across instances. Reading
// iteration t + 1's elements early is within the contract: the loop's own stores
// aside (a load is not moved across a store to its view), an instance reads the
// buffers as they were at launch entry.
//
// A load goes one iteration ahead when it is in the loop's body itself (not a
// nested loop), its origin depends only on the loop's indices and values from
// outside the loop (loop_dependence.h), it moves in vector runs, the loop stores
// nothing into its view, and its words fit kLoopPrefetchWords and what the grid
// prefetch left of kPrefetchWords registers a thread (the two are live at once). Any element kind:
// a thread's share of one chunk is small beside a whole row. Off by default
// (KILN_CUDA_LOOP_PREFETCH=1 turns it on): on an H100 (bench/results/gpu-20261205-s28)
// it sped the chunked softmax and LayerNorm of bench/rows_bench_lib.cpp up by 1.05x
// in geometric mean over eight problems, up to 1.23x, but slowed two (f32 chunked
// LayerNorm at 5123 columns 0.81 -> 0.66 of copy, bf16 online softmax at 8192
// 0.64 -> 0.60); the spill feedback took each thread's share down to a quarter in
// winners and losers alike, so a rule that keeps only the winners is still to find.
// KILN_CUDA_PREFETCH=0 turns it off with the grid prefetch (the kernel cache's spill
// ladder does so when the loads ahead still spill after halving each thread's share). `kiln ir --after loop_prefetch` and `kiln plan` show which
// loads go ahead and why the others do not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

struct Lowered;

// The registers a thread may spend on a loop's loads ahead: a bf16 chunk of 32
// elements a thread, or of 16 and two vectors beside it. Where they spill, the
// kernel cache first halves each thread's share of the rows (kernel_cache.cpp).
inline constexpr std::int64_t kLoopPrefetchWords = 16;

struct LoopPrefetch {
    struct Load {
        const ir::Node* load = nullptr;
        bool prefetched = false;
        std::string why;  // when not
    };
    struct Loop {
        const ir::Node* loop = nullptr;
        std::vector<Load> loads;  // the loop body's loads, in program order
        std::int64_t words = 0;   // registers a thread holds for the prefetched ones
    };
    std::vector<Loop> loops;  // the loops of the nest's body that have loads of their own
    std::string why;          // when no loop is considered at all
    // The loads of `loop` that go one iteration ahead (none: empty).
    std::vector<const ir::Node*> ahead(const ir::Node* loop) const;
    std::string describe() const;
};

void loop_prefetch(Lowered& l);

}  // namespace kiln::passes
