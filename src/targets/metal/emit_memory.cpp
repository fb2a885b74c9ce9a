// View loads and stores. An access covers the box [o, o + n) of its view and
// goes element by element: each element's coordinates are checked against the
// view's extents in 64 bits, its offset is computed in the launch's index width
// (kiln_index: every offset inside a view fits it). bounds::zero: outside, a
// load reads the fallback (or 0) and a store writes nothing. bounds::assume is
// masked the same way (a device kernel cannot raise, and the mask keeps the shim
// memory-safe; the interpreter is where a broken assumption is reported).
// bounds::check is refused before emission (emit_msl.cpp).
#include "targets/metal/emit_expr.h"
#include "targets/metal/emitter.h"

namespace kiln::mtl {

namespace {

std::string zero(Kind k) {
    switch (k) {
        case Kind::Bool: return "false";
        case Kind::F16: case Kind::BF16: case Kind::F32: return "0.0f";
        case Kind::F64: return "kf64(0)";
        default: return "(" + mtype(k) + ")0";
    }
}

}  // namespace

// The access's origin and the view's extents and strides (from the launch block).
static void declare_box(Emitter& E, const Node& n, int rank) {
    const int param = ir::param_index(n);
    const int first = E.slots().first.at(static_cast<std::size_t>(param));
    for (int d = 0; d < rank; ++d) {
        const std::string D = std::to_string(d);
        E.line("const long o" + D + " = " + E.read(n.operands[static_cast<std::size_t>(d)], "0") + ";");
        E.line("const long x" + D + " = " + E.launch_word(first + d) + ", s" + D + " = " + E.launch_word(first + rank + d) + ";");
    }
}

// The in-range test and the offset of tile element e (row-major in `dims`).
static std::pair<std::string, std::string> element_address(Emitter& E, const std::vector<ir::Dim>& dims, const std::string& e) {
    std::string inside, offset;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        const std::string D = std::to_string(d), c = "c" + D;
        E.line("const long " + c + " = o" + D + " + " + coordinate(e, dims, d) + ";");
        inside += (d ? " && " : "") + c + " >= 0 && " + c + " < x" + D;
        offset += (d ? " + " : "") + std::string("(kiln_index)") + c + " * (kiln_index)s" + D;
    }
    return {inside, offset};
}

void Emitter::emit_load(const Node& n) {
    const int param = ir::param_index(n);
    const int rank = p_.params[static_cast<std::size_t>(param)].rank;
    const Kind k = n.type.kind;
    line("// %" + id(&n) + " = load arg" + std::to_string(param) + " bounds=" + std::string(ir::policy_name(ir::bounds_policy(n))) + " : " +
         ir::print_type(p_, n.type));
    define(n);
    open("");
    declare_box(*this, n, rank);
    const std::string fill = ir::has_fallback(n) ? read(n.operands[static_cast<std::size_t>(rank)], "0") : zero(k);
    for_each_element(n, [&](const std::string& e) {
        auto [inside, offset] = element_address(*this, n.type.dims, e);
        line(write(&n, e, "(" + inside + ") ? " + from_memory(k, "a" + std::to_string(param) + "[" + offset + "]") + " : " + fill));
    });
    close();
}

void Emitter::emit_store(const Node& n) {
    const int param = ir::param_index(n);
    const int rank = p_.params[static_cast<std::size_t>(param)].rank;
    const Node* value = n.operands.back();
    line("// store arg" + std::to_string(param) + " bounds=" + std::string(ir::policy_name(ir::bounds_policy(n))) + " : " +
         ir::print_type(p_, value->type));
    open("");
    declare_box(*this, n, rank);
    for_each(value->type.count(), false, [&](const std::string& e) {
        auto [inside, offset] = element_address(*this, value->type.dims, e);
        line("if (" + inside + ") a" + std::to_string(param) + "[" + offset + "] = " + to_memory(value->type.kind, read(value, e)) + ";");
    });
    close();
}

}  // namespace kiln::mtl
