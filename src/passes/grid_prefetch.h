// Grid prefetch (CUDA): which loads of the parallel nest's body a CTA issues one
// instance ahead. A CTA runs a fixed number of instances in turn (the launch keeps
// the grid to the CTAs that fit on the device at once: a persistent grid), and
// while it computes instance i its registers already receive instance i + stride's
// rows. Without that, a row kernel's memory idles whenever every resident CTA is in
// its reductions at once; with it, loads are in flight all the time. Reading the
// next instance's elements early is within the contract: instances read the
// buffers as they were at launch entry, and reading what another instance writes
// is outside it (docs/semantics.md).
//
// A load whose origin does not depend on the nest's indices at all (a weight or bias
// vector broadcast over each row) reads the same elements in every instance: it is
// loaded once, before the first instance, and kept.
//
// A load is prefetched when it is in the nest's body itself (not a nested loop),
// its origin depends only on the nest's indices and values from outside it
// (loop_dependence.h), it moves in vector runs, and the prefetched words of all
// such loads fit kPrefetchWords registers a thread (they stay live across the
// whole instance). `kiln ir --after grid_prefetch` and `kiln plan` show which
// loads are prefetched and why the others are not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

struct Lowered;

// What is loaded before its instance: KILN_CUDA_PREFETCH, default `once_and_narrow`.
// Measured on an H200 (bench/results/rows-20261202, modes none / once /
// once_and_narrow): bf16 LayerNorm at 8192 columns 0.54 / 0.69 / 0.91 of copy
// bandwidth, RMSNorm 0.64 / 0.79 / 0.91. f32 rows ahead showed no gain beyond the
// drift between processes and take twice the registers of bf16 ones, so they go
// ahead only in `once_and_all`.
enum class PrefetchMode { none = 0, once = 1, once_and_narrow = 2, once_and_all = 3 };

// The registers a thread may spend on the next instance's loads and the invariant
// ones (a bf16 row at 16 elements a thread and two vectors beside it: 24).
inline constexpr std::int64_t kPrefetchWords = 24;

struct GridPrefetch {
    struct Load {
        const ir::Node* load = nullptr;
        bool prefetched = false;
        bool invariant = false;  // the same elements for every instance: loaded once, before the first
        std::string why;  // when not
    };
    std::vector<Load> loads;  // the nest body's loads, in program order
    std::int64_t words = 0;   // registers a thread holds for the prefetched ones
    std::string why;          // when no load is considered at all
    std::string describe() const;
};

void grid_prefetch(Lowered& l);

}  // namespace kiln::passes
