// What lowering produces: the traced program (unchanged: passes do not rewrite
// the IR yet, they annotate it) and each pass's decisions about it, which the
// emitters read and `kiln ir --after PASS` prints. lower.h runs the passes.
#pragma once

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include <kiln/target.h>

#include "ir/ir.h"
#include "passes/contraction.h"
#include "passes/cuda_layout.h"
#include "passes/grid_prefetch.h"
#include "passes/loop_prefetch.h"
#include "passes/pipeline_analysis.h"

namespace kiln::passes {

enum class TargetKind { interp, cpu, cuda, metal };
std::string_view target_name(TargetKind t);

struct LowerOptions {
    TargetKind target = TargetKind::interp;
    Precision precision = Precision::standard;
    bool index64 = false;  // 64-bit element offsets (index_width sets it from the launch's views)
    int sm = 90;           // cuda: compute capability major * 10 + minor
    bool metal_thread_only = false;  // metal: KILN_METAL_LOWERING=thread (no simdgroup lowering)
    int grid_prefetch = 2;           // cuda: grid_prefetch.h's PrefetchMode (KILN_CUDA_PREFETCH)
    bool loop_prefetch = false;      // cuda: loop_prefetch.h (KILN_CUDA_LOOP_PREFETCH=1)
    int layout_split = 1;            // cuda: divides the share of a row a thread holds (cuda_layout.h)
    int elements_per_thread = 32;    // cuda: the most of its largest tile a thread holds before the CTA grows past 256 threads (cuda_layout.cpp)
    int max_run = 0;                 // cuda: the longest run of a row a thread holds (0: a 16-byte vector's; cuda_layout.h)
    bool aligned_slots = false;      // cuda: rows' runs start on one load's 16-byte boundaries (cuda_layout.h: aligned slots)
    bool cluster_rows = true;        // cuda: rows too wide for a CTA span a cluster (KILN_CUDA_CLUSTER=0: they spill instead)
    int cluster_cta_threads = 0;     // cuda: the threads of each CTA of such a cluster (0: cuda_layout.cpp's choice; KILN_CUDA_CLUSTER_CTA)
    bool cluster_prefetch = true;    // cuda: such rows load ahead of their instance too (grid_prefetch.h; KILN_CUDA_CLUSTER_PREFETCH=0: not)
    // cuda: the attention kernel may re-block keys of a program whose row maximum starts
    // at -inf, making NaN the rows the program's first key block hides (attention_match.h:
    // first_block_nan; checked on an H200 against the interpreter, bench/results/gpu-20261204-s18;
    // KILN_ATTENTION_REBLOCK_MINUS_INFINITY=0 turns it off).
    bool attention_reblock_minus_infinity = true;
    const std::vector<detail::Arg>* args = nullptr;  // the launch's arguments, when lowering for one
    bool exact() const { return precision == Precision::exact; }
};

struct Lowered {
    const ir::Program* program = nullptr;
    LowerOptions options;
    std::vector<std::string> passes_run;  // in order

    // dce: the values and effects the program needs (a node not in `live` is dead).
    bool dce_done = false;
    std::unordered_set<const ir::Node*> live;
    bool is_live(const ir::Node& n) const { return !dce_done || live.count(&n) != 0; }
    // host_scalars: scalars a launch can evaluate on the host (extents, trip counts).
    std::unordered_set<const ir::Node*> host;
    // index_width: why offsets are 64-bit, if they are.
    std::string index_reason;
    // contraction: one plan per mma, and the canonical GEMM when the program is one.
    Contractions contractions;
    // cuda_layout: where each value's elements live in a CTA.
    std::optional<CudaLayouts> layouts;
    // pipeline_analysis: the pipeline loops' stages and prefetchable loads.
    std::vector<PipelinePlan> pipelines;
    // grid_prefetch: the nest body's loads issued one instance ahead.
    GridPrefetch grid_prefetch;
    // loop_prefetch: the loads of the nest's loops issued one iteration ahead.
    LoopPrefetch loop_prefetch;
};

}  // namespace kiln::passes
