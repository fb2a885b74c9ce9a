// The stable text form of a program: node numbering in program order, types with
// axis names, attributes in a fixed order. Its hash (without source locations) is
// the program's structural identity.
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "ir/attrs.h"
#include "ir/axis_names.h"
#include "ir/ir.h"

namespace kiln::ir {

namespace {

// The printer's output, appended to a string. Not an ostringstream: a stream's
// first use in a process costs about 0.15 ms, and print_structure is on a fresh
// process's warm launch (the cpu and cuda program indexes key on it).
struct Text {
    std::string s;
    Text& operator<<(std::string_view v) {
        s += v;
        return *this;
    }
    Text& operator<<(char c) {
        s += c;
        return *this;
    }
    template <class T>
        requires std::is_integral_v<T>
    Text& operator<<(T v) {
        s += std::to_string(v);
        return *this;
    }
};

struct Printer {
    const Program& p;
    bool with_locs;
    const PrintHooks* hooks = nullptr;
    Text out;
    std::unordered_map<const Node*, int> ids;

    std::string id(const Node* n) {
        auto it = ids.find(n);
        if (it == ids.end()) it = ids.emplace(n, static_cast<int>(ids.size())).first;
        return "%" + std::to_string(it->second);
    }
    void indent(int depth) { out << std::string(static_cast<std::size_t>(depth) * 2, ' '); }

    void node(const Node& n, int depth) {
        if (hooks && hooks->show && !hooks->show(n)) return;
        indent(depth);
        bool value = has_result(n.op);
        if (value) out << id(&n) << " = ";
        if (n.op == OpCode::loop) out << id(&n) << ": ";
        out << detail::op_name(n.op);
        if (n.op == OpCode::loop) {
            loop_header(n);
            loc(n);
            note(n);
            out << "\n";
            for (const Node* m : n.body->nodes) node(*m, depth + 1);
            indent(depth);
            out << "}\n";
            return;
        }
        for (std::size_t k = 0; k < n.operands.size(); ++k) out << (k ? ", " : " ") << id(n.operands[k]);
        attributes(n);
        if (value) out << " : " << print_type(p, n.type);
        loc(n);
        note(n);
        out << "\n";
    }
    void loop_header(const Node& n) {
        out << " " << loop_kind_name(loop_kind(n)) << " [";
        auto axes = loop_axes(n);
        for (std::size_t k = 0; k < axes.size(); ++k) out << (k ? ", " : "") << axis_name(static_cast<int>(axes[k])) << "=" << id(n.operands[k]);
        out << "]";
        if (loop_kind(n) == detail::LoopKind::pipeline) out << " window=" << pipeline_window(n);
        if (!loop_inits(n).empty()) {
            out << " carry(";
            for (std::size_t k = 0; k < loop_inits(n).size(); ++k) out << (k ? ", " : "") << id(loop_inits(n)[k]);
            out << ")";
        }
        out << " args(";
        for (std::size_t k = 0; k < n.body->args.size(); ++k) out << (k ? ", " : "") << id(n.body->args[k]);
        out << ") {";
    }
    void ints(Ints v) {
        out << " [";
        for (std::size_t k = 0; k < v.size(); ++k) out << (k ? "," : "") << v[k];
        out << "]";
    }
    // The attributes of ops.def's schema, in the schema's order.
    void attributes(const Node& n) {
        auto has = [&](Attr a) { return has_attr(n.op, a); };
        if (has(attr_param)) out << " arg" << param_index(n);
        if (has(attr_view_dim)) out << " dim " << view_dim(n);
        if (has(attr_slot)) out << " #" << slot(n);
        if (has(attr_dim)) out << " dim " << tile_dim(n);
        if (has(attr_count)) out << " k=" << topk_count(n);
        if (has(attr_to_kind)) out << " to " << kind_name(cast_to(n));
        if (has(attr_label)) out << " \"" << stage_label(n) << "\"";
        if (has(attr_mma_options)) out << (mma_options(n).allow_reassociation ? " reassociate" : " ordered") << (mma_options(n).allow_tf32 ? " tf32" : "");
        if (has(attr_data)) constant(n);
        if (has(attr_dims)) ints(reduced_dims(n));
        if (has(attr_dim_map)) ints(dim_map(n));
        if (has(attr_starts)) ints(slice_starts(n));
        if (has(attr_strides)) ints(mem_strides(n));
        if (has(attr_bounds)) out << " bounds=" << policy_name(bounds_policy(n)) << (has_fallback(n) ? " fallback" : "");
    }
    void constant(const Node& n) {
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
    }
    void note(const Node& n) {
        if (!hooks || !hooks->note) return;
        std::string text = hooks->note(n);
        if (!text.empty()) out << "  // " << text;
    }
    void loc(const Node& n) {
        if (with_locs && n.loc.known()) out << "  @" << n.loc.str();
    }
};

std::string print_impl(const Program& p, bool with_locs, const PrintHooks* hooks = nullptr) {
    Printer pr{p, with_locs, hooks, {}, {}};
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
    if (hooks)
        for (const auto& h : hooks->header) pr.out << "  // " << h << "\n";
    for (const Node* n : p.body.nodes) pr.node(*n, 1);
    pr.out << "}\n";
    return pr.out.s;
}

}  // namespace

std::string print_type(const Program&, const Type& t) {
    std::string s(kind_name(t.kind));
    if (t.dims.empty()) return s;
    return s + "[" + dims_str(t.dims) + "]";
}

std::string print(const Program& p) { return print_impl(p, true); }

std::string print(const Program& p, const PrintHooks& hooks) { return print_impl(p, hooks.locations, &hooks); }

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

namespace {
void number_region(const Region& r, std::unordered_map<const Node*, int>& ids) {
    for (const Node* n : r.nodes) {
        bool has_id = has_result(n->op) || n->op == OpCode::loop;
        if (has_id && !ids.count(n)) ids.emplace(n, static_cast<int>(ids.size()));
        if (n->body) {
            for (const Node* a : n->body->args) ids.emplace(a, static_cast<int>(ids.size()));
            number_region(*n->body, ids);
        }
    }
}
}  // namespace

std::unordered_map<const Node*, int> number_nodes(const Program& p) {
    std::unordered_map<const Node*, int> ids;
    number_region(p.body, ids);
    return ids;
}

}  // namespace kiln::ir
