// Storage of values, the distribution of work over a simdgroup's lanes, and the
// ops that compute each element on its own: constants, parameters, view
// extents, iota, full and the elementwise ops.
#include "passes/metal_lowering.h"
#include "targets/metal/emit_expr.h"
#include "targets/metal/emitter.h"

namespace kiln::mtl {

const Storage& Emitter::storage(const Node* n) const {
    auto it = storage_.find(n);
    if (it == storage_.end())
        internal_fail("metal emitter: %" + std::to_string(ids_.count(n) ? ids_.at(n) : -1) + " (" + std::string(detail::op_name(n->op)) +
                      ") used before it was emitted");
    return it->second;
}

// Threadgroup arrays hold f64 as its bits: MSL keeps no class objects there.
std::string Emitter::read(const Node* n, const std::string& index) const {
    const Storage& s = storage(n);
    if (s.space == Space::scalar) return s.name;
    const std::string at = s.name + "[" + (s.count == 1 ? "0" : index) + "]";
    if (s.kind == Kind::F64 && (s.space == Space::threadgroup || s.space == Space::constant)) return "kf64_from_bits(" + at + ")";
    return at;
}

std::string Emitter::write(const Node* n, const std::string& index, const std::string& value) const {
    const Storage& s = storage(n);
    if (s.space == Space::scalar) return s.name + " = " + value + ";";
    if (s.space == Space::constant) internal_fail("metal emitter: a write to a constant table");
    const std::string at = s.name + "[" + (s.count == 1 ? "0" : index) + "]";
    if (s.kind == Kind::F64 && s.space == Space::threadgroup) return at + " = " + paren(value) + ".bits;";
    return at + " = " + value + ";";
}

Storage Emitter::declare(const std::string& name, Kind k, std::int64_t count, bool scalar) {
    Storage s{name, Space::scalar, count, k};
    if (scalar) {
        line(mtype(k) + " " + name + ";");
    } else if (simdgroup_) {
        s.space = Space::threadgroup;
        threadgroup_.push_back("threadgroup " + (k == Kind::F64 ? std::string("ulong") : mtype(k)) + " " + name + "[" + std::to_string(count) + "];");
        threadgroup_bytes_ += count * passes::metal_value_bytes(k);
    } else {
        s.space = Space::thread;
        line(mtype(k) + " " + name + "[" + std::to_string(count) + "];");
        private_bytes_ += count * passes::metal_value_bytes(k);
    }
    return s;
}

void Emitter::define(const Node& n) { storage_[&n] = declare("v" + id(&n), n.type.kind, n.type.count(), n.type.dims.empty()); }

void Emitter::barrier() {
    line("threadgroup_barrier(mem_flags::mem_threadgroup);");
    barriers_ = true;
}

void Emitter::for_each(std::int64_t count, bool each_thread, const std::function<void(const std::string&)>& body) {
    if (count == 1 && each_thread) {
        open("");
        line("const int e = 0;");
        body("e");
        close();
        return;
    }
    if (!simdgroup_ || each_thread) {
        open("for (int e = 0; e < " + std::to_string(count) + "; ++e)");
        body("e");
        close();
        return;
    }
    open("for (int e = (int)kiln_lane; e < " + std::to_string(count) + "; e += " + std::to_string(kSimdWidth) + ")");
    body("e");
    close();
    barrier();
}

void Emitter::for_each_element(const Node& n, const std::function<void(const std::string&)>& body) {
    for_each(n.type.count(), storage(&n).space == Space::scalar, body);
}

// A constant tile is a table in constant memory (copied into threadgroup memory
// in the simdgroup lowering, where every tile an op reads is threadgroup memory);
// a scalar is a literal.
void Emitter::emit_constant(const Node& n) {
    const auto& d = *n.data;
    const Kind k = n.type.kind;
    const bool fl = is_float(k);
    auto lit = [&](std::size_t e) { return literal(k, fl ? d.floats[e] : 0.0, fl ? 0 : d.ints[e]); };
    if (n.type.dims.empty()) {
        storage_[&n] = Storage{"v" + id(&n), Space::scalar, 1, k};
        line("const " + mtype(k) + " v" + id(&n) + " = " + lit(0) + ";");
        return;
    }
    const std::string table = entry_ + "_c" + id(&n);
    const std::size_t count = static_cast<std::size_t>(n.type.count());
    if ((fl ? d.floats.size() : d.ints.size()) != count) internal_fail("metal emitter: constant data does not match its type");
    constants_ << "constant " << (k == Kind::F64 ? std::string("ulong") : mtype(k)) << " " << table << "[" << count << "] = {";
    for (std::size_t e = 0; e < count; ++e) {
        std::string v = lit(e);
        if (k == Kind::F64) v = v.substr(std::string("kf64_from_bits(").size(), v.size() - std::string("kf64_from_bits(").size() - 1);  // the bits
        constants_ << (e ? (e % 8 ? ", " : ",\n    ") : "") << v;
    }
    constants_ << "};\n";
    const Storage table_storage{table, Space::constant, static_cast<std::int64_t>(count), k};
    if (!simdgroup_) {
        storage_[&n] = table_storage;
        return;
    }
    line("// %" + id(&n) + " = constant : " + ir::print_type(p_, n.type) + " (into threadgroup memory)");
    define(n);
    for_each_element(n, [&](const std::string& e) {
        const std::string v = k == Kind::F64 ? "kf64_from_bits(" + table + "[" + e + "])" : table + "[" + e + "]";
        line(write(&n, e, v));
    });
}

// A scalar argument, as the launch block holds it (rounded or wrapped to its kind).
void Emitter::emit_param(const Node& n) {
    const Kind k = n.type.kind;
    const std::string w = launch_word(slots_.first.at(static_cast<std::size_t>(ir::param_index(n))));
    std::string v;
    switch (k) {
        case Kind::F32: case Kind::F16: case Kind::BF16: v = "as_type<float>((uint)" + w + ")"; break;
        case Kind::F64: v = "kf64_from_bits((ulong)" + w + ")"; break;
        case Kind::Bool: v = paren(w + " != 0"); break;
        default: v = "(" + mtype(k) + ")" + w; break;
    }
    storage_[&n] = Storage{"v" + id(&n), Space::scalar, 1, k};
    line("const " + mtype(k) + " v" + id(&n) + " = " + v + ";");
}

std::string Emitter::element(const Node& n, const std::string& e) {
    const Kind k = n.type.kind;
    auto operand = [&](std::size_t i) { return read(n.operands[i], e); };
    switch (ir::category(n.op)) {
        case ir::OpCategory::unary: return unary(n.op, k, operand(0));
        case ir::OpCategory::cast: return cast(n.operands[0]->type.kind, k, operand(0));
        case ir::OpCategory::binary: return binary(n.op, k, operand(0), operand(1));
        case ir::OpCategory::compare: return compare(n.op, operand(0), operand(1));
        case ir::OpCategory::select: return paren(operand(0) + " ? " + operand(1) + " : " + operand(2));
        case ir::OpCategory::leaf:
            if (n.op == OpCode::iota) return "(long)" + e;
            break;
        case ir::OpCategory::shape:
            if (n.op == OpCode::full) return read(n.operands[0], "0");
            break;
        case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan: case ir::OpCategory::contraction:
        case ir::OpCategory::movement: case ir::OpCategory::sort: case ir::OpCategory::memory: case ir::OpCategory::control: break;
    }
    internal_fail("metal emitter: '" + std::string(detail::op_name(n.op)) + "' has no element expression");
}

void Emitter::emit_elementwise(const Node& n) {
    line("// %" + id(&n) + " = " + std::string(detail::op_name(n.op)) + " : " + ir::print_type(p_, n.type));
    if (n.type.dims.empty()) {
        storage_[&n] = Storage{"v" + id(&n), Space::scalar, 1, n.type.kind};
        line("const " + mtype(n.type.kind) + " v" + id(&n) + " = " + element(n, "0") + ";");
        return;
    }
    define(n);
    for_each_element(n, [&](const std::string& e) { line(write(&n, e, element(n, e))); });
}

}  // namespace kiln::mtl
