// The emitter's driver and program structure: the lowering decision, the kernel
// function and its signature, regions, loops with their carried state, the
// grid of instances, and the translation unit (the prelude every kernel
// carries, then the kernel).
#include <algorithm>
#include <cctype>

#include "passes/metal_lowering.h"
#include "support/byte_size.h"
#include "support/names.h"
#include "targets/common/embedded_text.h"
#include "targets/metal/emit_expr.h"
#include "targets/metal/emitter.h"
#include "targets/metal/msl_dialect.h"

namespace kiln::mtl {

// What every kernel carries before its own code: Metal's library, the math
// pragmas, then kf64, kiln's rounding and math in kiln's MSL dialect, and the
// helpers (guarded, so that several kernels can share one translation unit).
const std::string& msl_prelude() {
    static const std::string text = [] {
        std::string s = "#include <metal_stdlib>\nusing namespace metal;\n\n";
        s += "// Bit-exact float arithmetic: no fast math, no contraction of a * b + c.\n";
        s += "#if defined(__METAL_VERSION__) && __METAL_VERSION__ >= 320\n#pragma METAL fp math_mode(safe)\n#pragma METAL fp contract(off)\n#endif\n\n";
        s += "#ifndef KILN_METAL_PRELUDE\n#define KILN_METAL_PRELUDE\n";
        s += "// ---- kiln_kf64.h\n" + std::string(embedded::kiln_kf64_h());
        s += "// ---- kround.h, in kiln's MSL dialect (doubles are kf64)\n#define KILN_HD inline\n" + msl_dialect(embedded::kround_h());
        s += "// ---- kmath.h, in kiln's MSL dialect\n" + msl_dialect(embedded::kmath_h());
        s += "// ---- kiln_metal.h\n" + std::string(embedded::kiln_metal_h());
        s += "#endif  // KILN_METAL_PRELUDE\n";
        return s;
    }();
    return text;
}

namespace {

constexpr std::int64_t kMaxTileElements = std::int64_t{1} << 28;
constexpr std::int64_t kMaxPrivateBytes = std::int64_t{1} << 30;

}  // namespace

// Device code cannot raise, and a few structures have no lowering here: said
// before anything is emitted, naming the user's line.
void Emitter::check_supported() const {
    ir::walk(p_.body, [&](const Node& n) {
        if (ir::has_attr(n.op, ir::attr_bounds) && ir::bounds_policy(n) == bounds::check)
            fail(n.loc, n.op == OpCode::load ? "load" : "store",
                 "device code cannot raise: bounds::check is not supported on metal; use bounds::zero or bounds::assume");
        if (n.op == OpCode::loop && ir::loop_kind(n) == detail::LoopKind::parallel && &n != p_.grid)
            fail(n.loc, "parallel", "not supported on metal: a parallel nest inside another nest");
        if (ir::has_result(n.op) && n.op != OpCode::loop && n.type.count() > kMaxTileElements)
            fail(n.loc, detail::op_name(n.op),
                 "a tile of " + std::to_string(n.type.count()) + " elements is too large for the metal target (at most 2^28 elements)");
    });
    if (p_.grid && p_.grid->operands.size() != static_cast<std::size_t>(ir::loop_rank(*p_.grid)))
        fail(p_.grid->loc, "parallel", "not supported on metal: a value carried across the instances of the parallel nest");
}

std::string Emitter::signature() const {
    std::string s;
    for (std::size_t i = 0; i < p_.params.size(); ++i) {
        const auto& q = p_.params[i];
        if (!q.is_view) continue;
        s += "    device " + std::string(q.writable ? "" : "const ") + stype(q.kind) + "* a" + std::to_string(i) + " [[buffer(" + std::to_string(i) + ")]],\n";
    }
    s += "    constant long* kiln_launch [[buffer(" + std::to_string(p_.params.size()) + ")]],\n";
    s += "    uint kiln_group [[threadgroup_position_in_grid]],\n";
    s += "    uint kiln_groups [[threadgroups_per_grid]],\n";
    s += "    uint kiln_lane [[thread_position_in_threadgroup]]";
    return s;
}

void Emitter::emit_nodes(const std::vector<Node*>& nodes) {
    for (const Node* n : nodes)
        if (lowered_.is_live(*n) && n->op != OpCode::yield) emit_node(*n);
}

void Emitter::emit_node(const Node& n) {
    switch (ir::category(n.op)) {
        case ir::OpCategory::leaf:
            if (n.op == OpCode::constant) return emit_constant(n);
            if (n.op == OpCode::param) return emit_param(n);
            if (n.op == OpCode::view_extent || n.op == OpCode::view_stride) {
                const int first = slots_.first.at(static_cast<std::size_t>(ir::param_index(n)));
                const int rank = p_.params[static_cast<std::size_t>(ir::param_index(n))].rank;
                storage_[&n] = Storage{"v" + id(&n), Space::scalar, 1, Kind::I64};
                line("const long v" + id(&n) + " = " + launch_word(first + (n.op == OpCode::view_stride ? rank : 0) + ir::view_dim(n)) + ";");
                return;
            }
            return emit_elementwise(n);  // iota
        case ir::OpCategory::control:
            if (n.op == OpCode::loop) return &n == p_.grid ? emit_grid(n) : emit_loop(n);
            if (n.op == OpCode::loop_result) {
                storage_[&n] = storage(n.operands[0]->body->args.at(static_cast<std::size_t>(ir::loop_rank(*n.operands[0]) + ir::slot(n))));
                return;
            }
            if (n.op == OpCode::stage) return line("// stage \"" + support::source_text(ir::stage_label(n)) + "\"");
            internal_fail("metal emitter: " + std::string(detail::op_name(n.op)) + " in a node list");
        case ir::OpCategory::memory:
            if (n.op == OpCode::load) return emit_load(n);
            if (n.op == OpCode::store) return emit_store(n);
            return alias(n, *n.operands[0]);  // a memory<T> resource holds its value unchanged
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast:
            return emit_elementwise(n);
        case ir::OpCategory::shape:
            if (n.op == OpCode::full) return emit_elementwise(n);
            if (n.op == OpCode::reshape) return alias(n, *n.operands[0]);  // values are immutable and row-major
            return emit_op(n);
        case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan: case ir::OpCategory::contraction:
        case ir::OpCategory::movement: case ir::OpCategory::sort:
            return emit_op(n);
    }
}

// The ops that need more than their element's operands: the result is declared
// here, the op's temporaries live in a block of their own.
void Emitter::emit_op(const Node& n) {
    line("// %" + id(&n) + " = " + std::string(detail::op_name(n.op)) + " : " + ir::print_type(p_, n.type));
    define(n);
    open("");
    switch (ir::category(n.op)) {
        case ir::OpCategory::shape: emit_relayout(n); break;
        case ir::OpCategory::reduction: emit_reduce(n); break;
        case ir::OpCategory::arg_reduction: emit_arg_reduce(n); break;
        case ir::OpCategory::scan: emit_scan(n); break;
        case ir::OpCategory::contraction: emit_mma(n); break;
        case ir::OpCategory::movement:
            if (n.op == OpCode::gather) emit_gather(n);
            else emit_reindex(n);
            break;
        case ir::OpCategory::sort: emit_sort(n); break;
        case ir::OpCategory::leaf: case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare:
        case ir::OpCategory::select: case ir::OpCategory::cast: case ir::OpCategory::memory: case ir::OpCategory::control:
            internal_fail("metal emitter: emit_op on " + std::string(detail::op_name(n.op)));
    }
    close();
}

// dst = src element by element (same kind and count; either may be a scalar).
static void copy(Emitter& E, const Storage& dst, const std::function<std::string(const std::string&)>& src) {
    E.for_each(dst.count, dst.space == Space::scalar, [&](const std::string& e) {
        const std::string at = dst.name + (dst.space == Space::scalar ? "" : "[" + std::string(dst.count == 1 ? "0" : e) + "]");
        const bool bits = dst.kind == Kind::F64 && dst.space == Space::threadgroup;
        E.line(at + " = " + (bits ? paren(src(e)) + ".bits" : src(e)) + ";");
    });
}

// A serial or pipeline loop: nested for-loops in row-major order (the
// interpreter's order); the pipeline window is a schedule hint with no semantics.
// Carried values live in slots declared before the loop, which its results name.
void Emitter::emit_loop(const Node& loop) {
    const int rank = ir::loop_rank(loop);
    const std::string L = "l" + id(&loop);
    line("// %" + id(&loop) + ": loop " + std::string(ir::loop_kind_name(ir::loop_kind(loop))));
    std::vector<Storage> slots;
    for (std::size_t k = static_cast<std::size_t>(rank); k < loop.operands.size(); ++k) {
        const Node* init = loop.operands[k];
        slots.push_back(declare(L + "_c" + std::to_string(k - static_cast<std::size_t>(rank)), init->type.kind, init->type.count(), init->type.dims.empty()));
        copy(*this, slots.back(), [&](const std::string& e) { return read(init, e); });
    }
    for (std::size_t s = 0; s < slots.size(); ++s) storage_[loop.body->args.at(static_cast<std::size_t>(rank) + s)] = slots[s];
    open("");
    std::vector<std::string> vars;
    for (int k = 0; k < rank; ++k) {
        line("const long " + L + "_n" + std::to_string(k) + " = " + read(loop.operands[static_cast<std::size_t>(k)], "0") + ";");
        vars.push_back(L + "_i" + std::to_string(k));
    }
    for (int k = 0; k < rank; ++k) {
        const std::string& v = vars[static_cast<std::size_t>(k)];
        open("for (long " + v + " = 0; " + v + " < " + L + "_n" + std::to_string(k) + "; ++" + v + ")");
        storage_[loop.body->args.at(static_cast<std::size_t>(k))] = Storage{v, Space::scalar, 1, Kind::I64};
    }
    emit_nodes(loop.body->nodes);
    for (const Node* n : loop.body->nodes)
        if (n->op == OpCode::yield) emit_yield(*n, loop, slots);
    for (int k = 0; k < rank; ++k) close();
    close();
}

// Next values of the carried slots. A slot whose next value is another slot's
// current value (a swap) is staged through a temporary first, so every slot
// reads the values of the iteration that just ended.
void Emitter::emit_yield(const Node& y, const Node& loop, const std::vector<Storage>& slots) {
    const std::string L = "l" + id(&loop) + "_c";
    std::vector<Storage> staged(y.operands.size());
    std::vector<bool> via(y.operands.size(), false);
    for (std::size_t s = 0; s < y.operands.size(); ++s) {
        const Storage& src = storage(y.operands[s]);
        if (src.name == slots[s].name || src.name.rfind(L, 0) != 0) continue;
        staged[s] = declare(fresh("next"), slots[s].kind, slots[s].count, slots[s].space == Space::scalar);
        via[s] = true;
        copy(*this, staged[s], [&](const std::string& e) { return read(y.operands[s], e); });
    }
    for (std::size_t s = 0; s < y.operands.size(); ++s) {
        if (storage(y.operands[s]).name == slots[s].name) continue;
        const Storage& from = via[s] ? staged[s] : storage(y.operands[s]);
        const bool bits = from.kind == Kind::F64 && (from.space == Space::threadgroup || from.space == Space::constant);
        copy(*this, slots[s], [&](const std::string& e) {
            const std::string at = from.name + (from.space == Space::scalar ? "" : "[" + std::string(from.count == 1 ? "0" : e) + "]");
            return bits ? "kf64_from_bits(" + at + ")" : at;
        });
    }
}

// The parallel nest: instance pid runs on thread pid (per-thread lowering) or on
// threadgroup pid (simdgroup lowering), grid-stride when there are more.
void Emitter::emit_grid(const Node& grid) {
    const int rank = ir::loop_rank(grid);
    const std::string L = "l" + id(&grid);
    line("// %" + id(&grid) + ": loop parallel (the grid): one instance per " + std::string(simdgroup_ ? "simdgroup" : "thread"));
    for (int k = 1; k < rank; ++k) line("const long " + L + "_n" + std::to_string(k) + " = " + read(grid.operands[static_cast<std::size_t>(k)], "0") + ";");
    const std::string tg = std::to_string(kThreadsPerGroup);
    if (simdgroup_) open("for (long pid = (long)kiln_group; pid < " + launch_word(0) + "; pid += (long)kiln_groups)");
    else open("for (long pid = (long)kiln_group * " + tg + " + (long)kiln_lane; pid < " + launch_word(0) + "; pid += (long)kiln_groups * " + tg + ")");
    if (rank > 1) line("long rest = pid;");
    for (int k = rank - 1; k >= 0; --k) {
        const std::string v = L + "_i" + std::to_string(k), n = L + "_n" + std::to_string(k);
        if (rank == 1) line("const long " + v + " = pid;");
        else if (k == 0) line("const long " + v + " = rest;");
        else line("const long " + v + " = rest % " + n + "; rest /= " + n + ";");
        storage_[grid.body->args.at(static_cast<std::size_t>(k))] = Storage{v, Space::scalar, 1, Kind::I64};
    }
    emit_nodes(grid.body->nodes);
    close();
}

Emitted Emitter::emit() {
    ids_ = ir::number_nodes(p_);
    entry_ = "kiln_";
    for (char c : p_.name) entry_ += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    passes::LowerOptions lo;
    lo.target = passes::TargetKind::metal;
    lo.precision = o_.exact ? Precision::exact : Precision::standard;
    lo.index64 = o_.index64;
    lo.metal_thread_only = o_.thread_only;
    lowered_ = passes::lower(p_, lo);
    simdgroup_ = lowered_.contractions.metal->simdgroup;
    slots_ = launch_slots(p_);
    check_supported();
    // Without a parallel nest the program is one instance: in the per-thread lowering
    // one thread runs it (the others of its threadgroup would run it again, and read
    // what the first one stored); the simdgroup lowering shares it out over the lanes.
    const bool one_thread = !p_.grid && !simdgroup_;
    if (one_thread) open("if (kiln_group == 0 && kiln_lane == 0)");
    emit_nodes(p_.body.nodes);
    if (one_thread) close();
    if (private_bytes_ > kMaxPrivateBytes)
        fail(p_.loc, "kernel", "kernel '" + p_.name + "': an instance's tiles need " + support::byte_size(static_cast<double>(private_bytes_)) +
                                   " of private memory on the metal target, more than its limit of " +
                                   support::byte_size(static_cast<double>(kMaxPrivateBytes)) + "; use smaller tiles");
    if (simdgroup_ && threadgroup_bytes_ > lowered_.contractions.metal->threadgroup_bytes)
        internal_fail("metal emitter: the kernel's threadgroup arrays take " + std::to_string(threadgroup_bytes_) + " bytes, more than the " +
                      std::to_string(lowered_.contractions.metal->threadgroup_bytes) + " the lowering planned");

    Emitted out;
    out.entry = entry_;
    out.simdgroup = simdgroup_;
    out.lowering = lowered_.contractions.metal->describe();
    out.threads_per_group = simdgroup_ ? kSimdWidth : kThreadsPerGroup;
    out.barriers = barriers_;
    out.private_bytes = private_bytes_;
    out.threadgroup_bytes = threadgroup_bytes_;
    out.contractions = passes::contraction_report(lowered_);
    std::string& s = out.source;
    s = "// kiln metal kernel '" + support::source_text(p_.name) + "': generated Metal Shading Language (kiln/src/targets/metal).\n";
    s += "// " + out.lowering + "; " + (o_.exact ? "exact" : "standard") + " precision; " + (o_.index64 ? "64" : "32") + "-bit element offsets.\n";
    s += "// Buffers: the views by parameter number, then the launch block (64-bit words: instances, each view's extents and\n";
    s += "// strides, each scalar). Threadgroups of " + std::to_string(out.threads_per_group) + " threads.\n";
    s += msl_prelude();
    s += "\n// ---- kernel\n" + constants_.str();
    s += "kernel void " + out.entry + "(\n" + signature() + ") {\n";
    s += "    typedef " + std::string(o_.index64 ? "long" : "int") + " kiln_index;  // element offsets in views\n";
    for (const auto& d : threadgroup_) s += "    " + d + "\n";
    s += body_.text() + "}\n";
    return out;
}

Emitted emit_msl(const ir::Program& p, const EmitOptions& o) { return Emitter(p, o).emit(); }

}  // namespace kiln::mtl
