// The CUDA emitter's walk over the program: regions, the dispatch of each op to
// its family (emit_*.cpp), leaves (parameters, extents, constants), the grid and
// the loops inside an instance.
#include "targets/cuda/emitter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "ir/axis_names.h"
#include "support/names.h"
#include "targets/cuda/view_access.h"

namespace kiln::cu {

void Emitter::region(const ir::Region& r) {
    for (const Node* n : r.nodes)
        if (lowered_.is_live(*n)) node(*n);
}

void Emitter::node(const Node& n) {
    dispatch(n);
    // Every value appears in the plan; ops that did not describe their lowering are
    // thread-local (elementwise) or uniform (scalars).
    bool has_value = ir::has_result(n.op) && n.op != OpCode::loop_result;
    if (has_value && !noted_.count(&n)) note(n, is_scalar(&n) ? "" : "thread-local");
}

void Emitter::dispatch(const Node& n) {
    switch (ir::category(n.op)) {
        case ir::OpCategory::control:
            if (n.op == OpCode::loop) {
                if (&n == p_.grid) grid(n);
                else loop(n);
            } else if (n.op == OpCode::stage) {
                line("// stage \"" + support::source_text(ir::stage_label(n)) + "\"");
            } else if (n.op == OpCode::region_arg) {
                internal_fail("cuda: region_arg in a node list");
            }
            return;  // loops read their body's yield directly; loop results are named with their loop
        case ir::OpCategory::leaf:
            if (n.op == OpCode::iota) return emit_elementwise(*this, n);
            return leaf(n);
        case ir::OpCategory::memory:
            if (n.op == OpCode::load && ahead_.count(&n)) return prefetched_load(n);
            if (n.op == OpCode::load || n.op == OpCode::store) return emit_memory(*this, n);
            return emit_movement(*this, n);  // memory<T> resources hold values unchanged
        case ir::OpCategory::shape:
            if (n.op == OpCode::full) return emit_elementwise(*this, n);
            return emit_movement(*this, n);
        case ir::OpCategory::movement: return emit_movement(*this, n);
        case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction: case ir::OpCategory::scan: return emit_reduction(*this, n);
        case ir::OpCategory::sort: return emit_sort(*this, n);
        case ir::OpCategory::contraction: return emit_mma(*this, n);
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast:
            return emit_elementwise(*this, n);
    }
}

void Emitter::leaf(const Node& n) {
    const std::string& v = name(&n);
    std::string t = ctype(n.type.kind);
    if (n.op == OpCode::param || n.op == OpCode::view_extent || n.op == OpCode::view_stride) {
        line("const " + t + " " + v + " = " + view_access::argument(n) + ";");
        return;
    }
    // constant
    const auto& d = *n.data;
    bool fl = is_float(n.type.kind);
    std::size_t size = fl ? d.floats.size() : d.ints.size();
    if (is_scalar(&n) || size == 1) {
        std::string lit = literal(n.type.kind, fl ? d.floats[0] : 0, fl ? 0 : d.ints[0]);
        if (is_scalar(&n)) line("const " + t + " " + v + " = " + lit + ";");
        else each_element(&n, [&](const std::string&, const std::string& dst) { line(dst + " = " + lit + ";"); }, false);
        return;
    }
    const std::string read = file_scope_constant(n);
    each_element(&n, [&](const std::string& e, const std::string& dst) {
        std::string at = read;
        at.replace(at.find("%s"), 2, e);
        line(dst + " = " + at + ";");
    });
    note(n, "read from a __device__ table");
}

std::string Emitter::file_scope_constant(const Node& n) {
    const std::string table = "kiln_const_" + name(&n);
    const auto& d = *n.data;
    const bool fl = is_float(n.type.kind), f64 = n.type.kind == Kind::F64;
    // An infinity or NaN has no literal that NVRTC accepts in a __device__
    // variable's initializer (__uint_as_float(...) is not a constant expression),
    // so such a table holds the elements' bits and each read converts them.
    const bool as_bits = fl && std::any_of(d.floats.begin(), d.floats.end(), [](double x) { return !std::isfinite(x); });
    const std::string element = as_bits ? (f64 ? "unsigned long long" : "unsigned") : ctype(n.type.kind);
    constants_ << "__device__ const " << element << " " << table << "[" << n.type.count() << "] = {";
    for (std::int64_t k = 0; k < n.type.count(); ++k) {
        auto u = static_cast<std::size_t>(k);
        constants_ << (k ? ", " : "") << (k % 8 == 0 ? "\n    " : "");
        if (!as_bits) constants_ << literal(n.type.kind, fl ? d.floats[u] : 0, fl ? 0 : d.ints[u]);
        else if (f64) constants_ << "0x" << std::hex << std::bit_cast<std::uint64_t>(d.floats[u]) << std::dec << "ULL";
        else constants_ << "0x" << std::hex << std::bit_cast<std::uint32_t>(static_cast<float>(d.floats[u])) << std::dec << "u";
    }
    constants_ << "};\n";
    if (!as_bits) return table + "[%s]";
    return f64 ? "__longlong_as_double((long long)" + table + "[%s])" : "__uint_as_float(" + table + "[%s])";
}

// Extents and the flat iteration count of a loop; a negative extent counts as an empty loop.
static std::vector<std::string> extents_of(Emitter& E, const Node& loop) {
    std::vector<std::string> ext;
    for (int k = 0; k < ir::loop_rank(loop); ++k) ext.push_back(E.name(loop.operands[static_cast<std::size_t>(k)]));
    return ext;
}

static void bind_indices(Emitter& E, const Node& loop, const std::vector<std::string>& ext, const std::string& flat) {
    std::string rest = E.fresh("rest");
    E.line("long long " + rest + " = " + flat + ";");
    for (int k = ir::loop_rank(loop) - 1; k >= 0; --k) {
        const Node* idx = loop.body->args[static_cast<std::size_t>(k)];
        const auto& x = ext[static_cast<std::size_t>(k)];
        if (k == 0) E.line("const long long " + E.name(idx) + " = " + rest + ";");
        else {
            E.line("const long long " + E.name(idx) + " = " + rest + " % " + x + ";");
            E.line(rest + " /= " + x + ";");
        }
    }
}

void Emitter::grid(const Node& loop) {
    if (loop.operands.size() != static_cast<std::size_t>(ir::loop_rank(loop)))
        fail(loop.loc, "parallel", "not supported on cuda: a value carried across the instances of the parallel nest");
    auto ext = extents_of(*this, loop);
    std::string total = "g_total";
    std::string product;
    for (auto& x : ext) product += (product.empty() ? "" : " * ") + x;
    line("const long long " + total + " = " + product + ";");
    // A cluster runs one instance: its CTAs share blockIdx.x / cluster_.
    const std::string first = cluster_ > 1      ? "(long long)(blockIdx.x / " + num(cluster_) + ")"
                              : instances_ == 1 ? "(long long)blockIdx.x"
                                                : "(long long)blockIdx.x * " + num(instances_) + " + kiln_group";
    grid_ = &loop;
    const std::string stride = cluster_ > 1      ? "(long long)(gridDim.x / " + num(cluster_) + ")"
                               : instances_ == 1 ? "(long long)gridDim.x"
                                                 : "(long long)gridDim.x * " + num(instances_);
    trips_[&loop] = {ext, total, "pid + " + stride};
    std::vector<const Node*> ahead;
    for (const auto& ld : lowered_.grid_prefetch.loads)
        if (ld.prefetched) {
            ahead.push_back(ld.load);
            ahead_[ld.load] = {fresh("ahead"), ld.invariant, &loop};
        }
    // The loops' loads an iteration ahead, known from the start (nan_by_minimum() asks
    // whether any load is held ahead); their buffers are declared with their loop.
    for (const auto& lp : lowered_.loop_prefetch.loops)
        for (const Node* n : lowered_.loop_prefetch.ahead(lp.loop)) ahead_[n] = {fresh("ahead"), false, lp.loop};
    if (!ahead.empty()) {
        // The grid is persistent (the launch keeps it to the CTAs that fit at once): each
        // CTA's next instance is known, and its loads go out while this one computes.
        line("// loads issued one instance ahead, and those the same for every instance (passes/grid_prefetch.h): the first instance's, before the loop");
        for (const Node* n : ahead) emit_prefetch_buffer(*this, *n, ahead_.at(n).buffer);
        fetch_ahead(loop, first, ahead);
    }
    if (cluster_ > 1) line("// the parallel nest: one cluster of " + num(cluster_) + " CTAs per instance (grid-stride when the grid is capped)");
    else if (instances_ == 1) line("// the parallel nest: one CTA per instance (grid-stride when the grid is capped)");
    else line("// the parallel nest: " + num(instances_) + " instances per CTA, " + num(threads_) + " threads each (grid-stride when the grid is capped)");
    // One instance per trip: unrolling the loop would only copy a whole program
    // instance (NVRTC unrolled a small one four times, doubling the module).
    line("#pragma unroll 1");
    open("for (long long pid = " + first + "; pid < " + total + "; pid += " + stride + ")");
    bind_indices(*this, loop, ext, "pid");
    if (const Node* source = lowered_.layouts->aligned_to) {
        // Its origin's scalars in a block of their own (emitted again in program order).
        std::unordered_set<const Node*> origin;
        cone(loop, {source}, origin);
        line("int kiln_shift;");
        open("");
        for (const Node* n : loop.body->nodes)
            if (origin.count(n)) node(*n);
        row_shift(false);
        close();
    }
    exchange_unknown();  // the previous instance may still be reading
    region(*loop.body);
    close();
    exchange_unknown();
    // No CTA of a cluster leaves while another may still read its shared memory.
    if (cluster_ > 1) line("kc::cluster_sync();");
}

// The scalars of the loop's body the origins of `of` read (their indices, offsets).
void Emitter::cone(const Node& loop, const std::vector<const Node*>& of, std::unordered_set<const Node*>& into) const {
    std::function<void(const Node*)> need = [&](const Node* v) {
        if (v->parent != loop.body.get() || !into.insert(v).second) return;
        for (const Node* o : v->operands) need(o);
    };
    for (const Node* n : of)
        for (const Node* o : n->operands) need(o);
}

void Emitter::row_shift(bool declare) {
    const Node& n = *lowered_.layouts->aligned_to;
    const std::vector<std::string> origin = view_access::coordinates(*this, n, n.type.dims, "0");
    std::string in_view;
    for (std::size_t d = 0; d < origin.size(); ++d) in_view += (d ? " && " : "") + view_access::in_range(n, d, origin[d]);
    // Only a row in the view has an address (and no offset overflows); another moves nothing.
    const std::string at = "(unsigned long long)(a" + num(ir::param_index(n)) + " + (" + view_access::offset(n, origin) + "))";
    line(std::string(declare ? "const int " : "") + "kiln_shift = (" + in_view + ") ? (int)((" + at + " / " +
         num(storage_bytes(n.type.kind)) + "ull) % " + num(layout(&n).vec) + "ull) : 0;");
}

void Emitter::fetch_ahead(const Node& loop, const std::string& at, const std::vector<const Node*>& loads) {
    // The scalars of the loop's body the loads' origins read, in program order; the
    // passes checked that nothing else feeds them. An instance ahead has its own row
    // alignment (aligned slots): its kiln_shift, declared in the block, places its slots.
    const bool shifted = &loop == grid_ && lowered_.layouts->aligned_to;
    std::unordered_set<const Node*> scalars;
    cone(loop, loads, scalars);
    if (shifted) cone(loop, {lowered_.layouts->aligned_to}, scalars);
    const Trips& t = trips_.at(&loop);
    open("");
    const std::string trip = fresh("ahead_at");
    line("const long long " + trip + " = " + at + ";");
    open("if (" + trip + " < " + t.count + ")");
    bind_indices(*this, loop, t.ext, trip);
    for (const Node* n : loop.body->nodes)
        if (scalars.count(n)) node(*n);
    if (shifted) row_shift(true);
    for (const Node* n : loads) emit_prefetch_fill(*this, *n, ahead_.at(n).buffer);
    close();
    close();
}

// A prefetched load takes its value from the buffer, then (unless its elements are
// the same for every instance) sends the same load out for its loop's next trip: the
// CTA's next instance, or the loop's next iteration.
void Emitter::prefetched_load(const Node& n) {
    const Ahead& a = ahead_.at(&n);
    emit_prefetched_load(*this, n, a.buffer,
                         a.once ? "loaded once, before the first instance, " : a.loop == grid_ ? "issued one instance ahead, " : "issued one iteration ahead, ");
    if (!a.once) fetch_ahead(*a.loop, trips_.at(a.loop).next, {&n});
}

void Emitter::loop(const Node& loop) {
    int rank = ir::loop_rank(loop);
    auto ext = extents_of(*this, loop);
    auto kind = ir::loop_kind(loop);
    line("// " + std::string(ir::loop_kind_name(kind)) + " loop" +
         (kind == detail::LoopKind::pipeline ? " (window " + num(ir::pipeline_window(loop)) + ": runs as a serial loop)" : ""));
    if (kind == detail::LoopKind::parallel) fail(loop.loc, "parallel", "not supported on cuda: a parallel nest inside another nest");
    // Carried values live in variables declared before the loop; the body's
    // carried arguments and the loop's results are those variables.
    std::vector<std::string> carried;
    for (std::size_t c = static_cast<std::size_t>(rank); c < loop.operands.size(); ++c) {
        const Node* init = loop.operands[c];
        std::string v = fresh("c");
        std::string t = ctype(init->type.kind);
        if (is_scalar(init)) line(t + " " + v + " = " + name(init) + ";");
        else {
            line(t + " " + v + "[" + num(slots(init)) + "];");
            line("#pragma unroll");
            line("for (int j = 0; j < " + num(slots(init)) + "; ++j) " + v + "[j] = " + name(init) + "[j];");
        }
        alias(loop.body->args[c], v);
        carried.push_back(v);
    }
    for (const Node* r : loop.parent->nodes)
        if (r->op == OpCode::loop_result && r->operands[0] == &loop) alias(r, carried[static_cast<std::size_t>(ir::slot(*r))]);
    std::string count = fresh("n");
    std::string product;
    for (auto& x : ext) product += (product.empty() ? "" : " * ") + ("kc::imax(" + x + ", 0LL)");
    open("");
    line("const long long " + count + " = " + product + ";");
    std::string it = fresh("it");
    // Loads issued one iteration ahead (passes/loop_prefetch.h): the first iteration's here.
    trips_[&loop] = {ext, count, it + " + 1"};
    if (const std::vector<const Node*> ahead = lowered_.loop_prefetch.ahead(&loop); !ahead.empty()) {
        line("// loads issued one iteration ahead (passes/loop_prefetch.h): the first iteration's, before the loop");
        for (const Node* n : ahead) emit_prefetch_buffer(*this, *n, ahead_.at(n).buffer);
        fetch_ahead(loop, "0", ahead);
    }
    open("for (long long " + it + " = 0; " + it + " < " + count + "; ++" + it + ")");
    bind_indices(*this, loop, ext, it);
    exchange_unknown();  // the previous iteration may still be reading
    region(*loop.body);
    const Node* y = loop.body->nodes.empty() ? nullptr : loop.body->nodes.back();
    if (!y || y->op != OpCode::yield || y->operands.size() != carried.size()) internal_fail("cuda: loop body without a matching yield");
    // Next values go through temporaries: a yield may read carried variables it also updates.
    std::vector<std::string> next;
    for (std::size_t c = 0; c < carried.size(); ++c) {
        const Node* v = y->operands[c];
        std::string t = fresh("y");
        if (is_scalar(v)) line("const " + ctype(v->type.kind) + " " + t + " = " + name(v) + ";");
        else {
            line(ctype(v->type.kind) + " " + t + "[" + num(slots(v)) + "];");
            line("#pragma unroll");
            line("for (int j = 0; j < " + num(slots(v)) + "; ++j) " + t + "[j] = " + name(v) + "[j];");
        }
        next.push_back(t);
    }
    exchange_unknown();  // after the loop: the body may have left either area being read
    for (std::size_t c = 0; c < carried.size(); ++c) {
        const Node* v = y->operands[c];
        if (is_scalar(v)) line(carried[c] + " = " + next[c] + ";");
        else {
            line("#pragma unroll");
            line("for (int j = 0; j < " + num(slots(v)) + "; ++j) " + carried[c] + "[j] = " + next[c] + "[j];");
        }
    }
    close();
    close();
}

// ---- the translation unit

}  // namespace kiln::cu
