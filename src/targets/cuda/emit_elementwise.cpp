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
    switch (n.op) {
        case OpCode::iota:
            E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = (long long)" + e + ";"); }, false);
            return;
        case OpCode::full: assign([&] { return arg(0); }); return;
        case OpCode::neg: case OpCode::logical_not: case OpCode::abs: case OpCode::exp: case OpCode::log: case OpCode::sqrt:
        case OpCode::rsqrt: case OpCode::tanh: case OpCode::erf: case OpCode::sin: case OpCode::cos:
            assign([&] { return unary_expr(E, n.op, k, arg(0)); });
            return;
        case OpCode::cast: assign([&] { return cast_expr(n.operands[0]->type.kind, k, arg(0)); }); return;
        case OpCode::add: case OpCode::sub: case OpCode::mul: case OpCode::div: case OpCode::mod: case OpCode::pow:
        case OpCode::maximum: case OpCode::minimum: case OpCode::logical_and: case OpCode::logical_or: case OpCode::logical_xor:
            assign([&] { return binary_expr(E, n.op, k, arg(0), arg(1)); });
            return;
        case OpCode::eq: case OpCode::ne: case OpCode::lt: case OpCode::le: case OpCode::gt: case OpCode::ge:
            assign([&] { return compare_expr(n.op, arg(0), arg(1)); });
            return;
        case OpCode::select: assign([&] { return "(" + arg(0) + " ? " + arg(1) + " : " + arg(2) + ")"; }); return;
        default: E.unsupported(n, "no CUDA lowering for this op");
    }
}

}  // namespace kiln::cu
