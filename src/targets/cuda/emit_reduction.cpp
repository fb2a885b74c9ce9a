// Reductions, arg-reductions and scans.
//
// reduce: the contract folds left to right in row-major order. Integer addition
// (wrapping) and max/min are associative and commutative (max(-0, +0) is +0 and a
// NaN wins whichever side it is on), so a tree gives the same bits; float addition
// is not, so exact mode (and only it) folds in order, one thread per output, the
// operand staged in shared memory.
//
// Otherwise, when each output's elements are one contiguous block of the operand
// (the reduced dims come after the kept ones: rows of a row tile) and that block
// covers whole runs of a fixed set of threads (emit.h), the reduction stays in
// registers: each thread folds its own runs, a butterfly of shuffles combines the
// threads of a warp, and a small exchange in shared memory combines the warps; every
// thread then reads the results it holds. Other shapes take a tree over staged
// operands: P threads (a power of two <= 32, inside one warp) per output, each
// folding a strided part, then a butterfly of shuffles.
//
// argmax/argmin walk each line in order (the first index wins). Scans walk lines
// in order when that keeps every thread busy or the order is pinned (exact float
// sums); otherwise they scan each line in parallel. Both stage their operand.
#include "targets/cuda/emitter.h"

#include <functional>
#include <optional>

namespace kiln::cu {

namespace {

OpCode combiner(OpCode op) {
    switch (op) {
        case OpCode::reduce_add: case OpCode::scan_add: return OpCode::add;
        case OpCode::reduce_max: case OpCode::scan_max: return OpCode::maximum;
        default: return OpCode::minimum;
    }
}

// Offset in x of element r of the reduced dims (row-major over them), given the
// offset `base` of the output's position.
std::string reduced_offset(const std::vector<Dim>& xd, const std::vector<bool>& reduced, const std::string& r) {
    std::vector<Dim> red;
    std::vector<std::int64_t> stride;
    auto xs = strides_of(xd);
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (reduced[d]) {
            red.push_back(xd[d]);
            stride.push_back(xs[d]);
        }
    std::string s;
    for (std::size_t d = 0; d < red.size(); ++d) {
        std::string c = coord(r, red, d);
        if (c == "0") continue;
        s += (s.empty() ? "" : " + ") + (stride[d] == 1 ? c : c + " * " + num(stride[d]));
    }
    return s.empty() ? "0" : s;
}

// Offset in x of output element o (the kept dims, in order).
std::string kept_offset(const std::vector<Dim>& xd, const std::vector<bool>& reduced, const std::string& o) {
    std::vector<Dim> kept;
    std::vector<std::int64_t> stride;
    auto xs = strides_of(xd);
    for (std::size_t d = 0; d < xd.size(); ++d)
        if (!reduced[d]) {
            kept.push_back(xd[d]);
            stride.push_back(xs[d]);
        }
    std::string s;
    for (std::size_t d = 0; d < kept.size(); ++d) {
        std::string c = coord(o, kept, d);
        if (c == "0") continue;
        s += (s.empty() ? "" : " + ") + (stride[d] == 1 ? c : c + " * " + num(stride[d]));
    }
    return s.empty() ? "0" : s;
}

// A reduction whose outputs are blocks of `block` consecutive operand elements, each
// held by `group` consecutive threads (a power of two dividing the CTA) in whole
// runs: `per` of a thread's runs per output, `stride` outputs per round of runs.
struct RowReduction {
    std::int64_t block = 0, group = 0, per = 1, stride = 1;
};

std::optional<RowReduction> row_reduction(const Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    auto l = E.layout(x);
    if (l.uniform) return std::nullopt;
    const auto& xd = x->type.dims;
    std::vector<bool> reduced(xd.size(), false);
    for (auto a : ir::reduced_dims(n)) reduced[static_cast<std::size_t>(a)] = true;
    // Extent-1 dims do not move elements; past them, every reduced dim must follow every kept one.
    bool seen_reduced = false;
    for (std::size_t d = 0; d < xd.size(); ++d) {
        if (xd[d].extent == 1) continue;
        if (reduced[d]) seen_reduced = true;
        else if (seen_reduced) return std::nullopt;
    }
    RowReduction r;
    r.block = x->type.count() / n.type.count();
    std::int64_t round = std::int64_t{E.threads()} * l.vec;
    if (r.block % l.vec != 0) return std::nullopt;  // a run would span two outputs
    if (round % r.block == 0) {                       // several outputs per round of runs
        r.group = r.block / l.vec;
        r.stride = round / r.block;
    } else if (r.block % round == 0) {                // several rounds per output
        r.group = E.threads();
        r.per = r.block / round;
    } else {
        return std::nullopt;
    }
    return r;
}

std::string shuffle_xor(const std::string& v, const std::string& mask) { return "__shfl_xor_sync(0xffffffffu, " + v + ", " + mask + ")"; }

// How register_reduce combines values: in the register type, or, for float max and
// min, as integer keys ordered like the contract orders floats. kc::kmax branches on
// NaN and on equal values for each element; on keys the fold is one integer max per
// element. The key of x is its bits with the magnitude bits flipped when the sign is
// set, as a signed integer: -inf < ... < -0 < +0 < ... < +inf, so max(-0, +0) = +0
// and min(-0, +0) = -0 as the contract says; a NaN gets the key that wins (the
// largest for max, the smallest for min) and decodes to the quiet NaN with every
// payload bit set (what the device's a + b gives for kmax's NaN case).
struct Combine {
    std::string type;                                        // the type folded, shuffled and exchanged
    std::function<std::string(const std::string&)> encode;  // register value -> folded value
    std::function<std::string(const std::string&)> decode;  // folded value -> register value
    std::function<std::string(const std::string&, const std::string&)> combine;
};

Combine combine_for(Emitter& E, OpCode op, Kind k) {
    OpCode comb = combiner(op);
    std::string t = ctype(k);
    if (!is_float(k) || comb == OpCode::add) {
        auto same = [](const std::string& v) { return v; };
        return {t, same, same, [&E, comb, k](const std::string& a, const std::string& b) { return binary_expr(E, comb, k, a, b); }};
    }
    bool wide = k == Kind::F64, max = comb == OpCode::maximum;
    if (max && !wide && E.options().sm >= 80) {
        // Float-held kinds (f32, f16, bf16): max.NaN.f32 is the contract's maximum
        // (NaN wins as the canonical NaN, +0 above -0) in one instruction, where
        // the keys below cost five per element.
        auto same = [](const std::string& v) { return v; };
        return {t, same, same, [](const std::string& a, const std::string& b) { return "kc::max_nan(" + a + ", " + b + ")"; }};
    }
    std::string key = wide ? "long long" : "int", bits = wide ? "unsigned long long" : "unsigned";
    std::string to_bits = wide ? "__double_as_longlong" : "__float_as_uint", from_bits = wide ? "__longlong_as_double" : "__uint_as_float";
    std::string sign_shift = wide ? "63" : "31", magnitude = wide ? "0x7fffffffffffffffLL" : "0x7fffffff";
    std::string key_max = wide ? "0x7fffffffffffffffLL" : "0x7fffffff", key_min = wide ? "(-0x7fffffffffffffffLL - 1)" : "(-0x7fffffff - 1)";
    std::string nan_key = max ? key_max : key_min;
    auto encode = [=](const std::string& x) {
        std::string b = "(" + key + ")" + to_bits + "(" + x + ")";
        return "(" + x + " != " + x + " ? " + nan_key + " : " + b + " ^ (" + key + ")((" + bits + ")(" + b + " >> " + sign_shift + ") >> 1))";
    };
    auto decode = [=](const std::string& v) {
        std::string flipped = "(" + v + " >= 0 ? " + v + " : " + v + " ^ " + magnitude + ")";
        if (!max) flipped = "(" + v + " == " + key_min + " ? " + key_max + " : " + flipped + ")";
        return from_bits + "((" + (wide ? std::string("long long") : bits) + ")" + flipped + ")";
    };
    std::string f = max ? "kc::imax" : "kc::imin";
    return {key, encode, decode, [f](const std::string& a, const std::string& b) { return f + "(" + a + ", " + b + ")"; }};
}

void register_reduce(Emitter& E, const Node& n, const RowReduction& r) {
    const Node* x = n.operands[0];
    Kind k = n.type.kind;
    Combine c = combine_for(E, n.op, k);
    std::string t = c.type, xv = E.name(x);
    auto l = E.layout(x);
    std::int64_t outs = n.type.count(), run_block = r.per * l.vec, partials = l.runs / r.per;
    std::int64_t lanes = std::min<std::int64_t>(r.group, 32), warps = std::max<std::int64_t>(r.group / 32, 1);
    // Each thread folds its runs of each output it holds: partial p is output
    // p * stride + tid / group.
    std::string acc = E.fresh("part");
    E.line(t + " " + acc + "[" + num(partials) + "];");
    E.line("#pragma unroll");
    E.open("for (int p = 0; p < " + num(partials) + "; ++p)");
    // Up to four independent accumulators, combined at the end: a chain of n
    // dependent steps would stall a memory-bound row kernel on its own fold, and a
    // full tree would hold every encoded element live at once (register pressure).
    // Every combiner taking this path is associative (integer keys for max/min,
    // wrapping integer add, float add only where reassociation is allowed).
    const std::int64_t ways = std::min<std::int64_t>(4, run_block);
    std::string lane_acc = E.fresh("acc");
    E.line(t + " " + lane_acc + "[" + num(ways) + "];");
    E.line("#pragma unroll");
    E.line("for (int i = 0; i < " + num(ways) + "; ++i) " + lane_acc + "[i] = " + c.encode(xv + "[p * " + num(run_block) + " + i]") + ";");
    if (run_block > ways) {
        E.line("#pragma unroll");
        E.line("for (int i = " + num(ways) + "; i < " + num(run_block) + "; ++i) " + lane_acc + "[i % " + num(ways) + "] = " +
               c.combine(lane_acc + "[i % " + num(ways) + "]", c.encode(xv + "[p * " + num(run_block) + " + i]")) + ";");
    }
    std::string folded = lane_acc + "[0]";
    if (ways == 4) folded = c.combine(c.combine(lane_acc + "[0]", lane_acc + "[1]"), c.combine(lane_acc + "[2]", lane_acc + "[3]"));
    else if (ways == 3) folded = c.combine(c.combine(lane_acc + "[0]", lane_acc + "[1]"), lane_acc + "[2]");
    else if (ways == 2) folded = c.combine(lane_acc + "[0]", lane_acc + "[1]");
    E.line(acc + "[p] = " + folded + ";");
    // Lanes of a group combine with shuffles: all 32 lanes take part (no branch
    // around them); a group never mixes with another, so runs past the tile's end
    // (whole groups of them) combine only among themselves and are never written.
    if (lanes > 1) {
        E.line("#pragma unroll");
        E.line("for (int m = " + num(lanes / 2) + "; m > 0; m >>= 1) " + acc + "[p] = " + c.combine(acc + "[p]", shuffle_xor(acc + "[p]", "m")) +
               ";");
    }
    E.close();
    // Each group's first lane in each warp publishes; every thread reads the warps'
    // partials of the outputs it holds and folds them in warp order.
    std::string xs = E.exchange(n, t, outs * warps, register_bytes(k));  // a key has the value's size
    E.line("#pragma unroll");
    E.open("for (int p = 0; p < " + num(partials) + "; ++p)");
    E.line("const int o = p * " + num(r.stride) + " + tid / " + num(r.group) + ";");
    std::string publish = "tid % " + num(lanes) + " == 0";
    if (E.ragged(x)) publish += " && o < " + num(outs);
    std::string slot = warps > 1 ? "o * " + num(warps) + " + tid % " + num(r.group) + " / 32" : "o";
    E.line("if (" + publish + ") " + xs + "[" + slot + "] = " + acc + "[p];");
    E.close();
    E.barrier();
    bool one = E.layout(&n).uniform;
    E.each_element(&n, [&](const std::string& e, const std::string& dst) {
        if (warps == 1) {
            E.line(dst + " = " + c.decode(xs + "[" + e + "]") + ";");
            return;
        }
        std::string v = E.fresh("r");
        if (one) {
            // Every thread needs the one result: each aligned group of `warps` lanes
            // reads the warps' partials once and combines them with shuffles (rather
            // than every thread folding all of them).
            E.line(t + " " + v + " = " + xs + "[tid % " + num(warps) + "];");
            E.line("#pragma unroll");
            E.line("for (int m = " + num(warps / 2) + "; m > 0; m >>= 1) " + v + " = " + c.combine(v, shuffle_xor(v, "m")) + ";");
        } else {
            E.line(t + " " + v + " = " + xs + "[(" + e + ") * " + num(warps) + "];");
            E.line("#pragma unroll");
            E.line("for (int w = 1; w < " + num(warps) + "; ++w) " + v + " = " + c.combine(v, xs + "[(" + e + ") * " + num(warps) + " + w]") + ";");
        }
        E.line(dst + " = " + c.decode(v) + ";");
    });
    E.exchanged();
    E.note(n, "in registers: " + num(r.per * l.vec) + " per thread and output, shuffles over " + num(lanes) + " lanes" +
                  (warps > 1 ? ", " + num(warps) + " warps through shared memory" : ", through shared memory"));
}

void reduce(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    Kind k = n.type.kind;
    const auto& xd = x->type.dims;
    std::vector<bool> reduced(xd.size(), false);
    for (auto a : ir::reduced_dims(n)) reduced[static_cast<std::size_t>(a)] = true;
    std::int64_t outs = n.type.count(), red = x->type.count() / outs;
    OpCode comb = combiner(n.op);
    std::string t = ctype(k);
    bool ordered = E.exact() && is_float(k) && n.op == OpCode::reduce_add;
    if (!ordered)
        if (auto rows = row_reduction(E, n)) {
            register_reduce(E, n, *rows);
            return;
        }
    E.begin_shared(n);
    std::string sx = E.stage(x);
    if (ordered) {
        E.barrier();
        E.each_element(&n, [&](const std::string& e, const std::string& dst) {
            std::string base = E.fresh("b");
            E.line("const int " + base + " = " + kept_offset(xd, reduced, e) + ";");
            std::string acc = E.fresh("acc");
            E.line(t + " " + acc + " = " + sx + "[" + base + "];");
            E.open("for (int r = 1; r < " + num(red) + "; ++r)");
            E.line(acc + " = " + binary_expr(E, comb, k, acc, sx + "[" + base + " + " + reduced_offset(xd, reduced, "r") + "]") + ";");
            E.close();
            E.line(dst + " = " + acc + ";");
        });
        E.note(n, "ordered fold (exact), one thread per output, operand in shared memory");
        return;
    }
    std::int64_t per = 1;  // threads per output
    while (per * 2 <= 32 && per * 2 <= red && per * 2 * outs <= E.threads()) per *= 2;
    std::int64_t groups = E.threads() / per;
    std::string so = E.shared_array(t, outs, register_bytes(k));
    E.barrier();
    E.open("for (int o0 = 0; o0 < " + num(outs) + "; o0 += " + num(groups) + ")");
    E.line("const int o = o0 + tid / " + num(per) + ", lane = tid % " + num(per) + ";");
    E.line(t + " acc = " + literal(k, 0, 0) + ";");
    E.open("if (o < " + num(outs) + ")");
    E.line("const int base = " + kept_offset(xd, reduced, "o") + ";");
    E.line("acc = " + sx + "[base + " + reduced_offset(xd, reduced, "lane") + "];");
    E.open("for (int r = lane + " + num(per) + "; r < " + num(red) + "; r += " + num(per) + ")");
    E.line("acc = " + binary_expr(E, comb, k, "acc", sx + "[base + " + reduced_offset(xd, reduced, "r") + "]") + ";");
    E.close();
    E.close();
    // All 32 lanes reach the shuffles (the loop's trip count is uniform); lanes of
    // an idle group shuffle among themselves only.
    if (per > 1) {
        std::string shuffled = k == Kind::Bool ? "acc" : "__shfl_xor_sync(0xffffffffu, acc, m)";
        E.line("#pragma unroll");
        E.line("for (int m = " + num(per / 2) + "; m > 0; m >>= 1) acc = " + binary_expr(E, comb, k, "acc", shuffled) + ";");
    }
    E.line("if (o < " + num(outs) + " && lane == 0) " + so + "[o] = acc;");
    E.close();
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = " + so + "[" + e + "];"); });
    E.note(n, "tree over " + num(per) + " lanes per output (shuffles), operand in shared memory");
}

// The lines along dim `axis`: line l's first element and the stride along it.
std::string line_base(const std::vector<Dim>& xd, std::size_t axis, const std::string& l) {
    std::vector<bool> reduced(xd.size(), false);
    reduced[axis] = true;
    return kept_offset(xd, reduced, l);
}

void arg_reduce(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    std::int64_t len = xd[axis].extent, stride = strides_of(xd)[axis];
    bool fl = is_float(x->type.kind);
    E.begin_shared(n);
    std::string sx = E.stage(x);
    E.barrier();
    std::string better = n.op == OpCode::argmax ? "v > bv" : "v < bv";
    // NaN is maximal for argmax and minimal for argmin: the first NaN wins.
    if (fl) better = "(bv == bv) && (v != v || " + better + ")";
    E.each_element(&n, [&](const std::string& e, const std::string& dst) {
        E.open("");
        E.line("const int base = " + line_base(xd, axis, e) + ";");
        E.line("long long best = 0;");
        E.line(ctype(x->type.kind) + " bv = " + sx + "[base];");
        E.open("for (int q = 1; q < " + num(len) + "; ++q)");
        E.line("const " + ctype(x->type.kind) + " v = " + sx + "[base + q * " + num(stride) + "];");
        E.open("if (" + better + ")");
        E.line("best = q;");
        E.line("bv = v;");
        E.close();
        E.close();
        E.line(dst + " = best;");
        E.close();
    });
    E.note(n, "one thread per line, in order");
}

// Hillis-Steele: log2(len) rounds; in round d every element past position d
// combines the element d before it (the earlier one on the left) into itself.
// Each thread updates the elements it owns in registers; shared memory carries
// the previous round's values.
void parallel_scan(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    Kind k = n.type.kind;
    const auto& xd = x->type.dims;
    auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    std::int64_t len = xd[axis].extent, stride = strides_of(xd)[axis], count = x->type.count(), slots = E.slots(x);
    std::string t = ctype(k), v = E.name(&n);
    E.line(t + " " + v + "[" + num(slots) + "];");
    E.line("#pragma unroll");
    E.line("for (int j = 0; j < " + num(slots) + "; ++j) " + v + "[j] = " + E.name(x) + "[j];");
    E.begin_shared(n);
    std::string s = E.shared_array(t, count, register_bytes(k));
    E.open("for (int d = 1; d < " + num(len) + "; d <<= 1)");
    E.each_owned(&n, [&](const std::string& e, const std::string& value) { E.line(s + "[" + e + "] = " + value + ";"); });
    E.barrier();
    E.each_owned(&n, [&](const std::string& e, const std::string& value) {
        E.line("if (" + coord(e, xd, axis) + " >= d) " + value + " = " +
               binary_expr(E, combiner(n.op), k, s + "[" + e + " - d * " + num(stride) + "]", value) + ";");
    });
    E.barrier();  // the next round overwrites what this one read
    E.close();
    E.note(n, "parallel (Hillis-Steele) scan, " + num(len) + "-element lines, exchanged through shared memory");
}

void scan(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    Kind k = n.type.kind;
    const auto& xd = x->type.dims;
    auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    std::int64_t len = xd[axis].extent, stride = strides_of(xd)[axis], lines = x->type.count() / len;
    // Integer addition, max and min give the same bits in any order; float sums may
    // reassociate outside exact mode. Walking lines in order is better only when
    // there are enough lines to keep every thread busy.
    bool reorder_ok = !(E.exact() && is_float(k) && n.op == OpCode::scan_add);
    if (reorder_ok && lines < E.threads() && len > 1) {
        parallel_scan(E, n);
        return;
    }
    E.begin_shared(n);
    std::string sx = E.stage(x);
    std::string so = E.shared_array(ctype(k), n.type.count(), register_bytes(k));
    E.barrier();
    E.open("for (int l = tid; l < " + num(lines) + "; l += " + num(E.threads()) + ")");
    E.line("const int base = " + line_base(xd, axis, "l") + ";");
    E.line(ctype(k) + " acc = " + sx + "[base];");
    E.line(so + "[base] = acc;");
    E.open("for (int q = 1; q < " + num(len) + "; ++q)");
    E.line("acc = " + binary_expr(E, combiner(n.op), k, "acc", sx + "[base + q * " + num(stride) + "]") + ";");
    E.line(so + "[base + q * " + num(stride) + "] = acc;");
    E.close();
    E.close();
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = " + so + "[" + e + "];"); });
    E.note(n, "one thread per line, in order");
}

}  // namespace

void emit_reduction(Emitter& E, const Node& n) {
    switch (n.op) {
        case OpCode::reduce_add: case OpCode::reduce_max: case OpCode::reduce_min: reduce(E, n); return;
        case OpCode::argmax: case OpCode::argmin: arg_reduce(E, n); return;
        default: scan(E, n); return;
    }
}

}  // namespace kiln::cu
