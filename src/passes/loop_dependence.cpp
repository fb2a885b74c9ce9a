#include "passes/loop_dependence.h"

#include "ir/attrs.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

void collect_inside(const ir::Region& r, std::unordered_set<const Node*>& inside) {
    for (const Node* a : r.args) inside.insert(a);
    for (const Node* n : r.nodes) {
        inside.insert(n);
        if (n->body) collect_inside(*n->body, inside);
    }
}

std::string dependence(const Node* v, const Node& loop, const std::unordered_set<const Node*>& inside, std::unordered_set<const Node*>& ok) {
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

}  // namespace kiln::passes
