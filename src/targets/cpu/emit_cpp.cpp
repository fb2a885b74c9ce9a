// The emitter's driver and program structure: node numbering (the printer's, so
// generated code and `kiln ir` cross-reference), the two exported functions, loop
// nests with their carried state, and the grid loop over instances.
#include <algorithm>
#include <utility>
#include <cstdio>

#include "support/byte_size.h"
#include "support/names.h"
#include "targets/common/embedded_text.h"
#include "targets/cpu/emit_expr.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

std::string ctype(Kind k) {
    switch (k) {
        case Kind::Bool: return "unsigned char";
        case Kind::I8: return "signed char";
        case Kind::I32: return "int";
        case Kind::I64: return "long long";
        case Kind::F32: return "float";
        default: return "double";  // f64, and f16/bf16 as their exact double
    }
}

std::int64_t ctype_bytes(Kind k) {
    switch (k) {
        case Kind::Bool: case Kind::I8: return 1;
        case Kind::I32: case Kind::F32: return 4;
        default: return 8;
    }
}

std::string kind_class(Kind k) { return "kiln_cpu::K_" + std::string(kind_name(k)); }

// ---- text

std::vector<std::string> Emitter::open_loops(const std::vector<std::int64_t>& extents, const std::string& prefix) {
    std::vector<std::string> vars;
    for (std::size_t k = 0; k < extents.size(); ++k) {
        std::string v = prefix + std::to_string(k);
        open("for (int " + v + " = 0; " + v + " < " + std::to_string(extents[k]) + "; ++" + v + ")");
        vars.push_back(v);
    }
    return vars;
}

void Emitter::close_loops(const std::vector<std::string>& vars) {
    for (std::size_t k = 0; k < vars.size(); ++k) close();
}

void Emitter::loop_nest(const std::vector<std::int64_t>& extents, const std::string& prefix,
                        const std::function<void(const std::vector<std::string>&)>& body, bool independent) {
    if (extents.empty()) return body({});
    std::vector<std::int64_t> outer(extents.begin(), extents.end() - 1);
    auto vars = open_loops(outer, prefix);
    const std::string v = prefix + std::to_string(outer.size());
    vars.push_back(v);
    const std::int64_t n = extents.back(), main = n > 16 ? n - n % 16 : n;
    // The next instance's prefetches (emit_prefetch.cpp), a few lines each chunk of
    // kChunk elements: in the loop itself they would stop GCC vectorising it.
    constexpr std::int64_t kChunk = 256;
    const std::int64_t chunked = !prefetch_step_.empty() && main >= 2 * kChunk ? main - main % kChunk : 0;
    if (chunked) {
        const std::string c = v + "c", C = std::to_string(kChunk);
        open("for (int " + c + " = 0; " + c + " < " + std::to_string(chunked) + "; " + c + " += " + C + ")");
        line(prefetch_step_);
        ++prefetch_chunks_;
        if (independent) line("KILN_INDEPENDENT");
        open("for (int " + v + " = " + c + "; " + v + " < " + c + " + " + C + "; ++" + v + ")");
        body(vars);
        close();
        close();
    }
    for (auto [from, to] : {std::pair{chunked, main}, std::pair{main, n}}) {
        if (from >= to) continue;
        if (independent) line("KILN_INDEPENDENT");
        open("for (int " + v + " = " + std::to_string(from) + "; " + v + " < " + std::to_string(to) + "; ++" + v + ")");
        body(vars);
        close();
    }
    vars.pop_back();
    close_loops(vars);
}

// ---- values

const Storage& Emitter::storage(const Node* n) const {
    auto it = storage_.find(n);
    if (it == storage_.end()) internal_fail("cpu emitter: %" + std::to_string(ids_.count(n) ? ids_.at(n) : -1) + " (" +
                                            std::string(detail::op_name(n->op)) + ") used before it was emitted");
    return it->second;
}

std::vector<std::string> Index::coords_along(const std::vector<std::int64_t>& along) const {
    if (!coords.empty() && extents == along) return coords;
    // Coordinate k of linear index L: L / (product of the extents after k) % extent k.
    // The outermost dim of more than one element needs no "%": L is below the count.
    std::size_t outermost = 0;
    while (outermost + 1 < along.size() && along[outermost] == 1) ++outermost;
    std::vector<std::string> c(along.size(), "0");
    std::int64_t inner = 1;
    for (std::size_t k = along.size(); k-- > 0;) {
        if (along[k] != 1) {
            std::string v = inner == 1 ? paren(linear) : paren(linear) + " / " + std::to_string(inner);
            c[k] = paren(k == outermost ? v : v + " % " + std::to_string(along[k]));
        }
        inner *= along[k];
    }
    return c;
}

std::string Emitter::at(const Node* n, const Index& index) {
    const Storage& s = storage(n);
    if (s.count == 1) {  // the same element for every index
        if (s.fused) return "(" + element_expr(*s.fused, Index("0")) + ")";
        if (!s.array) return s.name;
        return s.convert.empty() ? s.name + "[0]" : s.convert + "::load(" + s.name + "[0])";
    }
    if (s.fused) {
        // The fused value may be a reshape away (an alias): coordinates only along its own dims.
        Index i = index;
        if (i.extents != extents_of(s.fused->type.dims)) i.coords.clear();
        return "(" + element_expr(*s.fused, i) + ")";
    }
    if (!s.array) return s.name;
    std::string offset = index.linear;
    if (!s.strides.empty()) {
        const auto c = index.coords_along(s.extents);
        offset.clear();
        for (std::size_t k = 0; k < c.size(); ++k)
            if (s.extents[k] != 1) offset += (offset.empty() ? "" : " + ") + (s.strides[k] == "1" ? c[k] : c[k] + " * " + s.strides[k]);
        if (offset.empty()) offset = "0";
    }
    const std::string element = s.name + "[" + offset + "]";
    return s.convert.empty() ? element : s.convert + "::load(" + element + ")";
}

std::string Emitter::define(const Node& n) {
    Storage s{"v" + id(&n), !n.type.dims.empty(), n.type.count()};
    KILN_ASSERT(s.count <= kMaxTileElements);  // check_tile_sizes
    if (s.array) {
        line("alignas(64) " + ctype(n.type.kind) + " " + s.name + "[" + std::to_string(s.count) + "];");
        frame_bytes_ += s.count * ctype_bytes(n.type.kind);
    } else {
        line(ctype(n.type.kind) + " " + s.name + ";");
    }
    storage_[&n] = s;
    return s.name;
}

void Emitter::elementwise(const Node& n) {
    if (n.type.dims.empty()) {
        storage_[&n] = Storage{"v" + id(&n), false, 1};
        line("const " + ctype(n.type.kind) + " v" + id(&n) + " = " + element_expr(n, "0") + ";");
        return;
    }
    if (fusible_.count(&n)) {
        storage_[&n] = Storage{"v" + id(&n), true, n.type.count(), &n};
        return;
    }
    const std::string name = define(n);
    if (!cut_.count(&n)) return materialize(n, name);
    // A piece of a long chain (bound_fusion) is a function of its own: GCC's
    // register allocation and alias analysis cost more than linear time in the
    // size of a function, and a chain of 20,000 ops in one function took minutes
    // to compile; in pieces it takes seconds.
    open("[&]() __attribute__((noinline))");
    materialize(n, name);
    body_.close("}();");
}

void Emitter::materialize(const Node& n, const std::string& name) {
    with_fast_math([&] {
        if (!reads_by_coords(n))
            return loop_nest({n.type.count()}, "e", [&](const auto& v) { line(name + "[" + v[0] + "] = " + element_expr(n, v[0]) + ";"); });
        const auto extents = extents_of(n.type.dims);
        loop_nest(extents, "e", [&](const auto& v) {
            const std::string e = linear(v, ir::strides_of(n.type.dims));
            line(name + "[" + e + "] = " + element_expr(n, Index(e, v, extents)) + ";");
        });
    });
}

// The nest is generated into a buffer of its own first: only then is it known
// whether it called a fast function, and so whether the flag and the rerun are
// needed.
void Emitter::with_fast_math(const std::function<void()>& loops) {
    if (!math_flag_.empty()) internal_fail("cpu emitter: nested fast-math loops");
    const std::string flag = "in_doubt" + std::to_string(math_flags_++);
    math_flag_ = flag;
    math_flag_used_ = false;
    const std::string nest = body_.capture(loops);
    math_flag_.clear();
    if (!math_flag_used_) {
        body_.raw(nest);
        return;
    }
    line("unsigned " + flag + " = 0;");
    body_.raw(nest);
    // Rare: 186 of the 2^32 floats (NaN aside) have an exp too close to a rounding boundary.
    open("if (" + flag + ")");
    loops();
    close();
}

// dst = src, element by element (same kind and count; either may be a scalar).
void Emitter::copy_into(const Storage& dst, const Node* src) {
    const Storage& s = storage(src);
    if (dst.array && s.array) line("__builtin_memcpy(" + dst.name + ", " + s.name + ", sizeof " + dst.name + ");");
    else if (dst.array) line(dst.name + "[0] = " + s.name + ";");
    else line(dst.name + " = " + at(src, "0") + ";");
}

// ---- regions

// What kiln_run computes: the dce pass's live set (passes/dce.h).
bool Emitter::dead(const Node& n) const {
    return ir::has_result(n.op) && n.op != OpCode::loop_result && !lowered_.is_live(n);
}

void Emitter::emit_nodes(const std::vector<Node*>& nodes) {
    for (const Node* n : nodes)
        if (!dead(*n)) emit_node(*n);
}

void Emitter::emit_node(const Node& n) {
    switch (ir::category(n.op)) {
        case ir::OpCategory::leaf:
            if (n.op == OpCode::constant) return emit_constant(n);
            if (n.op == OpCode::param) return emit_param(n);
            if (n.op == OpCode::view_extent || n.op == OpCode::view_stride) {
                storage_[&n] = Storage{"v" + id(&n), false, 1};
                line("const long long v" + id(&n) + " = args[" + std::to_string(ir::param_index(n)) + "].view." +
                     (n.op == OpCode::view_extent ? "extent[" : "stride[") + std::to_string(ir::view_dim(n)) + "];");
                return;
            }
            return emit_op(n);
        case ir::OpCategory::memory:
            if (n.op == OpCode::load) return emit_load(n);
            if (n.op == OpCode::store) return emit_store(n);
            return emit_op(n);
        case ir::OpCategory::control:
            if (n.op == OpCode::loop) return emit_loop(n);
            if (n.op == OpCode::loop_result) {
                storage_[&n] = Storage{"l" + id(n.operands[0]) + "_c" + std::to_string(ir::slot(n)), !n.type.dims.empty(), n.type.count()};
                return;
            }
            if (n.op == OpCode::stage) return line("// stage \"" + support::source_text(ir::stage_label(n)) + "\"");
            internal_fail("cpu emitter: " + std::string(detail::op_name(n.op)) + " in a node list");
        case ir::OpCategory::unary: case ir::OpCategory::binary: case ir::OpCategory::compare: case ir::OpCategory::select:
        case ir::OpCategory::cast: case ir::OpCategory::shape: case ir::OpCategory::reduction: case ir::OpCategory::arg_reduction:
        case ir::OpCategory::scan: case ir::OpCategory::contraction: case ir::OpCategory::movement: case ir::OpCategory::sort:
            return emit_op(n);
    }
}

// A serial or pipeline loop: nested for-loops in row-major order (the
// interpreter's iteration order). Carried values live in the enclosing scope, so
// the loop's results name them after it ends; the pipeline window is a schedule
// hint with no semantics, and the host compiler schedules this loop itself.
void Emitter::emit_loop(const Node& loop) {
    const int rank = ir::loop_rank(loop);
    const std::string L = "l" + id(&loop);
    line("// %" + id(&loop) + ": loop " + std::string(ir::loop_kind_name(ir::loop_kind(loop))));
    std::vector<Storage> carried;
    for (std::size_t k = static_cast<std::size_t>(rank); k < loop.operands.size(); ++k) {
        const Node* init = loop.operands[k];
        Storage c{L + "_c" + std::to_string(k - static_cast<std::size_t>(rank)), !init->type.dims.empty(), init->type.count()};
        if (c.array) {
            line("alignas(64) " + ctype(init->type.kind) + " " + c.name + "[" + std::to_string(c.count) + "];");
            frame_bytes_ += c.count * ctype_bytes(init->type.kind);
        } else {
            line(ctype(init->type.kind) + " " + c.name + ";");
        }
        copy_into(c, init);
        carried.push_back(c);
    }
    open("");
    std::vector<std::string> vars;
    for (int k = 0; k < rank; ++k) {
        std::string n = L + "_n" + std::to_string(k), v = L + "_i" + std::to_string(k);
        line("const long long " + n + " = " + at(loop.operands[static_cast<std::size_t>(k)], "0") + ";");
        vars.push_back(v);
    }
    for (int k = 0; k < rank; ++k) {
        const std::string& v = vars[static_cast<std::size_t>(k)];
        open("for (long long " + v + " = 0; " + v + " < " + L + "_n" + std::to_string(k) + "; ++" + v + ")");
    }
    auto name_args = [&] {
        for (const Node* a : loop.body->args) {
            if (ir::slot(*a) < rank) storage_[a] = Storage{vars[static_cast<std::size_t>(ir::slot(*a))], false, 1};
            else storage_[a] = carried.at(static_cast<std::size_t>(ir::slot(*a) - rank));
        }
    };
    auto body = [&] {
        for (const Node* n : loop.body->nodes) {
            if (n->op == OpCode::yield) emit_yield(*n, loop);
            else if (!dead(*n)) emit_node(*n);
        }
    };
    // The next iteration's windows (emit_prefetch.cpp), kept where a loop of the
    // body issues them; a loop without any of its own issues the enclosing ones'.
    std::string step;
    const std::string ahead = body_.capture([&] { step = emit_iteration_prefetch(loop, L); });
    name_args();
    if (step.empty()) {
        body();
    } else {
        const std::string outer_step = std::exchange(prefetch_step_, step);
        const int outer_chunks = std::exchange(prefetch_chunks_, 0);
        std::vector<const Node*> outer_windows;
        std::swap(outer_windows, prefetched_);
        const std::string iteration = body_.capture(body);
        if (prefetch_chunks_ > 0) {
            body_.raw(ahead);
            for (const Node* n : prefetched_)
                note(*n, std::string("the next iteration's box prefetched") + (n->op == OpCode::store ? " for writing" : "") + " while this one computes");
        }
        body_.raw(iteration);
        prefetch_step_ = outer_step;
        prefetch_chunks_ = outer_chunks;
        prefetched_ = std::move(outer_windows);
    }
    for (int k = 0; k < rank; ++k) close();
    close();
}

// Next values of the carried slots. A slot whose next value is another slot's
// current value (a swap) is staged through a temporary first, so every slot
// reads the values of the iteration that just ended.
void Emitter::emit_yield(const Node& y, const Node& loop) {
    const std::string L = "l" + id(&loop);
    auto is_slot = [&](const std::string& name) { return name.rfind(L + "_c", 0) == 0; };
    std::vector<std::string> staged(y.operands.size());
    for (std::size_t s = 0; s < y.operands.size(); ++s) {
        const Storage& src = storage(y.operands[s]);
        std::string dst = L + "_c" + std::to_string(s);
        if (src.name == dst || !is_slot(src.name)) continue;
        staged[s] = L + "_next" + std::to_string(s);
        const Node* v = y.operands[s];
        if (src.array) {
            line("alignas(64) " + ctype(v->type.kind) + " " + staged[s] + "[" + std::to_string(src.count) + "];");
            line("__builtin_memcpy(" + staged[s] + ", " + src.name + ", sizeof " + staged[s] + ");");
        } else {
            line("const " + ctype(v->type.kind) + " " + staged[s] + " = " + src.name + ";");
        }
    }
    for (std::size_t s = 0; s < y.operands.size(); ++s) {
        const Node* v = y.operands[s];
        Storage dst{L + "_c" + std::to_string(s), !v->type.dims.empty(), v->type.count()};
        if (storage(v).name == dst.name) continue;
        if (staged[s].empty()) {
            copy_into(dst, v);
        } else if (dst.array) {
            line("__builtin_memcpy(" + dst.name + ", " + staged[s] + ", sizeof " + dst.name + ");");
        } else {
            line(dst.name + " = " + staged[s] + ";");
        }
    }
}

// ---- the exported functions

// kiln_grid evaluates only what the grid's extents depend on: view extents,
// parameters, index arithmetic, and whatever they read from views.
void Emitter::emit_grid_function(const std::vector<Node*>& prologue) {
    std::unordered_set<const Node*> needed;
    std::vector<const Node*> work;
    if (p_.grid)
        for (int k = 0; k < ir::loop_rank(*p_.grid); ++k) work.push_back(p_.grid->operands[static_cast<std::size_t>(k)]);
    while (!work.empty()) {
        const Node* n = work.back();
        work.pop_back();
        if (!needed.insert(n).second) continue;
        if (n->op == OpCode::loop || n->op == OpCode::loop_result)
            internal_fail("cpu emitter: the grid's extents depend on a " + std::string(detail::op_name(n->op)));
        for (const Node* o : n->operands) work.push_back(o);
    }
    open("extern \"C\" KILN_EXPORT int kiln_grid(const kiln_cpu::Arg* args, long long* extents, kiln_cpu::Status* st)");
    line("(void)args; (void)st;");
    phase_ = kiln_cpu::before_grid;
    pid_ = "-1";
    error_value_ = "-1";
    for (Node* n : prologue)
        if (needed.count(n)) emit_node(*n);
    const int rank = p_.grid ? ir::loop_rank(*p_.grid) : 0;
    for (int k = 0; k < rank; ++k) line("extents[" + std::to_string(k) + "] = " + at(p_.grid->operands[static_cast<std::size_t>(k)], "0") + ";");
    if (rank == 0) line("(void)extents;");
    line("return " + std::to_string(rank) + ";");
    close();
}

void Emitter::emit_run_function(const std::vector<Node*>& prologue, const std::vector<Node*>& epilogue) {
    open("extern \"C\" KILN_EXPORT int kiln_run(const kiln_cpu::Arg* args, long long begin, long long end, long long total, kiln_cpu::Status* st)");
    line("(void)args; (void)begin; (void)end; (void)total; (void)st;");
    error_value_ = "1";
    phase_ = kiln_cpu::before_grid;
    pid_ = "-1";
    emit_nodes(prologue);
    if (const Node* grid = p_.grid) {
        const int rank = ir::loop_rank(*grid);
        if (grid->operands.size() != static_cast<std::size_t>(rank))
            fail(grid->loc, "parallel", "a value assigned inside the parallel nest cannot be carried across instances (instances are independent)");
        const std::string L = "l" + id(grid);
        line("// %" + id(grid) + ": loop parallel (the grid): one instance per pid");
        // Row-major: the last domain dimension varies fastest (the interpreter's
        // pid order); the first needs no extent, pid < total bounds it.
        for (int k = 1; k < rank; ++k) line("const long long " + L + "_n" + std::to_string(k) + " = " + at(grid->operands[static_cast<std::size_t>(k)], "0") + ";");
        open("for (long long pid = begin; pid < end; ++pid)");
        if (rank > 1) line("long long rest = pid;");
        for (int k = rank - 1; k >= 0; --k) {
            std::string v = L + "_i" + std::to_string(k), n = L + "_n" + std::to_string(k);
            if (rank == 1) line("[[maybe_unused]] const long long " + v + " = pid;");
            else if (k == 0) line("[[maybe_unused]] const long long " + v + " = rest;");
            else line("[[maybe_unused]] const long long " + v + " = rest % " + n + "; rest /= " + n + ";");
        }
        phase_ = kiln_cpu::in_grid;
        pid_ = "pid";
        // The next instance's windows, kept only where some loop issues them.
        const std::string ahead = body_.capture([&] { prefetch_step_ = emit_instance_prefetch(*grid, L); });
        prefetch_chunks_ = 0;
        for (const Node* a : grid->body->args) storage_[a] = Storage{L + "_i" + std::to_string(ir::slot(*a)), false, 1};
        const std::string instance = body_.capture([&] {
            for (const Node* n : grid->body->nodes)
                if (n->op != OpCode::yield && !dead(*n)) emit_node(*n);
        });
        prefetch_step_.clear();
        if (prefetch_chunks_ > 0) {
            body_.raw(ahead);
            for (const Node* n : prefetched_)
                note(*n, std::string("the next instance's box prefetched") + (n->op == OpCode::store ? " for writing" : "") + " while this one computes");
        }
        body_.raw(instance);
        close();
        phase_ = kiln_cpu::after_grid;
        pid_ = "-1";
        if (std::any_of(epilogue.begin(), epilogue.end(), [&](const Node* n) { return !dead(*n); })) {
            open("if (end == total)");
            emit_nodes(epilogue);
            close();
        }
    }
    line("return 0;");
    close();
}

// The head of every generated source: the ABI shared with the launcher, kiln's
// rounding and math, and the cpu target's helpers (cpu_prelude.h, cpu_lines.h), in that order.
static const std::string& prelude() {
    static const std::string text = [] {
        std::string s;
        for (auto [name, body] : {std::pair{"cpu_abi.h", embedded::cpu_abi_h()}, std::pair{"kround.h", embedded::kround_h()},
                                  std::pair{"kmath.h", embedded::kmath_h()}, std::pair{"cpu_prelude.h", embedded::cpu_prelude_h()},
                                  std::pair{"cpu_lines.h", embedded::cpu_lines_h()}})
            s += "// ---- " + std::string(name) + "\n" + std::string(body);
        return s;
    }();
    return text;
}

Emitted Emitter::emit() {
    check_tile_sizes();
    ids_ = ir::number_nodes(p_);
    passes::LowerOptions lo;
    lo.target = passes::TargetKind::cpu;
    lo.precision = opts_.exact ? Precision::exact : Precision::standard;
    lo.index64 = opts_.index64;
    lowered_ = passes::lower(p_, lo);
    {
        const Uses u = uses();
        find_fusible(u);
        find_view_tiles(u);  // after find_fusible: reads through fused values count
        find_in_place_mma(u);
        find_topk_twins(u);
    }
    std::vector<Node*> prologue, epilogue;
    bool after = false;
    for (Node* n : p_.body.nodes) {
        if (n == p_.grid) after = true;
        else (after ? epilogue : prologue).push_back(n);
    }
    emit_grid_function(prologue);
    line("");
    emit_run_function(prologue, epilogue);
    check_frame();

    std::string text;
    text += "// kiln cpu kernel '" + support::source_text(p_.name) + "': generated C++ (kiln/src/targets/cpu). Element offsets are " +
            (opts_.index64 ? "64" : "32") + "-bit.\n";
    text += "#define KILN_EXPORT __attribute__((visibility(\"default\")))\n";
    // Exact precision promises the interpreter's bits, and GCC 12 with the kernels'
    // -fno-trapping-math (host_compiler.cpp: it lets the float selects of exp32
    // vectorise) gave a different one: a sum of seven 0.0 * -2.3e9 products, each
    // taken through a select, came out +0.0, not -0.0 (kiln fuzz, program 58008371).
    // Exact kernels keep trapping math, for GCC (clang ignores the pragma). On a host
    // with AVX-512 (-march=native) that was not enough: GCC 12's loop vectoriser
    // still turned the same in-order sum into a masked vector fold that came out
    // +0.0 (cpu_fuzz_regression_test.cpp, on an AMD EPYC with avx512f; right with
    // -mno-avx512f or -fno-tree-loop-vectorize). Exact kernels are the reference's
    // bits, not its speed: their loops are not vectorised by GCC.
    if (opts_.exact)
        text += "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize(\"trapping-math\", \"no-tree-loop-vectorize\")\n#endif\n";
    text += prelude();
    text += "\n// ---- kernel\nnamespace {\nusing kiln_index = " + std::string(opts_.index64 ? "long long" : "int") + ";\n";
    text += globals_.str();
    text += "}  // namespace\n\n";
    text += body_.text();
    Emitted out{std::move(text), accesses_, frame_bytes_, passes::contraction_report(lowered_), {}};
    out.notes.insert(notes_.begin(), notes_.end());
    return out;
}

// Every tile of a kernel, stored or fused into its consumer's loop, is at most
// 2^28 elements on the cpu target: beyond that a tile would either not fit an
// instance's stack or take hours to compute element by element.
void Emitter::check_tile_sizes() const {
    ir::walk(p_.body, [&](const Node& n) {
        if (n.op == OpCode::loop || n.op == OpCode::yield || n.op == OpCode::stage || n.op == OpCode::store) return;
        const std::int64_t count = n.type.count();
        if (count > kMaxTileElements)
            fail(n.loc, detail::op_name(n.op), "a tile of " + std::to_string(count) + " elements (" +
                                                   support::byte_size(static_cast<double>(count) * static_cast<double>(ctype_bytes(n.type.kind))) +
                                                   ") is too large for the cpu target (at most 2^28 elements)");
    });
}

// An instance's tiles live on its thread's stack, sized from the frame
// (cpu_target.cpp: four times the frame and 4 MiB more). Past the limit no
// such stack can be had: the largest tile is the user's to shrink, named where
// it is made.
void Emitter::check_frame() const {
    constexpr std::int64_t kMaxFrameBytes = std::int64_t{2} << 30;
    if (frame_bytes_ <= kMaxFrameBytes) return;
    auto tile_of = [](const Node& n) -> const Node& { return n.op == OpCode::store ? *n.operands.back() : n; };
    const Node* largest = nullptr;  // the op making the largest tile (a store: storing it)
    ir::walk(p_.body, [&](const Node& n) {
        if (n.op == OpCode::loop || n.op == OpCode::yield || n.op == OpCode::stage) return;
        if (!largest || tile_of(n).type.count() > tile_of(*largest).type.count()) largest = &n;
    });
    const Node& at = *largest;
    const Node& tile = tile_of(at);
    fail(at.loc, detail::op_name(at.op),
         "a tile of " + std::to_string(tile.type.count()) + " elements (" +
             support::byte_size(static_cast<double>(tile.type.count() * ctype_bytes(tile.type.kind))) + "): an instance's tiles need " +
             support::byte_size(static_cast<double>(frame_bytes_)) + " on the cpu target, more than its limit of " +
             support::byte_size(static_cast<double>(kMaxFrameBytes)) + "; use smaller tiles");
}

Emitted emit_cpp(const ir::Program& p, const EmitOptions& options) { return Emitter(p, options).emit(); }

}  // namespace kiln::native
