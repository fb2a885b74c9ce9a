// Loads and stores. A tile's runs (emit.h) are row-major-consecutive elements of one
// tile row, so a run is contiguous in memory when the view's innermost stride is 1,
// and consecutive threads hold consecutive runs: a warp's accesses to a contiguous
// row coalesce. A run of V elements is moved with 16-byte (or V-element) vector
// accesses when, at run time, the innermost stride is 1, the run's address is
// aligned to the access and (bounds::zero) the whole run is in range; otherwise
// element by element, each masked on its own (ragged edges, odd strides, misaligned
// views). Coordinates are checked in 64 bits (origins are i64 scalars); offsets are
// computed in kiln_idx, 32 bits unless a view's reachable span needs 64 (chosen per
// launch, part of the cache key).
#include "targets/cuda/emitter.h"

namespace kiln::cu {

std::string from_storage(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return "kc::h2f(" + x + ")";
        case Kind::BF16: return "kc::b2f(" + x + ")";
        case Kind::Bool: return "(" + x + " != 0)";
        case Kind::I8: return "(int)" + x;
        default: return x;
    }
}

std::string to_storage(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return "kc::f2h(" + x + ")";
        case Kind::BF16: return "kc::f2b(" + x + ")";
        case Kind::Bool: return "(unsigned char)(" + x + " ? 1 : 0)";
        case Kind::I8: return "(signed char)" + x;
        default: return x;
    }
}

namespace {

bool checked(const Node& n) { return ir::bounds_policy(n) != bounds::assume; }

// The view coordinates of tile element e: one 64-bit variable per dim.
std::vector<std::string> coordinates(Emitter& E, const Node& n, const std::vector<Dim>& dims, const std::string& e) {
    std::vector<std::string> c;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        c.push_back(E.fresh("c"));
        E.line("const long long " + c.back() + " = " + E.name(n.operands[d]) + " + " + coord(e, dims, d) + ";");
    }
    return c;
}

std::string extent(const Node& n, std::size_t d) { return "a" + num(ir::param_index(n)) + "_e" + num(static_cast<std::int64_t>(d)); }
std::string stride(const Node& n, std::size_t d) { return "a" + num(ir::param_index(n)) + "_s" + num(static_cast<std::int64_t>(d)); }

// One unsigned compare covers c < 0 and c >= extent.
std::string in_range(const Node& n, std::size_t d, const std::string& c) {
    return "(unsigned long long)" + c + " < (unsigned long long)" + extent(n, d);
}

// The element offset of coordinates c (dims first..last), in kiln_idx.
std::string offset(const Node& n, const std::vector<std::string>& c) {
    std::string s;
    for (std::size_t d = 0; d < c.size(); ++d)
        s += (s.empty() ? "" : " + ") + ("(kiln_idx)" + c[d] + " * (kiln_idx)" + stride(n, d));
    return s;
}

// Element by element: access(element e, in-range condition or "" (bounds::assume), offset).
using ElementAccess = std::function<void(const std::string& e, const std::string& ok, const std::string& off)>;

void each_element_access(Emitter& E, const Node& n, const std::vector<Dim>& dims, const std::string& e, const ElementAccess& access) {
    auto c = coordinates(E, n, dims, e);
    std::string ok;
    if (checked(n))
        for (std::size_t d = 0; d < dims.size(); ++d) ok += (ok.empty() ? "" : " && ") + in_range(n, d, c[d]);
    access(e, ok, offset(n, c));
}

// ---- runs

// Whether tile `tile` of a load or store moves in runs: its layout has runs longer
// than one element and they never cross a row of the tile.
bool moves_in_runs(const Emitter& E, const Node* tile) {
    auto l = E.layout(tile);
    return !l.uniform && l.vec > 1 && tile->type.dims.back().extent % l.vec == 0;
}

// Visits each run q of this thread's part of `tile` (the view holds its elements as
// `storage`) and emits the run-time test: vector(pointer, access bytes) emits the
// vector access, element(k, in-range condition, offset) the access to element k of
// the run when the test fails, past_end() what a run past the tile's end does.
// The run starting at coordinates c can move as one vector: unit stride along the
// row and (bounds::zero) every element in range: every other coordinate, and the
// first and last along the row.
std::string whole_run(const Node& n, const std::vector<std::string>& c, std::int64_t vec) {
    std::size_t last = c.size() - 1;
    std::string whole;
    if (checked(n)) {
        for (std::size_t d = 0; d < last; ++d) whole += in_range(n, d, c[d]) + " && ";
        whole += c[last] + " >= 0 && " + c[last] + " + " + num(vec) + " <= " + extent(n, last) + " && ";
    }
    return whole + stride(n, last) + " == 1";
}

struct RunAccess {
    std::function<void(const std::string& p, int bytes)> vector;
    std::function<void(int k, const std::string& ok, const std::string& off)> element;
    std::function<void()> past_end;
};

void each_run(Emitter& E, const Node& n, const Node* tile, Kind storage, bool is_load, const RunAccess& r) {
    const auto& dims = tile->type.dims;
    auto l = E.layout(tile);
    std::size_t last = dims.size() - 1;
    std::string a = "a" + num(ir::param_index(n));
    int bytes = static_cast<int>(std::min<std::int64_t>(16, l.vec * storage_bytes(storage)));
    E.line("#pragma unroll");
    E.open("for (int q = 0; q < " + num(l.runs) + "; ++q)");
    E.line("const int e = " + E.run_start(tile, "q") + ";");
    if (E.ragged(tile)) E.open("if (e < " + num(l.count) + ")");
    auto c = coordinates(E, n, dims, "e");
    std::string w = E.fresh("whole"), p = E.fresh("p");
    E.line("const bool " + w + " = " + whole_run(n, c, l.vec) + ";");
    // The offset is computed only for a run in range (no overflow from far-away coordinates).
    E.line(std::string(is_load ? "const " : "") + stype(storage) + "* const " + p + " = " + w + " ? " + a + " + (" + offset(n, c) +
           ") : " + a + ";");
    E.open("if (" + w + " && ((unsigned long long)" + p + " & " + num(bytes - 1) + ") == 0)");
    r.vector(p, bytes);
    E.otherwise();
    for (int k = 0; k < l.vec; ++k) {
        std::string ck = E.fresh("c");
        E.line("const long long " + ck + " = " + c[last] + " + " + num(k) + ";");
        auto ce = c;
        ce[last] = ck;
        std::string ok;
        if (checked(n))
            for (std::size_t d = 0; d < dims.size(); ++d) ok += (ok.empty() ? "" : " && ") + in_range(n, d, ce[d]);
        r.element(k, ok, offset(n, ce));
    }
    E.close();
    if (E.ragged(tile)) {
        E.otherwise();
        r.past_end();
        E.close();
    }
    E.close();
}

void load(Emitter& E, const Node& n) {
    std::string a = "a" + num(ir::param_index(n));
    Kind k = n.type.kind;
    std::size_t rank = n.type.dims.size();
    std::string fill = ir::has_fallback(n) ? E.at(n.operands[rank]) : literal(k, 0, 0);
    std::string policy = checked(n) ? "masked (bounds::zero)" : "unchecked (bounds::assume)";
    if (!moves_in_runs(E, &n)) {
        E.each_element(&n, [&](const std::string& e, const std::string& dst) {
            each_element_access(E, n, n.type.dims, e, [&](const std::string&, const std::string& ok, const std::string& off) {
                std::string value = from_storage(k, a + "[" + off + "]");
                E.line(dst + " = " + (ok.empty() ? value : "(" + ok + ") ? " + value + " : " + fill) + ";");
            });
        });
        E.note(n, "global load, " + policy);
        return;
    }
    auto l = E.layout(&n);
    std::string v = E.name(&n), st = stype(k);
    E.line(ctype(k) + " " + v + "[" + num(l.slots()) + "];");
    auto slot = [&](int i) { return v + "[q * " + num(l.vec) + " + " + num(i) + "]"; };
    int vector_bytes = 0;
    // When every run of this thread can move as a vector (the common case: a tile
    // inside its view), all the vector loads are issued before any is used, under
    // one branch. Per-run branches (below) would make each load wait for the one
    // before it to arrive: a memory latency per run instead of one per tile.
    // Only for storage narrower than its registers (f16, bf16, i8, bool): there the
    // raw words take a fraction of the registers they fill; for 4- and 8-byte kinds
    // the batch doubled the registers live while loading and made ptxas spill a
    // several-row f32 kernel (CudaCompile.SeveralRowsPerProgram...).
    const bool batched = !E.ragged(&n) && storage_bytes(k) < register_bytes(k);
    if (batched) {
        const int bytes = static_cast<int>(std::min<std::int64_t>(16, l.vec * storage_bytes(k)));
        const std::string wt = word_type(bytes), all = E.fresh("all_whole"), raw = E.fresh("raw");
        const std::int64_t words = l.vec * storage_bytes(k) / bytes;
        E.line("bool " + all + " = true;");
        E.line("#pragma unroll");
        E.open("for (int q = 0; q < " + num(l.runs) + "; ++q)");
        E.line("const int e = " + E.run_start(&n, "q") + ";");
        auto c = coordinates(E, n, n.type.dims, "e");
        std::string w = E.fresh("whole");
        E.line("const bool " + w + " = " + whole_run(n, c, l.vec) + ";");
        // The offset is formed only for a run in range (no overflow from far-away coordinates).
        E.line(all + " = " + all + " && " + w + " && ((unsigned long long)(" + a + " + (" + w + " ? " + offset(n, c) + " : 0)) & " +
               num(bytes - 1) + ") == 0;");
        E.close();
        E.open("if (" + all + ")");
        E.line("__align__(16) " + st + " " + raw + "[" + num(l.runs * l.vec) + "];");
        E.line("#pragma unroll");
        E.open("for (int q = 0; q < " + num(l.runs) + "; ++q)");
        E.line("const int e = " + E.run_start(&n, "q") + ";");
        auto c2 = coordinates(E, n, n.type.dims, "e");
        for (std::int64_t at = 0; at < words; ++at)
            E.line("reinterpret_cast<" + wt + "*>(" + raw + ")[q * " + num(words) + " + " + num(at) + "] = reinterpret_cast<const " + wt + "*>(" +
                   a + " + (" + offset(n, c2) + "))[" + num(at) + "];");
        E.close();
        E.line("#pragma unroll");
        E.open("for (int q = 0; q < " + num(l.runs) + "; ++q)");
        for (int i = 0; i < l.vec; ++i) E.line(slot(i) + " = " + from_storage(k, raw + "[q * " + num(l.vec) + " + " + num(i) + "]") + ";");
        E.close();
        E.otherwise();
    }
    each_run(E, n, &n, k, true,
             {[&](const std::string& p, int bytes) {
                  vector_bytes = bytes;
                  std::string wt = word_type(bytes);
                  std::string buf = E.fresh("run");
                  E.line("__align__(16) " + st + " " + buf + "[" + num(l.vec) + "];");
                  for (std::int64_t at = 0; at < l.vec * storage_bytes(k) / bytes; ++at)
                      E.line("reinterpret_cast<" + wt + "*>(" + buf + ")[" + num(at) + "] = reinterpret_cast<const " + wt + "*>(" + p + ")[" +
                             num(at) + "];");
                  for (int i = 0; i < l.vec; ++i) E.line(slot(i) + " = " + from_storage(k, buf + "[" + num(i) + "]") + ";");
              },
              [&](int i, const std::string& ok, const std::string& off) {
                  std::string value = from_storage(k, a + "[" + off + "]");
                  E.line(slot(i) + " = " + (ok.empty() ? value : "(" + ok + ") ? " + value + " : " + fill) + ";");
              },
              [&] {  // slots past the tile's end hold zeros, as each_element leaves them
                  for (int i = 0; i < l.vec; ++i) E.line(slot(i) + " = " + literal(k, 0, 0) + ";");
              }});
    if (batched) E.close();
    E.note(n, "global load in runs of " + num(l.vec) + " (" + num(vector_bytes) + "-byte vectors when the view allows), " + policy);
}

// The value whose registers a store converts to storage. A store of cast<f16 or
// bf16>(x), x held in float (f32, f16, bf16), converts x itself: rounding x to the
// narrow kind and converting the (representable) result gives the bits of one
// rounding, so one conversion instruction replaces three. Same dims, same layout.
const Node* stored_registers(const Node* value) {
    Kind k = value->type.kind;
    if (value->op != OpCode::cast || (k != Kind::F16 && k != Kind::BF16)) return value;
    Kind from = value->operands[0]->type.kind;
    return from == Kind::F32 || from == Kind::F16 || from == Kind::BF16 ? value->operands[0] : value;
}

void store(Emitter& E, const Node& n) {
    std::string a = "a" + num(ir::param_index(n));
    const Node* value = stored_registers(n.operands.back());
    Kind k = n.operands.back()->type.kind;  // the view's kind
    if (!moves_in_runs(E, value)) {
        E.each_owned(value, [&](const std::string& e, const std::string& v) {
            each_element_access(E, n, value->type.dims, e, [&](const std::string&, const std::string& ok, const std::string& off) {
                std::string write = a + "[" + off + "] = " + to_storage(k, v) + ";";
                E.line(ok.empty() ? write : "if (" + ok + ") " + write);
            });
        });
        return;
    }
    auto l = E.layout(value);
    std::string v = E.name(value), st = stype(k);
    auto slot = [&](int i) { return v + "[q * " + num(l.vec) + " + " + num(i) + "]"; };
    each_run(E, n, value, k, false,
             {[&](const std::string& p, int bytes) {
                  std::string wt = word_type(bytes);
                  std::string buf = E.fresh("run");
                  E.line("__align__(16) " + st + " " + buf + "[" + num(l.vec) + "];");
                  for (int i = 0; i < l.vec; ++i) E.line(buf + "[" + num(i) + "] = " + to_storage(k, slot(i)) + ";");
                  for (std::int64_t at = 0; at < l.vec * storage_bytes(k) / bytes; ++at)
                      E.line("reinterpret_cast<" + wt + "*>(" + p + ")[" + num(at) + "] = reinterpret_cast<const " + wt + "*>(" + buf + ")[" +
                             num(at) + "];");
              },
              [&](int i, const std::string& ok, const std::string& off) {
                  std::string write = a + "[" + off + "] = " + to_storage(k, slot(i)) + ";";
                  E.line(ok.empty() ? write : "if (" + ok + ") " + write);
              },
              [] {}});
}

}  // namespace

void emit_memory(Emitter& E, const Node& n) {
    if (n.op == OpCode::load) load(E, n);
    else store(E, n);
}

}  // namespace kiln::cu
