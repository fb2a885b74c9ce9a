// Loads and stores. A tile's runs (emit.h) are row-major-consecutive elements of one
// tile row, so a run is contiguous in memory when the view's innermost stride is 1,
// and consecutive threads hold consecutive runs: a warp's accesses to a contiguous
// row coalesce. A run of V elements is moved with 16-byte (or V-element) vector
// accesses when, at run time, the innermost stride is 1 and (bounds::zero) the
// whole run is in range: from its own address when that is aligned to the access,
// else (a row that starts off the alignment, in a launch that may have one) as the
// aligned vectors the warp's runs straddle, shifted between neighbouring lanes
// (emit_shifted_runs.h); otherwise element by element, each masked on its
// own (ragged edges, odd strides). Coordinates are checked in 64 bits (origins are
// i64 scalars); offsets are computed in kiln_idx, 32 bits unless a view's
// reachable span needs 64 (chosen per launch, part of the cache key).
#include "targets/cuda/emit_shifted_runs.h"
#include "targets/cuda/emitter.h"
#include "targets/cuda/view_access.h"

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

namespace {

using view_access::checked;
using view_access::coordinates;
using view_access::extent;
using view_access::in_range;
using view_access::offset;
using view_access::stride;

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

// Whether the load or store moves its tile in runs (the layout pass decided).
bool moves_in_runs(const Emitter& E, const Node& n) { return E.decision(&n).how == passes::CudaLowering::vector_access; }

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

// A tile of one row (every dim but the last of extent 1): its elements' offsets are
// the row's plus their columns.
bool one_row_tile(const std::vector<Dim>& dims) {
    for (std::size_t d = 0; d + 1 < dims.size(); ++d)
        if (dims[d].extent != 1) return false;
    return !dims.empty();
}

// The tile-side facts of run q of this thread: where it starts, whether the thread
// holds it, and (for a row whose last run is partial) how many of its elements
// are in the tile.
struct Run {
    std::string e;         // its first element (an int variable)
    std::string held;      // "" when every thread holds every run
    std::string col;       // its first column in the distributed tile
    bool may_be_partial = false;
};

Run run_of(Emitter& E, const Node* tile) {
    auto l = E.layout(tile);
    Run r;
    r.e = "e";
    r.held = E.valid(tile, "q * " + num(l.vec));
    r.col = E.col_of(l, "q * " + num(l.vec));
    r.may_be_partial = l.cols % l.vec != 0;
    if (l.shifted) {  // aligned slots: the row's first run may start before column 0
        r.held = "(" + r.col + ") + " + num(l.vec) + " > 0 && (" + r.col + ") < " + num(l.cols);
        r.may_be_partial = true;
    }
    return r;
}

struct RunAccess {
    VectorAccess vector;
    std::function<void(int k, const std::string& ok, const std::string& off)> element;
    std::function<void()> past_end;
};

// A whole run (in the tile and the view) off its vector's alignment, a row of a
// 5123-column f32 matrix say: moved in the widest narrower vectors its address
// allows, down to one element an access, as `else if` branches after the vector's.
// In range as a whole, its elements need no bounds test of their own: the run's
// code is its accesses, where element_by_element tests every element's coordinates
// against the tile and the view (ncu on an H100: such f32 rows at 57% of DRAM
// bandwidth and 51% of issue slots, bench/results/gpu-20261205-s28).
void narrower_vectors(Emitter& E, const std::string& whole, const std::string& p, int bytes, int element_bytes,
                      const VectorAccess& vector) {
    for (int b = bytes / 2; b >= element_bytes; b /= 2) {
        const std::string aligned = b > element_bytes ? " && ((unsigned long long)" + p + " & " + num(b - 1) + ") == 0" : "";
        E.open("else if (" + whole + aligned + ")");
        vector(p, b);
        E.close();
    }
}

// Visits each run q of this thread's part of `tile` (the view holds its elements as
// `storage`) and emits the run-time test: vector(pointer, access bytes) emits the
// vector access, element(k, condition, offset) the access to element k of the run
// when the test fails (the condition: in the tile and, under bounds::zero, in the
// view; "" when always), past_end() (if set) what a run the thread does not hold does.
// `writer`: the condition under which this thread writes (stores of a value several
// threads hold), "" when always. Where runs of a misaligned row shift (shifts_runs),
// a load reads the aligned chunk at each run's start and records the run's
// misalignment in `shifts[q]` (unshift_runs completes it); a store goes through
// shifted_store, which every lane of the warp (or the instance) reaches.
void each_run(Emitter& E, const Node& n, const Node* tile, Kind storage, bool is_load, const std::string& writer, const RunAccess& r,
              const std::string& shifts = "") {
    const auto& dims = tile->type.dims;
    auto l = E.layout(tile);
    std::size_t last = dims.size() - 1;
    std::string a = "a" + num(ir::param_index(n));
    int bytes = static_cast<int>(std::min<std::int64_t>(16, l.vec * storage_bytes(storage)));
    const bool shifted = shifts_runs(E, l, storage) && (!is_load || !shifts.empty());
    Run run;
    std::vector<std::string> c;
    auto element_by_element = [&] {
        for (int k = 0; k < l.vec; ++k) {
            std::string ck = E.fresh("c");
            E.line("const long long " + ck + " = " + c[last] + " + " + num(k) + ";");
            auto ce = c;
            ce[last] = ck;
            std::string ok = run.may_be_partial ? "(" + run.col + ") + " + num(k) + " < " + num(l.cols) : "";
            if (l.shifted) ok += " && (" + run.col + ") + " + num(k) + " >= 0";
            if (checked(n))
                for (std::size_t d = 0; d < dims.size(); ++d) ok += (ok.empty() ? "" : " && ") + in_range(n, d, ce[d]);
            r.element(k, ok, offset(n, ce));
        }
    };
    std::string w = E.fresh("whole"), p = E.fresh("p");
    auto whole_and_pointer = [&](const std::string& held) {
        c = coordinates(E, n, dims, "e");
        std::string in_tile = run.may_be_partial ? "(" + run.col + ") + " + num(l.vec) + " <= " + num(l.cols) + " && " : "";
        if (l.shifted) in_tile += "(" + run.col + ") >= 0 && ";
        E.line("const bool " + w + " = " + held + in_tile + whole_run(n, c, l.vec) + ";");
        // The offset is computed only for a run in range (no overflow from far-away coordinates).
        E.line(std::string(is_load ? "const " : "") + stype(storage) + "* const " + p + " = " + w + " ? " + a + " + (" + offset(n, c) +
               ") : " + a + ";");
    };
    if (!shifted) {
        // Everything inside the thread's own runs: this is the code of every aligned
        // launch, and its registers are what the layouts were tuned for.
        if (!writer.empty()) E.open("if (" + writer + ")");
        // The loop over this thread's runs: `access` emits a held run's (q, e and run
        // set), r.past_end what a run the thread does not hold does.
        // `every_thread`: the runs before the row's first partial round of threads are
        // held by every thread (q < C / G: run q's columns are q G .. q G + G - 1), said
        // so that the unrolled loop tests only the last ones (elements dealt one a
        // thread in turn: slot q of lane t holds column q G + t).
        auto over_runs = [&](const std::function<void()>& access, bool every_thread = false) {
            E.line("#pragma unroll");
            E.open("for (int q = 0; q < " + num(l.slots() / l.vec) + "; ++q)");
            E.line("const int e = " + E.element(tile, "q * " + num(l.vec)) + ";");
            run = run_of(E, tile);
            const std::int64_t whole_rounds = l.cols / l.group;
            if (every_thread && !l.shifted && !run.held.empty() && whole_rounds > 0) run.held = "q < " + num(whole_rounds) + " || (" + run.held + ")";
            if (!run.held.empty()) E.open("if (" + run.held + ")");
            access();
            if (!run.held.empty()) {
                if (r.past_end) {
                    E.otherwise();
                    r.past_end();
                }
                E.close();
            }
            E.close();
        };
        // Runs of one element of a one-row tile (a row dealt one element a thread in
        // turn): where the whole row is in the view with a unit stride, every element is
        // its row's offset plus its column, with neither bounds tests nor offset
        // arithmetic of its own (an element's access is then its load or store; each
        // had ten instructions of tests and addressing, and such rows are issue bound:
        // bench/results/gpu-20261206-s36/; EmitOptions::whole_rows). Else as below.
        std::string whole_row;
        if (l.vec == 1 && !l.shifted && E.options().whole_rows && one_row_tile(dims)) {
            whole_row = E.fresh("whole_row");
            const std::string row_at = E.fresh("row_at");
            const std::vector<std::string> origin = coordinates(E, n, dims, "0");
            E.line("const bool " + whole_row + " = " + whole_run(n, origin, dims.back().extent) + ";");
            // (Computed only for a row in range: no overflow from far-away coordinates.)
            E.line("const kiln_idx " + row_at + " = " + whole_row + " ? (kiln_idx)(" + offset(n, origin) + ") : (kiln_idx)0;");
            E.open("if (" + whole_row + ")");
            const bool dealt_row = l.row_rounds == 1 && l.rows_per_round() == 1;  // one row, column q G + t in slot q of lane t
            over_runs([&] { r.element(0, "", row_at + " + (kiln_idx)e"); }, dealt_row);
            E.close();
            E.open("else");
        }
        over_runs([&] {
            if (l.vec == 1) {
                // Runs of one element (dealt one a thread in turn): the element's own access
                // is the run's; a vector test besides would only double its code.
                c = coordinates(E, n, dims, "e");
                element_by_element();
                return;
            }
            whole_and_pointer("");
            E.open("if (" + w + " && ((unsigned long long)" + p + " & " + num(bytes - 1) + ") == 0)");
            r.vector(p, bytes);
            E.close();
            // Only where the launch has such rows: aligned launches compile as before.
            if ((E.options().misaligned_rows || l.shifted) && E.options().narrower_vectors) narrower_vectors(E, w, p, bytes, storage_bytes(storage), r.vector);
            E.open("else");
            element_by_element();
            E.close();
        });
        if (!whole_row.empty()) E.close();
        if (!writer.empty()) E.close();
        return;
    }
    // Shifted: every lane of the warp reaches the shuffles (held runs or not).
    E.line("#pragma unroll");
    E.open("for (int q = 0; q < " + num(l.slots() / l.vec) + "; ++q)");
    E.line("const int e = " + E.element(tile, "q * " + num(l.vec)) + ";");
    run = run_of(E, tile);
    std::string held = run.held;
    if (!writer.empty()) held = held.empty() ? writer : "(" + held + ") && (" + writer + ")";
    std::string h = E.fresh("held");
    E.line("const bool " + h + " = " + (held.empty() ? "true" : held) + ";");
    whole_and_pointer(h + " && ");
    std::string mis = E.fresh("mis");
    E.line("const unsigned " + mis + " = " + w + " ? (unsigned)((unsigned long long)" + p + " & " + num(bytes - 1) + "u) : 0u;");
    if (is_load) {
        E.line(shifts + "[q] = " + mis + ";");
        E.open("if (" + w + ")");
        r.vector("reinterpret_cast<const " + stype(storage) + "*>(reinterpret_cast<const char*>(" + p + ") - " + mis + ")", bytes);
    } else {
        E.open("if (" + w + " && " + mis + " == 0u)");
        r.vector(p, bytes);
    }
    E.close();
    E.open(is_load ? "else if (" + h + ")" : "else if (!" + w + " && " + h + ")");  // a store's shifted runs: shifted_store
    element_by_element();
    E.close();
    if (!held.empty() && r.past_end) {
        E.open("else");
        r.past_end();
        E.close();
    }
    if (!is_load) shifted_store(E, p, mis, storage, l.vec, bytes, dims.back().extent, r.vector);
    E.close();
}

// Fills `dst` (the load's slots) run by run: a vector access where the run allows,
// else element by element, each masked. `raw`: dst holds the view's storage type
// (a 16-byte aligned array; convert_runs converts it later), else the register type.
void fill_runs(Emitter& E, const Node& n, const std::string& dst, bool raw) {
    const std::string a = "a" + num(ir::param_index(n));
    const Kind k = n.type.kind;
    const std::size_t rank = n.type.dims.size();
    const auto l = E.layout(&n);
    const std::string st = stype(k);
    const std::string fill = ir::has_fallback(n) ? E.at(n.operands[rank]) : literal(k, 0, 0);
    const std::string raw_fill = ir::has_fallback(n) ? to_storage(k, fill) : "(" + st + ")0";
    auto slot = [&](int i) { return dst + "[q * " + num(l.vec) + " + " + num(i) + "]"; };
    each_run(E, n, &n, k, true, "",
             {[&](const std::string& p, int bytes) {
                  std::string wt = word_type(bytes);
                  std::string buf = raw ? dst + " + q * " + num(l.vec) : E.fresh("run");
                  if (!raw) E.line("__align__(16) " + st + " " + buf + "[" + num(l.vec) + "];");
                  for (std::int64_t at = 0; at < l.vec * storage_bytes(k) / bytes; ++at)
                      E.line("reinterpret_cast<" + wt + "*>(" + buf + ")[" + num(at) + "] = reinterpret_cast<const " + wt + "*>(" + p + ")[" +
                             num(at) + "];");
                  if (!raw)
                      for (int i = 0; i < l.vec; ++i) E.line(slot(i) + " = " + from_storage(k, buf + "[" + num(i) + "]") + ";");
              },
              [&](int i, const std::string& ok, const std::string& off) {
                  std::string value = raw ? a + "[" + off + "]" : from_storage(k, a + "[" + off + "]");
                  E.line(slot(i) + " = " + (ok.empty() ? value : "(" + ok + ") ? " + value + " : " + (raw ? raw_fill : fill)) + ";");
              },
              [&] {  // runs the thread does not hold read as zeros, as each_element leaves them
                  for (int i = 0; i < l.vec; ++i) E.line(slot(i) + " = " + (raw ? "(" + st + ")0" : literal(k, 0, 0)) + ";");
              }},
             raw ? shift_record(E, n, dst) : "");
}

// The load's value array (declared by the caller) from the raw words fill_runs left in `raw`.
void convert_runs(Emitter& E, const Node& n, const std::string& raw) {
    const auto l = E.layout(&n);
    const std::string v = E.name(&n);
    E.line("#pragma unroll");
    E.open("for (int q = 0; q < " + num(l.slots() / l.vec) + "; ++q)");
    for (int i = 0; i < l.vec; ++i) {
        std::string at = "[q * " + num(l.vec) + " + " + num(i) + "]";
        E.line(v + at + " = " + from_storage(n.type.kind, raw + at) + ";");
    }
    E.close();
}

// The plan line of a load in runs; `when` says when it was issued ("" in its turn).
void note_runs(Emitter& E, const Node& n, const std::string& when) {
    const auto l = E.layout(&n);
    const int vector_bytes = static_cast<int>(std::min<std::int64_t>(16, l.vec * storage_bytes(n.type.kind)));
    const std::string where = l.holds == passes::CudaHolds::columns ? " of the tile's columns" : "";
    const std::string shifted = shifts_runs(E, l, n.type.kind) ? "; misaligned rows as aligned vectors shifted between lanes" : "";
    const std::string how = l.vec == 1 ? "global load of elements dealt one a thread in turn" + where + ", "
                                       : "global load in runs of " + num(l.vec) + where + " (" + num(vector_bytes) + "-byte vectors when the view allows" + shifted + "), ";
    E.note(n, how + when + (checked(n) ? "masked (bounds::zero)" : "unchecked (bounds::assume)"));
}

void load(Emitter& E, const Node& n) {
    std::string a = "a" + num(ir::param_index(n));
    Kind k = n.type.kind;
    std::size_t rank = n.type.dims.size();
    std::string fill = ir::has_fallback(n) ? E.at(n.operands[rank]) : literal(k, 0, 0);
    std::string policy = checked(n) ? "masked (bounds::zero)" : "unchecked (bounds::assume)";
    if (!moves_in_runs(E, n)) {
        E.each_element(&n, [&](const std::string& e, const std::string& dst) {
            each_element_access(E, n, n.type.dims, e, [&](const std::string&, const std::string& ok, const std::string& off) {
                std::string value = from_storage(k, a + "[" + off + "]");
                E.line(dst + " = " + (ok.empty() ? value : "(" + ok + ") ? " + value + " : " + fill) + ";");
            });
        });
        std::string why = E.decision(&n).why;
        E.note(n, "global load element by element" + (why.empty() ? "" : " (" + why + ")") + ", " + policy);
        return;
    }
    auto l = E.layout(&n);
    std::string v = E.name(&n), st = stype(k);
    const std::int64_t runs = l.slots() / l.vec;
    E.line(ctype(k) + " " + v + "[" + num(l.slots()) + "];");
    int vector_bytes = static_cast<int>(std::min<std::int64_t>(16, l.vec * storage_bytes(k)));
    const bool narrow = storage_bytes(k) < register_bytes(k);
    // When every run of this thread can move as a vector (the common case: a tile
    // inside its view), all the vector loads are issued before any is used, under
    // one branch. Per-run branches that also converted each run would make each load
    // wait for the one before it to arrive: a memory latency per run instead of one
    // per tile. Only for storage narrower than its registers (f16, bf16, i8, bool):
    // there the raw words take a fraction of the registers they fill; for 4- and
    // 8-byte kinds the batch doubled the registers live while loading and made ptxas
    // spill a several-row f32 kernel (CudaCompile.SeveralRowsPerProgram...).
    const bool batched = !E.ragged(&n) && l.cols % l.vec == 0 && narrow;
    if (batched) {
        const int bytes = vector_bytes;
        const std::string wt = word_type(bytes), all = E.fresh("all_whole"), raw = E.fresh("raw");
        const std::int64_t words = l.vec * storage_bytes(k) / bytes;
        E.line("bool " + all + " = true;");
        E.line("#pragma unroll");
        E.open("for (int q = 0; q < " + num(runs) + "; ++q)");
        E.line("const int e = " + E.element(&n, "q * " + num(l.vec)) + ";");
        auto c = coordinates(E, n, n.type.dims, "e");
        std::string w = E.fresh("whole");
        E.line("const bool " + w + " = " + whole_run(n, c, l.vec) + ";");
        // The offset is formed only for a run in range (no overflow from far-away coordinates).
        E.line(all + " = " + all + " && " + w + " && ((unsigned long long)(" + a + " + (" + w + " ? " + offset(n, c) + " : 0)) & " +
               num(bytes - 1) + ") == 0;");
        E.close();
        // The lanes that shuffle together take one branch (unshift_runs shuffles among them).
        E.open(shifts_runs(E, l, k) ? "if (__all_sync(" + E.shuffle_mask() + ", " + all + "))" : "if (" + all + ")");
        E.line("__align__(16) " + st + " " + raw + "[" + num(runs * l.vec) + "];");
        E.line("#pragma unroll");
        E.open("for (int q = 0; q < " + num(runs) + "; ++q)");
        E.line("const int e = " + E.element(&n, "q * " + num(l.vec)) + ";");
        auto c2 = coordinates(E, n, n.type.dims, "e");
        for (std::int64_t at = 0; at < words; ++at)
            E.line("reinterpret_cast<" + wt + "*>(" + raw + ")[q * " + num(words) + " + " + num(at) + "] = reinterpret_cast<const " + wt + "*>(" +
                   a + " + (" + offset(n, c2) + "))[" + num(at) + "];");
        E.close();
        convert_runs(E, n, raw);
        E.otherwise();
    }
    // Run by run. Narrow storage lands in raw words first and is converted after the
    // last run, so that no run's conversion waits for its load before the next load issues.
    if (narrow) {
        std::string raw = E.fresh("raw");
        E.line("__align__(16) " + st + " " + raw + "[" + num(runs * l.vec) + "];");
        declare_shift_record(E, n, raw);
        fill_runs(E, n, raw, true);
        unshift_runs(E, n, raw);
        convert_runs(E, n, raw);
    } else {
        fill_runs(E, n, v, false);
    }
    if (batched) E.close();
    note_runs(E, n, "");
}

void store(Emitter& E, const Node& n) {
    // An argument the kernel also loads, updated in place: every thread of the
    // instance must have read its elements before one of them overwrites them. An
    // exchange between the load and the store had a barrier; without one (a loop of
    // no trips in between, say) the thread storing an element could run ahead of
    // the others reading it, as the emulator's fibers showed (the fuzz program
    // 6000178: one thread's store of a value the others then loaded).
    if (E.loads_param(ir::param_index(n))) E.barrier();
    std::string a = "a" + num(ir::param_index(n));
    const Node* value = stored_registers(n.operands.back());
    Kind k = n.operands.back()->type.kind;  // the view's kind
    if (!moves_in_runs(E, n)) {
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
    // A value several threads hold is written by one of them.
    each_run(E, n, value, k, false, E.owner(value),
             {[&](const std::string& p, int bytes) {
                  std::string wt = word_type(bytes);
                  std::string buf = E.fresh("run");
                  E.line("__align__(16) " + st + " " + buf + "[" + num(l.vec) + "];");
                  if ((k == Kind::F16 || k == Kind::BF16) && l.vec % 2 == 0) {
                      // Pairs convert in one instruction (cvt.rn.bf16x2.f32).
                      const bool by_minimum = E.nan_by_minimum();
                      if (by_minimum) E.used_nan_by_minimum();
                      const std::string pair = std::string(k == Kind::F16 ? "kc::f2h2" : "kc::f2b2") + (by_minimum ? "_min(" : "(");
                      for (int i = 0; i < l.vec; i += 2)
                          E.line("reinterpret_cast<unsigned*>(" + buf + ")[" + num(i / 2) + "] = " + pair + slot(i) + ", " + slot(i + 1) + ");");
                  } else {
                      for (int i = 0; i < l.vec; ++i) E.line(buf + "[" + num(i) + "] = " + to_storage(k, slot(i)) + ";");
                  }
                  for (std::int64_t at = 0; at < l.vec * storage_bytes(k) / bytes; ++at)
                      E.line("reinterpret_cast<" + wt + "*>(" + p + ")[" + num(at) + "] = reinterpret_cast<const " + wt + "*>(" + buf + ")[" +
                             num(at) + "];");
              },
              [&](int i, const std::string& ok, const std::string& off) {
                  std::string write = a + "[" + off + "] = " + to_storage(k, slot(i)) + ";";
                  E.line(ok.empty() ? write : "if (" + ok + ") " + write);
              },
              nullptr});
}

}  // namespace

void emit_prefetch_buffer(Emitter& E, const Node& n, const std::string& buffer) {
    E.line("__align__(16) " + stype(n.type.kind) + " " + buffer + "[" + num(E.layout(&n).slots()) + "];");
    declare_shift_record(E, n, buffer);
}

void emit_prefetch_fill(Emitter& E, const Node& n, const std::string& buffer) { fill_runs(E, n, buffer, true); }

void emit_prefetched_load(Emitter& E, const Node& n, const std::string& buffer, const std::string& when) {
    E.line(ctype(n.type.kind) + " " + E.name(&n) + "[" + num(E.layout(&n).slots()) + "];");
    unshift_runs(E, n, buffer);  // where the values are used: the fill did not wait for its loads
    convert_runs(E, n, buffer);
    note_runs(E, n, when);
}

void emit_memory(Emitter& E, const Node& n) {
    if (n.op == OpCode::load) load(E, n);
    else store(E, n);
}

}  // namespace kiln::cu
