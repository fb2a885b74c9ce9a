#include "targets/cuda/view_access.h"

namespace kiln::cu::view_access {

std::string extent(const Node& n, std::size_t d) { return "a" + num(ir::param_index(n)) + "_e" + num(static_cast<std::int64_t>(d)); }
std::string stride(const Node& n, std::size_t d) { return "a" + num(ir::param_index(n)) + "_s" + num(static_cast<std::int64_t>(d)); }

std::string argument(const Node& n) {
    if (n.op == OpCode::view_extent) return extent(n, static_cast<std::size_t>(ir::view_dim(n)));
    if (n.op == OpCode::view_stride) return stride(n, static_cast<std::size_t>(ir::view_dim(n)));
    const std::string a = "a" + num(ir::param_index(n));
    return n.type.kind == Kind::Bool ? "(" + a + " != 0)" : a;
}

bool checked(const Node& n) { return ir::bounds_policy(n) != bounds::assume; }

std::vector<std::string> coordinates(Emitter& E, const Node& n, const std::vector<Dim>& dims, const std::string& e) {
    std::vector<std::string> c;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        c.push_back(E.fresh("c"));
        E.line("const long long " + c.back() + " = " + E.name(n.operands[d]) + " + " + coord(e, dims, d) + ";");
    }
    return c;
}

std::string in_range(const Node& n, std::size_t d, const std::string& c) {
    return "(unsigned long long)" + c + " < (unsigned long long)" + extent(n, d);
}

std::string offset(const Node& n, const std::vector<std::string>& c) {
    std::string s;
    for (std::size_t d = 0; d < c.size(); ++d)
        s += (s.empty() ? "" : " + ") + ("(kiln_idx)" + c[d] + " * (kiln_idx)" + stride(n, d));
    return s;
}

}  // namespace kiln::cu::view_access
