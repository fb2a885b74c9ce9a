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

}  // namespace kiln::native
