#include "check/verify.h"

#include <unordered_set>

#include "check/shape_rules.h"
#include "ir/attrs.h"

namespace kiln::check {

namespace {

// Every operand is defined before its use, in the same or an enclosing region.
void check_dominance(const ir::Region& r, std::unordered_set<const ir::Node*>& visible) {
    for (const ir::Node* a : r.args) visible.insert(a);
    for (const ir::Node* n : r.nodes) {
        for (const ir::Node* o : n->operands)
            if (!visible.count(o) && !(n->op == detail::OpCode::loop_result && o->op == detail::OpCode::loop))
                internal_fail("operand of '" + std::string(detail::op_name(n->op)) + "' used outside its scope");
        if (n->body) {
            auto inner = visible;
            check_dominance(*n->body, inner);
        }
        visible.insert(n);
    }
}

}  // namespace

void verify(const ir::Program& p) {
    std::unordered_set<const ir::Node*> visible;
    check_dominance(p.body, visible);
    ir::walk(p.body, [&](const ir::Node& n) {
        switch (n.op) {
            case detail::OpCode::load:
            case detail::OpCode::store:
                if (!p.params[static_cast<std::size_t>(ir::param_index(n))].is_view) internal_fail("memory access to a scalar parameter");
                break;
            case detail::OpCode::loop:
                for (int k = 0; k < ir::loop_rank(n); ++k)
                    if (n.operands[static_cast<std::size_t>(k)]->type.kind != Kind::I64) internal_fail("loop extent is not i64");
                break;
            default: break;
        }
    });
    // Stores outside the grid run once; with a grid they must sit inside it, or
    // every instance would race on them.
    if (p.grid)
        for (const ir::Node* n : p.body.nodes)
            if (n->op == detail::OpCode::store)
                fail(n->loc, "store", "a store outside the parallel nest would be performed by every instance; move it inside");
}

}  // namespace kiln::check
