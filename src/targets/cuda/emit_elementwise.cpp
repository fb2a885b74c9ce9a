// Elementwise ops: thread-local on every slot (no guard: a slot past the tile's
// end computes a harmless value nobody reads). Operands have the result's dims
// or are uniform scalars.
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {

// x / d with one divisor per row (or one in all): kiln_rt::divisor once per divisor
// value, kiln_rt::divide per quotient (divide_by.h: the correctly rounded quotient).
void shared_divisor(Emitter& E, const Node& n) {
    const Node* source = E.decision(&n).divisor;
    auto l = E.layout(&n), ls = E.layout(source);
    const bool one = Emitter::is_scalar(source) || ls.uniform;
    const std::int64_t divisors = one ? 1 : ls.slots(), per_round = l.row_runs * l.vec;
    std::string d = E.fresh("divisor");
    E.line("kiln_rt::Divisor " + d + "[" + num(divisors) + "];");
    E.line("#pragma unroll");
    E.line("for (int p = 0; p < " + num(divisors) + "; ++p) " + d + "[p] = kiln_rt::divisor(" + (one ? E.at(source, "0") : E.name(source) + "[p]") + ");");
    std::string which = one ? "0" : per_round == 1 ? "j" : "j / " + num(per_round);
    E.each_element(&n, [&](const std::string&, const std::string& dst) {
        E.line(dst + " = " + round_float(n.type.kind, "kiln_rt::divide(" + E.at(n.operands[0]) + ", " + d + "[" + which + "])") + ";");
    }, false);
    E.note(n, "thread-local; " + num(divisors) + " reciprocal" + (divisors == 1 ? "" : "s") + " per thread, each quotient correctly rounded from it");
}

}  // namespace

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
    if (E.decision(&n).how == passes::CudaLowering::shared_divisor) return shared_divisor(E, n);
    assign([&] {
        std::vector<std::string> operands;
        for (std::size_t i = 0; i < n.operands.size(); ++i) operands.push_back(arg(i));
        return element_expr(E, n, operands);
    });
}

}  // namespace kiln::cu
