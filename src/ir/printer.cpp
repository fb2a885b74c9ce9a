// The stable text form of a program: node numbering in program order, types with
// axis names, attributes in a fixed order. Its hash (without source locations) is
// the program's structural identity.
#include <sstream>
#include <unordered_map>

#include "check/shape_rules.h"
#include "ir/ir.h"

namespace kiln::ir {

namespace {

struct Printer {
    const Program& p;
    bool with_locs;
    std::ostringstream out;
    std::unordered_map<const Node*, int> ids;

    std::string id(const Node* n) {
        auto it = ids.find(n);
        if (it == ids.end()) it = ids.emplace(n, static_cast<int>(ids.size())).first;
        return "%" + std::to_string(it->second);
    }
    void indent(int depth) { out << std::string(static_cast<std::size_t>(depth) * 2, ' '); }

    void node(const Node& n, int depth) {
        indent(depth);
        bool has_result = n.op != OpCode::store && n.op != OpCode::yield && n.op != OpCode::stage && n.op != OpCode::loop;
        if (has_result) out << id(&n) << " = ";
        if (n.op == OpCode::loop) out << id(&n) << ": ";
        out << detail::op_name(n.op);
        if (n.op == OpCode::loop) {
            static const char* kinds[] = {"parallel", "serial", "pipeline"};
            out << " " << kinds[n.i] << " [";
            for (int k = 0; k < loop_rank(n); ++k)
                out << (k ? ", " : "") << check::axis_name(static_cast<int>(n.ints[static_cast<std::size_t>(k)])) << "=" << id(n.operands[static_cast<std::size_t>(k)]);
            out << "]";
            if (n.i == 2) out << " window=" << n.j;
            if (n.operands.size() > static_cast<std::size_t>(loop_rank(n))) {
                out << " carry(";
                for (std::size_t k = static_cast<std::size_t>(loop_rank(n)); k < n.operands.size(); ++k)
                    out << (k > static_cast<std::size_t>(loop_rank(n)) ? ", " : "") << id(n.operands[k]);
                out << ")";
            }
            out << " args(";
            for (std::size_t k = 0; k < n.body->args.size(); ++k) out << (k ? ", " : "") << id(n.body->args[k]);
            out << ") {";
            loc(n);
            out << "\n";
            for (const Node* m : n.body->nodes) node(*m, depth + 1);
            indent(depth);
            out << "}\n";
            return;
        }
        for (std::size_t k = 0; k < n.operands.size(); ++k) out << (k ? ", " : " ") << id(n.operands[k]);
        switch (n.op) {
            case OpCode::param: case OpCode::load: case OpCode::store: out << " arg" << n.i; break;
            case OpCode::view_extent: case OpCode::view_stride: out << " arg" << n.i << " dim " << n.j; break;
            case OpCode::loop_result: case OpCode::region_arg: out << " #" << n.i; break;
            case OpCode::gather: case OpCode::argmax: case OpCode::argmin: case OpCode::scan_add: case OpCode::scan_max:
            case OpCode::scan_min: case OpCode::sort_values: case OpCode::sort_indices: out << " dim " << n.i; break;
            case OpCode::topk_values: case OpCode::topk_indices: out << " dim " << n.i << " k=" << n.j; break;
            case OpCode::cast: out << " to " << kind_name(n.kind); break;
            case OpCode::stage: out << " \"" << n.s << "\""; break;
            case OpCode::mma: out << (n.flag ? " reassociate" : " ordered") << (n.j ? " tf32" : ""); break;
            case OpCode::constant: {
                out << " {";
                std::size_t count = n.data->floats.empty() ? n.data->ints.size() : n.data->floats.size();
                // The display form shortens long constants; the hashed form never does.
                std::size_t shown = with_locs ? std::min<std::size_t>(count, 16) : count;
                for (std::size_t k = 0; k < shown; ++k) {
                    out << (k ? ", " : "");
                    if (n.data->floats.empty()) out << n.data->ints[k];
                    else out << repr_float(n.data->floats[k]);
                }
                if (shown < count) out << ", ...";
                out << "}";
                break;
            }
            default: break;
        }
        if (!n.ints.empty() && n.op != OpCode::loop) {
            out << " [";
            for (std::size_t k = 0; k < n.ints.size(); ++k) out << (k ? "," : "") << n.ints[k];
            out << "]";
        }
        if (n.op == OpCode::load || n.op == OpCode::store) {
            static const char* policies[] = {"zero", "check", "assume"};
            out << " bounds=" << policies[n.j] << (n.flag ? " fallback" : "");
        }
        if (has_result) out << " : " << print_type(p, n.type);
        loc(n);
        out << "\n";
    }
    void loc(const Node& n) {
        if (with_locs && n.loc.known()) out << "  @" << n.loc.str();
    }
};

std::string print_impl(const Program& p, bool with_locs) {
    Printer pr{p, with_locs, {}, {}};
    pr.out << "kernel " << p.name << "(";
    for (std::size_t k = 0; k < p.params.size(); ++k) pr.out << (k ? ", " : "") << "arg" << k << ": " << p.params[k].spelling;
    pr.out << ")";
    if (!p.specializations.empty()) {
        pr.out << " specialized(";
        for (std::size_t k = 0; k < p.specializations.size(); ++k) {
            const auto& s = p.specializations[k];
            pr.out << (k ? ", " : "") << "arg" << s.param << (s.dim >= 0 ? ".extent(" : ".stride(") << (s.dim >= 0 ? s.dim : -s.dim - 1)
                   << ")=" << s.value;
        }
        pr.out << ")";
    }
    pr.out << " {\n";
    for (const Node* n : p.body.nodes) pr.node(*n, 1);
    pr.out << "}\n";
    return pr.out.str();
}

}  // namespace

std::string print_type(const Program&, const Type& t) {
    std::string s(kind_name(t.kind));
    if (t.dims.empty()) return s;
    return s + "[" + check::dims_str(t.dims) + "]";
}

std::string print(const Program& p) { return print_impl(p, true); }

std::string print_structure(const Program& p) { return print_impl(p, false); }

std::uint64_t structural_hash(const Program& p) {
    std::string text = print_structure(p);
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

}  // namespace kiln::ir
