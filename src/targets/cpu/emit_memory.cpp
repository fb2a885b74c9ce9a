// What crosses the kernel's boundary: constants (namespace-scope arrays with
// exact literals), scalar parameters, and view loads and stores with their bounds
// policies. An access whose box lies inside the view takes a fast path of
// constant-trip loops (32- or 64-bit offsets, the launch's index width); a
// partial box goes to the prelude's generic window walk (bounds::zero) or
// reports the first element outside (bounds::check, bounds::assume).
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "interp/eval.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

std::string literal(Kind k, double f, std::int64_t i) {
    char buf[64];
    if (k == Kind::F32) {
        float x = static_cast<float>(f);
        if (std::isfinite(x)) {
            std::snprintf(buf, sizeof buf, "%af", static_cast<double>(x));
        } else {
            std::uint32_t bits;
            std::memcpy(&bits, &x, 4);
            std::snprintf(buf, sizeof buf, "__builtin_bit_cast(float, 0x%08xu)", bits);
        }
        return buf;
    }
    if (is_float(k)) {
        if (std::isfinite(f)) {
            std::snprintf(buf, sizeof buf, "%a", f);
        } else {
            std::uint64_t bits;
            std::memcpy(&bits, &f, 8);
            std::snprintf(buf, sizeof buf, "__builtin_bit_cast(double, 0x%016llxULL)", static_cast<unsigned long long>(bits));
        }
        return buf;
    }
    if (k == Kind::I64) return i == INT64_MIN ? "(-9223372036854775807LL - 1)" : std::to_string(i) + "LL";
    if (k == Kind::I32 && i == INT32_MIN) return "(-2147483647 - 1)";
    return std::to_string(i);
}

void Emitter::emit_constant(const Node& n) {
    const bool array = !n.type.dims.empty();
    storage_[&n] = Storage{"v" + id(&n), array, n.type.count()};
    if (!constants_done_.insert(&n).second) return;
    const auto& d = *n.data;
    const bool fl = is_float(n.type.kind);
    const std::size_t count = fl ? d.floats.size() : d.ints.size();
    if (static_cast<std::int64_t>(count) != n.type.count()) internal_fail("cpu emitter: constant data does not match its type");
    auto lit = [&](std::size_t k) { return literal(n.type.kind, fl ? d.floats[k] : 0.0, fl ? 0 : d.ints[k]); };
    const std::string T = ctype(n.type.kind), name = "v" + id(&n);
    if (!array) {
        globals_ << "const " << T << " " << name << " = " << lit(0) << ";\n";
        return;
    }
    globals_ << "alignas(64) const " << T << " " << name << "[" << count << "] = {";
    for (std::size_t k = 0; k < count; ++k) globals_ << (k ? (k % 8 ? ", " : ",\n    ") : "") << lit(k);
    globals_ << "};\n";
}

// A scalar argument, rounded or wrapped once to the parameter's kind.
void Emitter::emit_param(const Node& n) {
    const Kind k = n.type.kind;
    const std::string a = "args[" + std::to_string(n.i) + "]";
    std::string value;
    switch (k) {
        case Kind::F32: value = "kiln_cpu::r32(" + a + ".f)"; break;
        case Kind::F16: value = "kiln_cpu::r16(" + a + ".f)"; break;
        case Kind::BF16: value = "kiln_cpu::rbf16(" + a + ".f)"; break;
        case Kind::F64: value = a + ".f"; break;
        case Kind::Bool: value = "(unsigned char)(" + a + ".i != 0)"; break;
        default: value = "(" + ctype(k) + ")" + a + ".i"; break;
    }
    storage_[&n] = Storage{"v" + id(&n), false, 1};
    line("const " + ctype(k) + " v" + id(&n) + " = " + value + ";");
}

int Emitter::access_number(const Node& n) {
    auto it = access_ids_.find(&n);
    if (it != access_ids_.end()) return it->second;
    access_ids_.emplace(&n, static_cast<int>(accesses_.size()));
    accesses_.push_back(&n);
    return static_cast<int>(accesses_.size()) - 1;
}

namespace {

const char* policy_name(std::int64_t j) {
    static const char* names[] = {"zero", "check", "assume"};
    return names[j];
}

// "o[0] * s0 + o[1] * s1": an element offset in the launch's index width.
std::string offset_sum(int rank, const std::string& index_of, const std::vector<std::string>& strides) {
    std::string s;
    for (int k = 0; k < rank; ++k) {
        std::string idx = index_of + std::to_string(k);
        const std::string& st = strides[static_cast<std::size_t>(k)];
        s += (k ? " + " : "") + (st == "1" ? idx : idx + " * " + st);
    }
    return s;
}

}  // namespace

// The lines every access shares: its view, origin and box; returns the stride
// names of the fast path (a literal 1 for a unit innermost stride the launch
// guarantees).
static std::vector<std::string> access_header(Emitter& e, const Node& n, int rank, const std::vector<ir::Dim>& dims, bool unit_inner) {
    e.line("const kiln_cpu::View& view = args[" + std::to_string(n.i) + "].view;");
    std::string o = "const long long o[" + std::to_string(rank) + "] = {", box = "static const int n[" + std::to_string(rank) + "] = {";
    for (int k = 0; k < rank; ++k) {
        o += (k ? ", " : "") + e.at(n.operands[static_cast<std::size_t>(k)], "0");
        box += (k ? ", " : "") + std::to_string(dims[static_cast<std::size_t>(k)].extent);
    }
    e.line(o + "};");
    e.line(box + "};");
    std::vector<std::string> strides;
    for (int k = 0; k < rank; ++k) strides.push_back(k == rank - 1 && unit_inner ? "1" : "s" + std::to_string(k));
    return strides;
}

static void fast_path_strides(Emitter& e, int rank, const std::vector<std::string>& strides) {
    for (int k = 0; k < rank; ++k)
        if (strides[static_cast<std::size_t>(k)] != "1")
            e.line("const kiln_index s" + std::to_string(k) + " = (kiln_index)view.stride[" + std::to_string(k) + "];");
}

std::string Emitter::access_context() const { return std::to_string(phase_) + ", " + pid_; }

void Emitter::emit_load(const Node& n) {
    const int rank = p_.params[static_cast<std::size_t>(n.i)].rank;
    const auto& dims = n.type.dims;
    const std::string K = kind_class(n.type.kind);
    line("// %" + id(&n) + " = load arg" + std::to_string(n.i) + " bounds=" + policy_name(n.j) + " : " + ir::print_type(p_, n.type));
    const std::string name = define(n);
    open("");
    auto strides = access_header(*this, n, rank, dims, opts_.unit_inner.at(static_cast<std::size_t>(n.i)));
    open("if (kiln_cpu::inside(" + std::to_string(rank) + ", o, n, view.extent))");
    fast_path_strides(*this, rank, strides);
    std::vector<std::string> base_strides;
    for (int k = 0; k < rank; ++k) base_strides.push_back("(kiln_index)view.stride[" + std::to_string(k) + "]");
    std::string base;
    for (int k = 0; k < rank; ++k) base += (k ? " + " : "") + std::string("(kiln_index)o[") + std::to_string(k) + "] * " + base_strides[static_cast<std::size_t>(k)];
    line("const " + K + "::mem* src = (const " + K + "::mem*)view.data + (" + base + ");");
    std::vector<std::int64_t> extents;
    for (auto& d : dims) extents.push_back(d.extent);
    auto vars = open_loops(extents, "i");
    std::vector<std::int64_t> rs = ref::strides_of(dims);
    std::string elem;
    for (int k = 0; k < rank; ++k) {
        auto c = rs[static_cast<std::size_t>(k)];
        elem += (k ? " + " : "") + (c == 1 ? vars[static_cast<std::size_t>(k)] : vars[static_cast<std::size_t>(k)] + " * " + std::to_string(c));
    }
    line(name + "[" + elem + "] = " + K + "::load(src[" + offset_sum(rank, "i", strides) + "]);");
    close_loops(vars);
    open_else();
    if (n.j == static_cast<std::int64_t>(bounds::zero)) {
        std::string fill = n.flag ? at(n.operands[static_cast<std::size_t>(rank)], "0") : "(" + ctype(n.type.kind) + ")0";
        line("kiln_cpu::load_window<" + K + ">(" + name + ", " + std::to_string(n.type.count()) + ", view.data, " + std::to_string(rank) +
             ", o, n, view.extent, view.stride, " + fill + ");");
    } else {
        line("return kiln_cpu::out_of_range(st, " + std::to_string(access_number(n)) + ", " + access_context() + ", " + std::to_string(rank) +
             ", o, n, view.extent);");
    }
    close();
    close();
}

void Emitter::emit_store(const Node& n) {
    const int rank = p_.params[static_cast<std::size_t>(n.i)].rank;
    const Node* value = n.operands.back();
    const auto& dims = value->type.dims;
    const std::string K = kind_class(value->type.kind);
    line("// store arg" + std::to_string(n.i) + " bounds=" + policy_name(n.j) + " : " + ir::print_type(p_, value->type));
    open("");
    auto strides = access_header(*this, n, rank, dims, opts_.unit_inner.at(static_cast<std::size_t>(n.i)));
    open("if (kiln_cpu::inside(" + std::to_string(rank) + ", o, n, view.extent))");
    fast_path_strides(*this, rank, strides);
    std::string base;
    for (int k = 0; k < rank; ++k) base += (k ? " + " : "") + std::string("(kiln_index)o[") + std::to_string(k) + "] * (kiln_index)view.stride[" + std::to_string(k) + "]";
    line(K + "::mem* dst = (" + K + "::mem*)view.data + (" + base + ");");
    std::vector<std::int64_t> extents;
    for (auto& d : dims) extents.push_back(d.extent);
    auto vars = open_loops(extents, "i");
    std::vector<std::int64_t> rs = ref::strides_of(dims);
    std::string elem;
    for (int k = 0; k < rank; ++k) {
        auto c = rs[static_cast<std::size_t>(k)];
        elem += (k ? " + " : "") + (c == 1 ? vars[static_cast<std::size_t>(k)] : vars[static_cast<std::size_t>(k)] + " * " + std::to_string(c));
    }
    line("dst[" + offset_sum(rank, "i", strides) + "] = " + K + "::store(" + at(value, elem) + ");");
    close_loops(vars);
    open_else();
    if (n.j == static_cast<std::int64_t>(bounds::zero)) {
        const Storage& s = storage(value);
        line("kiln_cpu::store_window<" + K + ">(view.data, " + (s.array ? s.name : "&" + s.name) + ", " + std::to_string(rank) +
             ", o, n, view.extent, view.stride);");
    } else {
        line("return kiln_cpu::out_of_range(st, " + std::to_string(access_number(n)) + ", " + access_context() + ", " + std::to_string(rank) +
             ", o, n, view.extent);");
    }
    close();
    close();
}

}  // namespace kiln::native
