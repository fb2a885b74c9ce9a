// Layout assignment for CUDA: where each value's elements live among the threads
// of a program instance, and how each op moves them. The emitter follows these
// decisions (src/targets/cuda/emit.h); it does not make its own.
//
// Distribution. A tile is seen as `rows` x `cols` (cols: its last extent; rows: the
// product of the others). Each row is cut into runs of V consecutive elements (the
// last run of a row may be partial: a ragged width keeps its vector runs), dealt to
// a group of G consecutive threads of the instance's T (G a power of two dividing
// T; T / G rows are worked on side by side), K runs per thread per row, in RR
// rounds of T / G rows. Slot j of thread t holds
//     row = (j / (K V)) * (T / G) + t / G,
//     col = ((j / V) % K) * G V + (t % G) V + j % V,
// the element (row, col) when row < rows and col < cols (other slots hold nothing).
// Narrow rows get small groups (one warp, or a few lanes, per row), wide rows all
// T threads. A value may also hold a projection of a tile's distribution: the
// `columns` one holds, in K V slots, the columns of each thread's runs (a vector
// broadcast along the rows of that tile: weights, biases, column sums); the
// `rows` one holds, in RR slots, the rows of its slots (a per-row statistic
// broadcast along the columns: a row's maximum, mean, 1/rms). A broadcast whose
// operand holds the projection of its result moves nothing, and a row reduction
// produces its result in that projection directly. A one-element value (or a
// scalar) is uniform: every thread holds it.
//
// Instances. A program whose ops all lower without staging tiles through shared
// memory (elementwise, loads and stores, broadcasts that move nothing, register
// reductions) may run several instances per CTA, each on its own T threads (as
// few as its rows need: one warp or a few lanes per narrow row), so that a CTA
// keeps enough bytes in flight; instances then synchronise on their own threads.
// A row too wide for one CTA (more than 1024 threads' share) spans a cluster of CTAs
// instead, on Hopper: T is then the cluster's threads.
//
// Aligned slots. A launch whose f16/bf16 rows do not start on a 16-byte boundary
// (5123 bf16 columns: rows at byte offsets 0, 6, 12, 2, ...) cannot move the runs
// above as aligned vectors. Where every value of an instance is one row (or its
// columns, or uniform), its layouts may instead be `shifted`: each instance computes
// `kiln_shift` (0 .. V - 1, the elements its row's first column lies past the 16-byte
// boundary before it, from the address of one load: CudaLayouts::aligned_to) and
// slot j of thread t holds column col - kiln_shift, so that every run of that load
// starts on a boundary; K covers cols + V - 1 columns, and the slots before column 0
// or past the last hold nothing. Other views' runs are aligned where they start as
// that row does (an output of the same pitch), else moved element by element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/ir.h"

namespace kiln::passes {

struct Lowered;

enum class CudaHolds { tile, columns, rows };

struct CudaLayout {
    std::int64_t count = 1;      // elements of the value
    bool uniform = false;        // a scalar or one-element value that every thread holds
    CudaHolds holds = CudaHolds::tile;
    std::int64_t rows = 1, cols = 1;  // the distributed tile (the value itself when holds is tile)
    int vec = 1;                 // V
    int group = 1;               // G: threads per row
    std::int64_t row_runs = 1;   // K: runs per thread per row
    std::int64_t row_rounds = 1; // RR: rounds of T / G rows
    int threads = 1;             // T: threads of an instance
    bool shifted = false;        // columns are slot columns less the instance's kiln_shift (aligned slots)

    std::int64_t slots() const;  // register slots per thread
    int rows_per_round() const { return threads / group; }
    // Whether a slot of some thread lies outside the value (it needs a guard).
    bool ragged_rows() const;
    bool ragged_cols() const;
    bool ragged() const { return !uniform && (ragged_rows() || ragged_cols()); }
    // Whether several threads hold the same element (projections, uniform values).
    bool replicated() const;
    // The element index held in slot j of thread t, or nothing (a host model of what
    // the emitter's index expressions compute; tests check layouts with it). `shift`:
    // the instance's kiln_shift, for a shifted layout.
    std::optional<std::int64_t> element(int t, std::int64_t j, int shift = 0) const;
    // The same distribution, whatever the value's shape (a [1, C] tile and the
    // columns projection of any [R, C] tile with the same runs are one).
    bool same_distribution(const CudaLayout& o) const;
    std::string describe(bool scalar) const;
};

// How the emitter lowers an op whose lowering depends on layouts.
enum class CudaLowering {
    local,             // thread-local (elementwise, reshape, an op on uniform values)
    broadcast_free,    // the operand holds the projection of the result: register moves only
    recompute,         // a broadcast iota or fill: recomputed per element
    row_reduce,        // over each row (the last axis) in registers, shuffles over the group
    column_reduce,     // over the rows (leading axes) in registers, partials exchanged
    full_reduce,       // every element of a tile in registers, shuffles and an exchange
    ordered_fold,      // exact float sum: staged, one thread per output, in order
    staged,            // the operand staged through shared memory
    padded_transpose,  // a 2-D transpose staged in rows padded to an odd pitch (no bank conflicts)
    vector_access,     // a load or store in runs (16-byte vectors when the view allows)
    element_access,    // a load or store element by element
};

struct CudaDecision {
    CudaLowering how = CudaLowering::local;
    std::string why;   // for a slow path: why the fast one was not taken
};

struct CudaLayouts {
    int threads = 32;            // T: threads per program instance
    int instances_per_cta = 1;   // P: instances a CTA runs side by side (P T threads)
    int cluster = 1;             // C: CTAs an instance spans (a cluster; each runs T / C of its threads)
    int vec = 1;                 // the kernel's widest run (elements), from its global loads and stores
    int max_run = 0;             // the longest run allowed (LowerOptions::max_run; 0: a 16-byte vector's)
    std::int64_t largest = 1;    // elements of the largest tile
    std::string packing_why;     // why instances are not packed, when they could have been
    // Aligned slots: the load whose row start sets each instance's kiln_shift (null: no
    // layout is shifted).
    const ir::Node* aligned_to = nullptr;
    std::string aligned_why;     // why the slots are not aligned, where the launch asked for it
    std::unordered_map<const ir::Node*, CudaLayout> values;
    std::unordered_map<const ir::Node*, CudaDecision> decisions;
    // The layout of a value (region arguments included).
    CudaLayout of(const ir::Node* n) const;
    CudaDecision decision(const ir::Node* n) const;
    // The natural distribution of a `rows` x `cols` tile of `count` elements.
    CudaLayout tile(std::int64_t rows, std::int64_t cols, int vec) const;
    int cta_threads() const { return threads * instances_per_cta / cluster; }
};

std::string describe(const CudaDecision& d);
// What a plan says of aligned slots: which load the slots align to, or why they do not
// ("" where the launch did not ask for them).
std::string describe_aligned_slots(const CudaLayouts& c);

void cuda_layout(Lowered& l);

// cuda_layout's last step (cuda_aligned_slots.cpp): shifts the layouts of a program
// whose instances are one row each (aligned slots, above), where the launch asks.
void align_slots(const Lowered& l, CudaLayouts& c);

}  // namespace kiln::passes
