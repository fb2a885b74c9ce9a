// What crosses the kernel's boundary: constants (namespace-scope arrays with
// exact literals), scalar parameters, and view loads and stores with their bounds
// policies. An access whose box lies inside the view takes a fast path of
// constant-trip loops (32- or 64-bit offsets, the launch's index width); a
// partial box goes to the prelude's generic window walk (bounds::zero) or
// reports the first element outside (bounds::check, bounds::assume).
#include <climits>
#include <cmath>
#include <cstdio>
#include <utility>
#include <cstring>

#include "targets/common/literals.h"
#include "targets/cpu/emit_expr.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

std::string literal(Kind k, double f, std::int64_t i) { return targets::literal(k, f, i, targets::kHostDialect); }

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
    // Constants live at namespace scope; one that only kiln_grid or only kiln_run uses is still no warning.
    if (!array) {
        globals_ << "[[maybe_unused]] const " << T << " " << name << " = " << lit(0) << ";\n";
        return;
    }
    globals_ << "[[maybe_unused]] alignas(64) const " << T << " " << name << "[" << count << "] = {";
    for (std::size_t k = 0; k < count; ++k) globals_ << (k ? (k % 8 ? ", " : ",\n    ") : "") << lit(k);
    globals_ << "};\n";
}

// A scalar argument, rounded or wrapped once to the parameter's kind.
void Emitter::emit_param(const Node& n) {
    const Kind k = n.type.kind;
    const std::string a = "args[" + std::to_string(ir::param_index(n)) + "]";
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

std::string Emitter::access_context() const { return std::to_string(phase_) + ", " + pid_; }

// A load or store of the box [o, o + n) of a view. Inside the view: loops with
// constant trips and offsets in the launch's index width (a literal 1 for a unit
// innermost stride the launch guarantees), `element(e, offset)` giving each
// statement. Partly outside: `partial` (bounds::zero), else the first element
// outside is reported.
void Emitter::emit_access(const Node& n, const std::vector<ir::Dim>& dims, const std::string& pointer_decl,
                          const std::function<std::string(const Index&, const std::string&)>& element,
                          const std::function<void()>& partial, const std::pair<std::string, std::string>& direct,
                          const std::function<std::string(const Index&)>& stream) {
    const int rank = static_cast<int>(dims.size());
    const std::string R = std::to_string(rank);
    // No prefetch chunks in an access's loops (its copy, its partial window): the
    // next instance's lines are issued from the instance's computing loops.
    const std::string chunks = std::exchange(prefetch_step_, std::string());
    open("");
    line("const kiln_cpu::View& view = args[" + std::to_string(ir::param_index(n)) + "].view;");
    std::string o, box;
    for (int k = 0; k < rank; ++k) {
        o += (k ? ", " : "") + at(n.operands[static_cast<std::size_t>(k)], "0");
        box += (k ? ", " : "") + std::to_string(dims[static_cast<std::size_t>(k)].extent);
    }
    line("const long long o[" + R + "] = {" + o + "};");
    line("static const int n[" + R + "] = {" + box + "};");
    open("if (kiln_cpu::inside(" + R + ", o, n, view.extent))");
    const bool unit_inner = opts_.unit_inner.at(static_cast<std::size_t>(ir::param_index(n)));
    std::vector<std::int64_t> extents;
    std::vector<std::string> strides;
    for (int k = 0; k < rank; ++k) {
        extents.push_back(dims[static_cast<std::size_t>(k)].extent);
        if (k == rank - 1 && unit_inner) {
            strides.push_back("1");
        } else {
            strides.push_back("s" + std::to_string(k));
            line("const kiln_index s" + std::to_string(k) + " = (kiln_index)view.stride[" + std::to_string(k) + "];");
        }
    }
    // Inside the view every offset fits the index width (the launch chose it from the views' spans).
    auto scaled = [&](const std::string& x, int k) { return strides[static_cast<std::size_t>(k)] == "1" ? x : x + " * " + strides[static_cast<std::size_t>(k)]; };
    std::string base;
    for (int k = 0; k < rank; ++k) base += (k ? " + " : "") + scaled("(kiln_index)o[" + std::to_string(k) + "]", k);
    line(pointer_decl + " + (" + base + ");");
    if (!direct.first.empty()) {
        open("if (" + direct.first + ")");
        line(direct.second);
        open_else();
    }
    if (stream)
        emit_streamed_rows(n, extents, strides, stream);
    else
        with_fast_math([&] {
        loop_nest(extents, "i", [&](const std::vector<std::string>& vars) {
            std::string e, offset;
            auto rs = ir::strides_of(dims);
            for (int k = 0; k < rank; ++k) {
                const auto ku = static_cast<std::size_t>(k);
                e += (k ? " + " : "") + (rs[ku] == 1 ? vars[ku] : vars[ku] + " * " + std::to_string(rs[ku]));
                offset += (k ? " + " : "") + scaled(vars[ku], k);
            }
            line(element(Index(e, vars, extents), offset));
        }, n.op == OpCode::store);
    });
    if (!direct.first.empty()) close();
    open_else();
    if (ir::bounds_policy(n) == bounds::zero)
        partial();
    else
        line("return " + error_value_ + " * kiln_cpu::out_of_range(st, " + std::to_string(access_number(n)) + ", " + access_context() + ", " + R +
             ", o, n, view.extent);");
    close();
    close();
    prefetch_step_ = chunks;
}

// A view tile (find_view_tiles) is a pointer to the tile where it lies in the
// view when the box is inside and its rows are contiguous there, else to a
// copy; every other load is a copy. An f16/bf16 view tile holds the view's
// 16-bit elements (in the view or copied as they are), each widened where it
// is read.
void Emitter::emit_load(const Node& n) {
    const int rank = p_.params[static_cast<std::size_t>(ir::param_index(n))].rank;
    const std::string K = kind_class(n.type.kind), count = std::to_string(n.type.count());
    const bool in_view = view_tiles_.count(&n) != 0;
    const bool narrow = n.type.kind == Kind::F16 || n.type.kind == Kind::BF16;
    const bool strided = strided_tiles_.count(&n) != 0;
    auto guard = guarded_tiles_.find(&n);
    line("// %" + id(&n) + " = load arg" + std::to_string(ir::param_index(n)) + " bounds=" + std::string(ir::policy_name(ir::bounds_policy(n))) + " : " + ir::print_type(p_, n.type) +
         (!in_view ? "" : strided ? " (read in place, row strides of the view" : " (read in place when contiguous") + std::string(in_view && narrow ? ", widened as read)" : in_view ? ")" : ""));
    if (in_view)
        note(n, std::string("read in place when its box is inside the view") + (strided ? " (at the view's row strides)" : " with contiguous rows") +
                    (guard != guarded_tiles_.end() ? " and the views the kernel writes lie elsewhere" : "") + " (else copied)" +
                    (narrow ? ", its 16-bit elements widened where they are read" : ""));
    else if (narrow)
        note(n, "copied, each 16-bit element widened as copied");
    std::string copy;
    if (in_view && narrow) {
        copy = "v" + id(&n);
        line("alignas(64) " + K + "::mem " + copy + "[" + count + "];");
        frame_bytes_ += n.type.count() * 2;
        storage_[&n] = Storage{copy, true, n.type.count(), nullptr, K};
    } else {
        copy = define(n);
    }
    std::pair<std::string, std::string> direct;
    if (in_view) {
        const std::string name = copy + "_at";
        line("const " + (narrow ? K + "::mem" : ctype(n.type.kind)) + "* " + name + " = " + copy + ";");
        Storage& s = storage_[&n];
        s.name = name;
        // Row-major strides of the tile: the view's must equal them wherever the
        // tile has more than one element along a dim (the innermost is 1:
        // unit_inner), unless the tile is indexed at the view's strides.
        const auto ts = ir::strides_of(n.type.dims);
        std::string when, then = name + " = src;";
        const std::size_t rank_u = n.type.dims.size();
        if (strided) {
            s.extents = extents_of(n.type.dims);
            for (std::size_t k = 0; k < rank_u; ++k) {
                if (k + 1 == rank_u) {
                    s.strides.push_back("1");
                    continue;
                }
                s.strides.push_back(copy + "_s" + std::to_string(k));
                line("kiln_index " + s.strides.back() + " = " + std::to_string(ts[k]) + ";");
                then += " " + s.strides.back() + " = s" + std::to_string(k) + ";";
            }
        } else {
            for (std::size_t k = 0; k + 1 < rank_u; ++k)
                if (n.type.dims[k].extent > 1) when += (when.empty() ? "" : " && ") + ("view.stride[" + std::to_string(k) + "] == " + std::to_string(ts[k]));
        }
        if (guard != guarded_tiles_.end()) {
            const int me = ir::param_index(n);
            for (int w : guard->second)
                when += (when.empty() ? "" : " && ") + ("kiln_cpu::disjoint(args[" + std::to_string(me) + "].view, " + std::to_string(p_.params[static_cast<std::size_t>(me)].rank) +
                                                        ", " + std::to_string(kind_bytes(n.type.kind)) + ", args[" + std::to_string(w) + "].view, " +
                                                        std::to_string(p_.params[static_cast<std::size_t>(w)].rank) + ", " +
                                                        std::to_string(kind_bytes(p_.params[static_cast<std::size_t>(w)].kind)) + ")");
        }
        direct = {when.empty() ? "true" : when, then};
    }
    const std::string fill = ir::has_fallback(n) ? at(n.operands[static_cast<std::size_t>(rank)], "0") : "(" + ctype(n.type.kind) + ")0";
    // A narrow view tile's copy holds the view's bits: copied as they are, the fill encoded once.
    const std::string raw = in_view && narrow ? "kiln_cpu::Raw<" + K + ">" : K;
    emit_access(
        n, n.type.dims, "const " + K + "::mem* src = (const " + K + "::mem*)view.data",
        [&](const Index& e, const std::string& offset) { return copy + "[" + e.linear + "] = " + raw + "::load(src[" + offset + "]);"; },
        [&] {
            line("kiln_cpu::load_window<" + raw + ">(" + copy + ", " + count + ", view.data, " + std::to_string(rank) + ", o, n, view.extent, view.stride, " +
                 (raw == K ? fill : K + "::store(" + fill + ")") + ");");
        },
        direct);
}

void Emitter::emit_streamed_rows(const Node& n, const std::vector<std::int64_t>& extents, const std::vector<std::string>& strides,
                                 const std::function<std::string(const Index&)>& stream) {
    const Node* value = n.operands.back();
    const std::string K = kind_class(value->type.kind);
    const int rank = static_cast<int>(extents.size());
    const std::int64_t row = extents.back(), bytes = static_cast<std::int64_t>(kind_bytes(value->type.kind));
    // Chunks of four lines, each computed into a buffer and streamed out before the
    // next: loads and streaming stores interleave. (Measured by hand on the Zen 4, y =
    // x + v[c] over 4096^2 f32: 2.0-2.4x a plain loop with 256-byte chunks, 1.1x with
    // a 16 KiB row computed whole first.)
    const std::int64_t chunk = std::min<std::int64_t>(row, std::max<std::int64_t>(1, 256 / bytes));
    auto vars = open_loops(std::vector<std::int64_t>(extents.begin(), extents.end() - 1), "i");
    const std::string v = "i" + std::to_string(rank - 1), C = std::to_string(chunk), L = std::to_string(row);
    vars.push_back(v);
    std::string e, offset;
    const auto rs = ir::strides_of(value->type.dims);
    for (int k = 0; k < rank - 1; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        e += (rs[ku] == 1 ? vars[ku] : vars[ku] + " * " + std::to_string(rs[ku])) + " + ";
        offset += (strides[ku] == "1" ? vars[ku] : vars[ku] + " * " + strides[ku]) + " + ";
    }
    e += v;
    open("");
    line(K + "::mem* const stream_dst = dst + (" + offset + "0);");
    line("alignas(64) " + K + "::mem stream_row[" + C + "];");
    frame_bytes_ += chunk * bytes;
    // The chunks start on the destination's 64-byte lines, not at the row's first
    // element: a chunk straddling a line writes part of it with ordinary stores, which
    // then read it first. (Measured by hand, the broadcast add over an output 16 bytes
    // past a line: 1.14-1.16x the plain loop with chunks from the row's start, 1.53-1.59x
    // on a line-aligned output.)
    line("const int stream_head = kiln_cpu::elements_before_line(stream_dst, " + L + ");");
    // Each part computed into the buffer and written out; whole chunks in a loop of
    // constant trips (which GCC vectorises).
    auto chunk_of = [&](const std::string& first, const std::string& count) {
        with_fast_math([&] {
            open("for (int " + v + " = " + first + "; " + v + " < " + first + " + " + count + "; ++" + v + ")");
            line("stream_row[" + v + " - (" + first + ")] = " + K + "::store(" + stream(Index(e, vars, extents)) + ");");
            close();
        });
        line("kiln_cpu::stream_store(stream_dst + " + first + ", stream_row, " + count + ");");
    };
    chunk_of("0", "stream_head");
    line("int stream_c0 = stream_head;");
    open("for (; stream_c0 + " + C + " <= " + L + "; stream_c0 += " + C + ")");
    chunk_of("stream_c0", C);
    close();
    chunk_of("stream_c0", "(" + L + " - stream_c0)");
    close();
    vars.pop_back();
    close_loops(vars);
}

void Emitter::emit_store(const Node& n) {
    const int rank = p_.params[static_cast<std::size_t>(ir::param_index(n))].rank;
    const Node* value = n.operands.back();
    const std::string K = kind_class(value->type.kind);
    const Storage s = storage(value);
    line("// store arg" + std::to_string(ir::param_index(n)) + " bounds=" + std::string(ir::policy_name(ir::bounds_policy(n))) + " : " + ir::print_type(p_, value->type));
    emit_access(
        n, value->type.dims, K + "::mem* dst = (" + K + "::mem*)view.data",
        [&](const Index& e, const std::string& offset) { return "dst[" + offset + "] = " + K + "::store(" + at(value, e) + ");"; },
        [&] {
            // A fused value, or one read in place in another layout or type, has no
            // array of its elements for the window walk: it gets one here, off the fast path.
            std::string src = s.array ? s.name : "&" + s.name;
            if (s.fused || !s.convert.empty() || !s.strides.empty()) {
                src = "part";
                line("alignas(64) " + ctype(value->type.kind) + " part[" + std::to_string(s.count) + "];");
                frame_bytes_ += s.count * ctype_bytes(value->type.kind);
                if (s.fused) materialize(*s.fused, src);
                else line("for (int e = 0; e < " + std::to_string(s.count) + "; ++e) " + src + "[e] = " + at(value, "e") + ";");
            }
            line("kiln_cpu::store_window<" + K + ">(view.data, " + src + ", " + std::to_string(rank) + ", o, n, view.extent, view.stride);");
        },
        {}, streams(n) ? std::function<std::string(const Index&)>([&](const Index& e) { return at(value, e); }) : nullptr);
}

namespace {

// Whether `v` is computed in one pass over loaded elements: from loads, leaves
// (constants, parameters) and scalars through elementwise and shape ops only, so
// that the store computing it is the only pass over its loads, which miss. A
// value fed by a reduction or a scan (a norm's statistics, a running sum) comes
// from rows the instance has already read into its caches, and streaming its
// store measured slower (the rows benchmark on the 2-core Zen 4: bf16 LayerNorm
// 3.2x -> 2.4x the plain loop, scans 0.92-1.32x against 1.07-1.20x; the broadcast
// add 1.34-1.46x against 0.89-0.94x: bench/results/cpu-20261205-s29.md).
bool one_pass_over_loads(const Node* v, int depth = 0) {
    if (depth > 64) return false;  // a long chain: not worth the walk
    switch (ir::category(v->op)) {
    case ir::OpCategory::leaf:
        return true;
    case ir::OpCategory::memory:
        return v->op == OpCode::load;
    case ir::OpCategory::unary:
    case ir::OpCategory::binary:
    case ir::OpCategory::compare:
    case ir::OpCategory::select:
    case ir::OpCategory::cast:
    case ir::OpCategory::shape:
        for (const Node* o : v->operands)
            if (!one_pass_over_loads(o, depth + 1)) return false;
        return true;
    default:
        return false;
    }
}

}  // namespace

StoreStreaming store_streaming(const Node& store, const EmitOptions& o) {
    const auto k = static_cast<std::size_t>(ir::param_index(store));
    const Node* value = store.operands.back();
    if (k >= o.stream_stores.size() || !o.stream_stores[k]) return StoreStreaming::view_not_eligible;
    if (value->type.dims.empty() || value->type.dims.back().extent * static_cast<std::int64_t>(kind_bytes(value->type.kind)) < 64)
        return StoreStreaming::rows_under_a_line;
    if (!o.stream_every_store && !one_pass_over_loads(value)) return StoreStreaming::value_not_one_pass;
    return StoreStreaming::streams;
}

// Whether store `n` writes around the caches (store_streaming).
bool Emitter::streams(const Node& n) const { return store_streaming(n, opts_) == StoreStreaming::streams; }

}  // namespace kiln::native
