#include "passes/pipeline_analysis.h"

#include <unordered_set>

#include "ir/attrs.h"
#include "passes/lowered.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

// The nodes defined inside a region (nested ones included) and its arguments.
void collect_inside(const ir::Region& r, std::unordered_set<const Node*>& inside) {
    for (const Node* a : r.args) inside.insert(a);
    for (const Node* n : r.nodes) {
        inside.insert(n);
        if (n->body) collect_inside(*n->body, inside);
    }
}

// Why v cannot be computed ahead of its iteration: nothing (empty) when it depends
// only on the loop's indices, constants and values from outside the loop.
std::string dependence(const Node* v, const Node& loop, const std::unordered_set<const Node*>& inside,
                       std::unordered_set<const Node*>& ok) {
    if (ok.count(v) || !inside.count(v)) return {};
    if (v->op == OpCode::region_arg) {
        if (v->parent == loop.body.get() && ir::slot(*v) < ir::loop_rank(loop)) return {};
        return "its origin depends on state carried from the previous iteration";
    }
    if (v->op == OpCode::load) return "its origin depends on another load";
    if (ir::category(v->op) == ir::OpCategory::control || ir::category(v->op) == ir::OpCategory::memory)
        return "its origin depends on a " + std::string(detail::op_name(v->op));
    for (const Node* o : v->operands)
        if (auto why = dependence(o, loop, inside, ok); !why.empty()) return why;
    ok.insert(v);
    return {};
}

}  // namespace

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
