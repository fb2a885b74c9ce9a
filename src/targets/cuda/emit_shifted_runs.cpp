#include "targets/cuda/emit_shifted_runs.h"

#include <algorithm>

#include "targets/cuda/view_access.h"

namespace kiln::cu {

using view_access::coordinates;
using view_access::offset;

namespace {

namespace shift {

struct Words {
    std::string type, window;         // uint4 / uint2, kc::window16( / kc::window8(
    std::vector<std::string> fields;  // x y z w / x y
};

Words words_of(int bytes) {
    if (bytes == 16) return {"uint4", "kc::window16(", {"x", "y", "z", "w"}};
    return {"uint2", "kc::window8(", {"x", "y"}};
}

// v of the next (previous) lane among those that shuffle together.
std::string shuffled(const Emitter& E, const char* direction, const std::string& v) {
    return std::string("__shfl_") + direction + "_sync(" + E.shuffle_mask() + ", " + v + ", 1, " + num(std::min(E.threads(), 32)) + ")";
}
std::string shuffled_down(const Emitter& E, const std::string& v) { return shuffled(E, "down", v); }

// `win` = x's words then the next lane's.
void declare_window(Emitter& E, const Words& w, const std::string& win, const std::string& x) {
    std::string words;
    for (const auto& f : w.fields) words += x + "." + f + ", ";
    for (std::size_t i = 0; i < w.fields.size(); ++i) words += shuffled_down(E, x + "." + w.fields[i]) + (i + 1 < w.fields.size() ? ", " : "");
    E.line("const unsigned " + win + "[" + num(2 * static_cast<std::int64_t>(w.fields.size())) + "] = {" + words + "};");
}

// Whether the run at tile element `other` is the one after the run at `at` in the
// same tile row (so adjacent in memory: a whole run has unit stride).
std::string follows(const std::string& other, const std::string& at, std::int64_t vec, std::int64_t cols) {
    return other + " == " + at + " + " + num(vec) + " && " + at + " % " + num(cols) + " + " + num(vec) + " < " + num(cols);
}

// Element k of a run in the head (before the aligned boundary) or the tail.
void each_k(Emitter& E, std::int64_t vec, const std::string& in_part, const std::string& body) {
    E.line("#pragma unroll");
    E.open("for (int k = 0; k < " + num(vec) + "; ++k)");
    E.line("if (" + in_part + ") " + body);
    E.close();
}

}  // namespace shift

// The part of run q after its first chunk (the misalignment `mis` bytes of it), read
// element by element into the run's words x: where no chunk in hand holds it. `e`
// (the run's first element) is in scope.
void read_rest(Emitter& E, const Node& n, const std::string& x, const std::string& mis) {
    const auto l = E.layout(&n);
    const Kind k = n.type.kind;
    const std::int64_t bytes = l.vec * storage_bytes(k);
    auto c = coordinates(E, n, n.type.dims, "e");
    shift::each_k(E, l.vec, "k * " + num(storage_bytes(k)) + " >= " + num(bytes) + " - (int)" + mis,
                  "reinterpret_cast<" + stype(k) + "*>(&" + x + ")[k] = a" + num(ir::param_index(n)) + "[" + offset(n, c) + " + k];");
}

}  // namespace

void shifted_store(Emitter& E, const std::string& p, const std::string& mis, Kind storage, std::int64_t vec, int bytes, std::int64_t cols,
                   const VectorAccess& vector) {
    const std::string mask = E.shuffle_mask(), size = num(bytes) + "u";
    const std::string st = stype(storage), esize = num(storage_bytes(storage));
    const std::string win = E.fresh("win"), x = E.fresh("x"), at = E.fresh("at"), next = E.fresh("next"), prev = E.fresh("prev");
    const shift::Words w = shift::words_of(bytes);
    const std::string head = num(bytes) + " - (int)" + mis;
    const std::string xs = "reinterpret_cast<const " + st + "*>(&" + x + ")";
    E.open("if (__any_sync(" + mask + ", " + mis + " != 0u))");
    E.line(w.type + " " + x + " = {};");
    E.open("if (" + mis + " != 0u)");
    vector("(&" + x + ")", bytes);
    E.close();
    shift::declare_window(E, w, win, x);
    // `at`: the run's first element in the tile when it is shifted, else -1.
    E.line("const int " + at + " = " + mis + " != 0u ? e : -1;");
    E.line("const int " + next + " = " + shift::shuffled_down(E, at) + ";");
    E.line("const int " + prev + " = " + shift::shuffled(E, "up", at) + ";");
    E.open("if (" + mis + " != 0u)");
    E.line("if (" + shift::follows(next, at, vec, cols) + ") *reinterpret_cast<" + w.type + "*>(reinterpret_cast<char*>(" + p + ") + (" + size +
           " - " + mis + ")) = " + w.window + win + ", " + size + " - " + mis + ");");
    E.open("else");
    shift::each_k(E, vec, "k * " + esize + " >= " + head, p + "[k] = " + xs + "[k];");
    E.close();
    // The head went out with the previous lane's chunk unless that lane holds no adjacent run.
    E.open("if (!(" + prev + " >= 0 && " + shift::follows(at, prev, vec, cols) + "))");
    shift::each_k(E, vec, "k * " + esize + " < " + head, p + "[k] = " + xs + "[k];");
    E.close();
    E.close();
    E.close();
}

bool shifts_runs(const Emitter& E, const Emitter::Layout& l, Kind storage) {
    const std::int64_t bytes = l.vec * storage_bytes(storage);
    // (Aligned slots put the row's runs on its boundaries instead: cuda_layout.h.)
    return E.options().misaligned_rows && !l.shifted && storage_bytes(storage) < 4 && (bytes == 8 || bytes == 16) &&
           (E.threads() >= 32 || E.instances() > 1);
}

std::string shift_record(const Emitter& E, const Node& n, const std::string& raw) {
    return shifts_runs(E, E.layout(&n), n.type.kind) ? raw + "_shift" : "";
}

void declare_shift_record(Emitter& E, const Node& n, const std::string& raw) {
    if (auto r = shift_record(E, n, raw); !r.empty()) E.line("unsigned " + r + "[" + num(E.layout(&n).slots() / E.layout(&n).vec) + "];");
}

void unshift_runs(Emitter& E, const Node& n, const std::string& raw) {
    const std::string shifts = shift_record(E, n, raw);
    if (shifts.empty()) return;
    const auto l = E.layout(&n);
    const Kind k = n.type.kind;
    const int bytes = static_cast<int>(l.vec * storage_bytes(k));
    const shift::Words w = shift::words_of(bytes);
    const std::string st = stype(k), a = "a" + num(ir::param_index(n));
    const std::string win = E.fresh("win"), x = E.fresh("x"), at = E.fresh("at"), next = E.fresh("next"), mis = E.fresh("mis");
    const std::string slot = "reinterpret_cast<" + w.type + "*>(" + raw + " + q * " + num(l.vec) + ")[0]";
    E.line("#pragma unroll");
    E.open("for (int q = 0; q < " + num(l.slots() / l.vec) + "; ++q)");
    E.line("const unsigned " + mis + " = " + shifts + "[q];");
    E.open("if (__any_sync(" + E.shuffle_mask() + ", " + mis + " != 0u))");
    E.line("const int e = " + E.element(&n, "q * " + num(l.vec)) + ";");
    E.line(w.type + " " + x + " = " + slot + ";");
    shift::declare_window(E, w, win, x);
    E.line("const int " + at + " = " + mis + " != 0u ? e : -1;");
    E.line("const int " + next + " = " + shift::shuffled_down(E, at) + ";");
    E.open("if (" + mis + " != 0u)");
    E.line(x + " = " + w.window + win + ", " + mis + ");");
    E.open("if (!(" + shift::follows(next, at, l.vec, n.type.dims.back().extent) + "))");  // no lane holds the rest
    read_rest(E, n, x, mis);
    E.close();
    E.line(slot + " = " + x + ";");
    // The run is whole now. A buffer loaded once for every instance (grid_prefetch's
    // invariant loads) is unshifted again by the CTA's next instance: shifting it a
    // second time scrambled the row (the fuzz program 7000248, on the emulator).
    E.line(shifts + "[q] = 0u;");
    E.close();
    E.close();
    E.close();
}

}  // namespace kiln::cu
