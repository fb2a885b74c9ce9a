// Elementwise ops: thread-local on every slot (no guard: a slot past the tile's
// end computes a harmless value nobody reads). Operands have the result's dims
// or are uniform scalars.
#include "targets/cuda/emitter.h"

namespace kiln::cu {

void emit_elementwise(Emitter& E, const Node& n) {
    Kind k = n.type.kind;
    auto arg = [&](std::size_t i) { return E.at(n.operands[i]); };
    auto assign = [&](const std::function<std::string()>& expr) {
        if (Emitter::is_scalar(&n)) {
            E.line("const " + ctype(k) + " " + E.name(&n) + " = " + expr() + ";");
            return;
        }
        E.each_element(&n, [&](const std::string&, const std::string& dst) { E.line(dst + " = " + expr() + ";"); }, false);
    };
    if (n.op == OpCode::iota) {
        E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = (long long)" + e + ";"); }, false);
        return;
    }
    if (n.op == OpCode::full) return assign([&] { return arg(0); });
    assign([&] {
        std::vector<std::string> operands;
        for (std::size_t i = 0; i < n.operands.size(); ++i) operands.push_back(arg(i));
        return element_expr(E, n, operands);
    });
}

}  // namespace kiln::cu
