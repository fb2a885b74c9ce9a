#include "passes/loop_prefetch.h"

#include <algorithm>
#include <unordered_set>

#include "ir/attrs.h"
#include "passes/grid_prefetch.h"
#include "passes/loop_dependence.h"
#include "passes/lowered.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

// The view parameters the loop's body (nested loops included) stores into.
void stored_views(const ir::Region& r, std::unordered_set<int>& views) {
    for (const Node* n : r.nodes) {
        if (n->op == OpCode::store) views.insert(ir::param_index(*n));
        if (n->body) stored_views(*n->body, views);
    }
}

}  // namespace

std::vector<const Node*> LoopPrefetch::ahead(const Node* loop) const {
    std::vector<const Node*> r;
    for (const Loop& l : loops)
        if (l.loop == loop)
            for (const Load& ld : l.loads)
                if (ld.prefetched) r.push_back(ld.load);
    return r;
}

std::string LoopPrefetch::describe() const {
    if (!why.empty()) return "no loop prefetch: " + why;
    int ahead = 0, all = 0;
    std::int64_t words = 0;
    for (const Loop& l : loops) {
        for (const Load& ld : l.loads) ahead += ld.prefetched;
        all += static_cast<int>(l.loads.size());
        words = std::max(words, l.words);
    }
    return "loop prefetch: " + std::to_string(ahead) + " of " + std::to_string(all) + " loads in " + std::to_string(loops.size()) +
           " loop(s) one iteration ahead (up to " + std::to_string(words) + " registers a thread)";
}

void loop_prefetch(Lowered& l) {
    LoopPrefetch& p = l.loop_prefetch;
    const Node* grid = l.program->grid;
    if (!l.options.loop_prefetch) {
        p.why = "off (KILN_CUDA_LOOP_PREFETCH=1 turns it on)";
        return;
    }
    if (static_cast<PrefetchMode>(l.options.grid_prefetch) == PrefetchMode::none) {
        p.why = "turned off (KILN_CUDA_PREFETCH=0)";
        return;
    }
    if (!grid || !grid->body || !l.layouts) {
        p.why = "no parallel nest";
        return;
    }
    const std::int64_t budget = std::min(kLoopPrefetchWords, kPrefetchWords - l.grid_prefetch.words);
    for (const Node* loop : grid->body->nodes) {
        if (loop->op != OpCode::loop || !l.is_live(*loop) || !loop->body || ir::loop_kind(*loop) == detail::LoopKind::parallel) continue;
        LoopPrefetch::Loop entry{loop, {}, 0};
        std::unordered_set<const Node*> inside, ok;
        collect_inside(*loop->body, inside);
        std::unordered_set<int> written;
        stored_views(*loop->body, written);
        for (const Node* n : loop->body->nodes) {
            if (n->op != OpCode::load || !l.is_live(*n)) continue;
            LoopPrefetch::Load load{n, false, {}};
            if (l.layouts->decision(n).how != CudaLowering::vector_access) load.why = "it does not move in vector runs";
            else if (written.count(ir::param_index(*n))) load.why = "the loop stores into its view";
            for (const Node* o : n->operands)
                if (load.why.empty()) load.why = dependence(o, *loop, inside, ok);
            const std::int64_t words = (l.layouts->of(n).slots() * kind_bytes(n->type.kind) + 3) / 4;
            if (load.why.empty() && entry.words + words > budget)
                load.why = "its " + std::to_string(words) + " registers a thread would pass the prefetch budget (" + std::to_string(budget) +
                           " left of " + std::to_string(kPrefetchWords) + " beside the grid prefetch)";
            if (load.why.empty()) {
                load.prefetched = true;
                entry.words += words;
            }
            entry.loads.push_back(load);
        }
        if (!entry.loads.empty()) p.loops.push_back(std::move(entry));
    }
    if (p.loops.empty()) p.why = "no loop of the nest's body has a load of its own";
}

}  // namespace kiln::passes
