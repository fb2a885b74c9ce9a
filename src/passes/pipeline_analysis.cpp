#include "passes/pipeline_analysis.h"

#include <unordered_set>

#include "ir/attrs.h"
#include "passes/loop_dependence.h"
#include "passes/lowered.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

std::int64_t PipelinePlan::ring_bytes() const {
    std::int64_t b = 0;
    for (const Load& l : loads)
        if (l.prefetchable) b += l.bytes * window;
    return b;
}

std::string PipelinePlan::describe() const {
    int prefetched = 0;
    for (const Load& l : loads) prefetched += l.prefetchable;
    std::string s = "pipeline window " + std::to_string(window) + ": " + std::to_string(prefetched) + " of " + std::to_string(loads.size()) +
                    " loads prefetchable " + std::to_string(window - 1) + " iteration(s) ahead";
    if (prefetched) s += " (ring of " + std::to_string(ring_bytes()) + " bytes)";
    return s;
}

void pipeline_analysis(Lowered& l) {
    ir::walk(l.program->body, [&](const Node& loop) {
        if (loop.op != OpCode::loop || ir::loop_kind(loop) != detail::LoopKind::pipeline || !l.is_live(loop)) return;
        PipelinePlan plan;
        plan.loop = &loop;
        plan.window = std::max(1, ir::pipeline_window(loop));
        std::unordered_set<const Node*> inside, ok;
        collect_inside(*loop.body, inside);
        ir::walk(*loop.body, [&](const Node& n) {
            if (n.op != OpCode::load || !l.is_live(n)) return;
            PipelinePlan::Load load{&n, true, {}, n.type.count() * kind_bytes(n.type.kind)};
            if (n.parent != loop.body.get()) load.why = "it is inside a nested loop";
            for (const Node* o : n.operands)
                if (load.why.empty()) load.why = dependence(o, loop, inside, ok);
            load.prefetchable = load.why.empty();
            plan.loads.push_back(load);
        });
        l.pipelines.push_back(std::move(plan));
    });
}

}  // namespace kiln::passes
