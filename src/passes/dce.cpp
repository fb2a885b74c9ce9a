#include "passes/dce.h"

#include "ir/attrs.h"

namespace kiln::passes {

using detail::OpCode;

void dce(Lowered& l) {
    std::vector<const ir::Node*> work;
    ir::walk(l.program->body, [&](const ir::Node& n) {
        // A load with bounds check or assume can raise: it is an effect.
        bool effect = !ir::has_result(n.op) || n.op == OpCode::loop_result ||
                      (n.op == OpCode::load && ir::bounds_policy(n) != bounds::zero);
        if (effect) work.push_back(&n);
        if (n.body)
            for (const ir::Node* a : n.body->args) l.live.insert(a);
    });
    // The cpu target's kernel gets its range of instances from the host, which
    // evaluates the grid's extents (host_scalars.h): it unflattens instance
    // numbers with every extent but the first, so that one is not needed there.
    const ir::Node* grid = l.program->grid;
    bool host_grid = l.options.target == TargetKind::cpu;
    while (!work.empty()) {
        const ir::Node* n = work.back();
        work.pop_back();
        if (!l.live.insert(n).second) continue;
        for (std::size_t k = 0; k < n->operands.size(); ++k)
            if (!(host_grid && n == grid && k == 0)) work.push_back(n->operands[k]);
    }
    l.dce_done = true;
}

}  // namespace kiln::passes
