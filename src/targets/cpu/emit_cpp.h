// The C++ emitter: a verified Tile IR program to the source of one shared object
// exporting kiln_grid and kiln_run (cpu_abi.h). Tiles are fixed-size local arrays
// (shapes are static); every op is a loop nest over them, shaped so that the host
// compiler vectorises where the pinned order allows it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/attrs.h"
#include "ir/ir.h"
#include "ir/tile_geometry.h"

namespace kiln::native {

// What a launch specialises the source on (all of it is visible in the source,
// and so in the cache key).
struct EmitOptions {
    bool index64 = false;             // 64-bit element offsets (some view spans >= 2^31)
    std::vector<bool> unit_inner;     // per parameter: the view's innermost stride is 1
    // Precision::exact: float reductions keep the pinned left-to-right order.
    // Otherwise (standard) reduce_add of f32/f64 may sum in vector lanes and a tree.
    bool exact = false;
    // The next instance's windows prefetched while one computes (emit_prefetch.cpp);
    // KILN_CPU_PREFETCH=0 turns it off (A/B).
    bool prefetch = true;
    // Per parameter: stores to this view may write around the caches (cpu_prelude.h:
    // stream_store): its innermost stride is 1 and it spans at least the last-level
    // cache, so nothing written is read again from the cache. Of those stores only
    // the ones whose value is computed in one pass over loads do (Emitter::streams).
    // KILN_CPU_STREAM_STORES=0 turns it off (A/B), =2 on for every view with a unit
    // innermost stride and every store to it (stream_every_store; tests).
    std::vector<bool> stream_stores;
    bool stream_every_store = false;
};

struct Emitted {
    std::string source;
    // The program's loads and stores in emitter order: Status::access indexes it.
    std::vector<const ir::Node*> accesses;
    // Bytes of tile storage in kiln_run's frame, for sizing worker stacks.
    std::int64_t frame_bytes = 0;
    // How each mma is computed, and why not faster (passes/contraction.h).
    std::vector<std::string> contractions;
    // How the emitter computes or holds a value, where it decided something
    // (read in place, fused, selection, vector lanes ...), for the plan.
    std::unordered_map<const ir::Node*, std::string> notes;
};

Emitted emit_cpp(const ir::Program& p, const EmitOptions& options);

// Whether a store writes around the caches (cpu_prelude.h: stream_store), or why not:
// its view does not take streaming stores (EmitOptions::stream_stores), its rows are
// shorter than a 64-byte line, or its value is not computed in one pass over loads
// (a reduction or a scan feeds it: its rows are in the caches already).
enum class StoreStreaming { streams, view_not_eligible, rows_under_a_line, value_not_one_pass };
StoreStreaming store_streaming(const ir::Node& store, const EmitOptions& options);

// The largest data cache of this machine in bytes (its L3, else L2; 32 MiB where
// neither can be read): views spanning at least this much take streaming stores.
std::int64_t last_level_cache_bytes();

}  // namespace kiln::native
