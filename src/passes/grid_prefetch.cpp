#include "passes/grid_prefetch.h"

#include <unordered_set>

#include "ir/attrs.h"
#include "passes/loop_dependence.h"
#include "passes/lowered.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

// Whether v reads one of the nest's indices (v computable ahead: loop_dependence.h).
bool reads_index(const Node* v, const Node& grid, std::unordered_set<const Node*>& seen) {
    if (!seen.insert(v).second) return false;
    if (v->op == OpCode::region_arg) return v->parent == grid.body.get();
    for (const Node* o : v->operands)
        if (reads_index(o, grid, seen)) return true;
    return false;
}

}  // namespace

std::string GridPrefetch::describe() const {
    if (!why.empty()) return "no grid prefetch: " + why;
    int ahead = 0, once = 0;
    for (const Load& l : loads) (l.invariant ? once : ahead) += l.prefetched;
    return "grid prefetch: " + std::to_string(ahead) + " of " + std::to_string(loads.size()) + " loads one instance ahead, " + std::to_string(once) +
           " loaded once for every instance (" + std::to_string(words) + " registers a thread), persistent grid";
}

void grid_prefetch(Lowered& l) {
    GridPrefetch& g = l.grid_prefetch;
    const Node* grid = l.program->grid;
    const auto mode = static_cast<PrefetchMode>(l.options.grid_prefetch);
    if (mode == PrefetchMode::none) {
        g.why = "turned off (KILN_CUDA_PREFETCH=0)";
        return;
    }
    if (!grid || !grid->body || !l.layouts) {
        g.why = "no parallel nest";
        return;
    }
    if (l.layouts->cluster > 1 && !l.options.cluster_prefetch) {
        g.why = "an instance spans a cluster of CTAs, turned off there (KILN_CUDA_CLUSTER_PREFETCH=0)";
        return;
    }
    std::unordered_set<const Node*> inside, ok;
    collect_inside(*grid->body, inside);
    std::vector<std::int64_t> words;
    for (const Node* n : grid->body->nodes) {
        if (n->op != OpCode::load || !l.is_live(*n)) continue;
        GridPrefetch::Load load{n, false, false, {}};
        if (l.layouts->decision(n).how != CudaLowering::vector_access) load.why = "it does not move in vector runs";
        for (const Node* o : n->operands)
            if (load.why.empty()) load.why = dependence(o, *grid, inside, ok);
        std::unordered_set<const Node*> seen;
        load.invariant = load.why.empty();
        for (const Node* o : n->operands) load.invariant = load.invariant && !reads_index(o, *grid, seen);
        // Aligned slots (cuda_layout.h) put a vector's columns where each instance's row
        // starts: the one loaded for the first instance is not every instance's.
        if (load.why.empty() && load.invariant && l.layouts->aligned_to)
            load.why = "its slots follow each instance's row alignment (aligned slots): it is loaded with each instance";
        const bool narrow = kind_bytes(n->type.kind) < 4;
        if (load.why.empty() && !load.invariant && mode == PrefetchMode::once)
            load.why = "only loads the same for every instance go early (KILN_CUDA_PREFETCH=1)";
        if (load.why.empty() && !load.invariant && mode == PrefetchMode::once_and_narrow && !narrow)
            load.why = "a " + std::string(kind_name(n->type.kind)) + " row ahead costs more registers than it saves (KILN_CUDA_PREFETCH=3 asks for it)";
        g.loads.push_back(load);
        words.push_back((l.layouts->of(n).slots() * kind_bytes(n->type.kind) + 3) / 4);
    }
    // The budget goes to the loads the same for every instance first: each saves a
    // load per instance, where a load ahead only moves one earlier.
    for (bool invariant : {true, false})
        for (std::size_t i = 0; i < g.loads.size(); ++i) {
            GridPrefetch::Load& load = g.loads[i];
            if (!load.why.empty() || load.invariant != invariant) continue;
            if (g.words + words[i] > kPrefetchWords)
                load.why = "its " + std::to_string(words[i]) + " registers a thread would pass the prefetch budget of " + std::to_string(kPrefetchWords);
            else {
                load.prefetched = true;
                g.words += words[i];
            }
        }
    for (GridPrefetch::Load& load : g.loads) load.invariant = load.invariant && load.prefetched;
    if (g.loads.empty()) g.why = "the nest's body has no load of its own";
}

}  // namespace kiln::passes
