// Reductions in registers (passes/cuda_layout.h decides which; every combiner here
// is associative: integer keys for float max and min, wrapping integer add, float
// add only where the precision allows reassociation).
//
// row_reduce: each thread folds the slots of each row it holds (masking the slots
// past a ragged row's end with the combiner's identity), a butterfly of shuffles
// combines the G threads of the row, and, when a row spans several warps, a small
// exchange combines the warps. A result held as the rows of the operand's slots
// (a row statistic about to be broadcast back over the row) then needs nothing
// more: every lane of the group holds it.
// column_reduce: each thread folds its rows of each of its columns, shuffles
// combine the lanes of a warp that hold the same columns, and an exchange combines
// the warps; the result is held as the columns of the operand's runs.
// full_reduce: every slot of a multi-row tile into one value.
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {

OpCode combiner(OpCode op) {
    switch (op) {
        case OpCode::reduce_add: return OpCode::add;
        case OpCode::reduce_max: return OpCode::maximum;
        default: return OpCode::minimum;
    }
}

// The value that leaves the fold unchanged, in the register type: a slot that
// holds no element of the operand contributes it. -0 for float sums (x + -0 = x,
// -0 included), -inf / +inf for float max / min, the extremes for integers.
std::string identity(OpCode comb, Kind k) {
    bool max = comb == OpCode::maximum;
    if (comb == OpCode::add) return k == Kind::F64 ? "-0.0" : is_float(k) ? "-0.0f" : literal(k, 0, 0);
    if (k == Kind::Bool) return max ? "false" : "true";
    if (k == Kind::F64) return max ? "__longlong_as_double(0xfff0000000000000LL)" : "__longlong_as_double(0x7ff0000000000000LL)";
    if (is_float(k)) return max ? "__int_as_float(0xff800000)" : "__int_as_float(0x7f800000)";
    if (k == Kind::I64) return max ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
    return max ? "(-2147483647 - 1)" : "2147483647";
}

// How the reductions combine values: in the register type, or, for float max and
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
    std::string identity;                                    // in the register type (encode it to fold)
    // For an argmax or argmin: (register value, the thread's slot) -> folded value, the
    // slot's index along the row in it; and the folded identity (no index to encode).
    std::function<std::string(const std::string&, const std::string&)> encode_at = {};
    std::string folded_identity = {};
};

// The integer key of float `x` (an expression; `wide`: a double) ordered like the
// contract orders floats: its bits, with the magnitude bits flipped when the sign is
// set, as a signed integer; a NaN gets `nan_key`.
std::string float_order_key(const std::string& x, bool wide, const std::string& nan_key) {
    const std::string key = wide ? "long long" : "int", bits = wide ? "unsigned long long" : "unsigned";
    const std::string b = "(" + key + ")" + (wide ? "__double_as_longlong" : "__float_as_uint") + "(" + x + ")";
    return "(" + x + " != " + x + " ? " + nan_key + " : " + b + " ^ (" + key + ")((" + bits + ")(" + b + " >> " + (wide ? "63" : "31") + ") >> 1))";
}

Combine combine_for(Emitter& E, OpCode op, Kind k) {
    OpCode comb = combiner(op);
    std::string t = ctype(k), id = identity(comb, k);
    if (!is_float(k) || comb == OpCode::add) {
        auto same = [](const std::string& v) { return v; };
        return {t, same, same, [&E, comb, k](const std::string& a, const std::string& b) { return binary_expr(E, comb, k, a, b); }, id};
    }
    bool wide = k == Kind::F64, max = comb == OpCode::maximum;
    if (max && !wide && E.options().sm >= 80) {
        // Float-held kinds (f32, f16, bf16): max.NaN.f32 is the contract's maximum
        // (NaN wins as the canonical NaN, +0 above -0) in one instruction, where
        // the keys below cost five per element.
        auto same = [](const std::string& v) { return v; };
        return {t, same, same, [](const std::string& a, const std::string& b) { return "kc::max_nan(" + a + ", " + b + ")"; }, id};
    }
    std::string key = wide ? "long long" : "int", bits = wide ? "unsigned long long" : "unsigned";
    std::string from_bits = wide ? "__longlong_as_double" : "__uint_as_float", magnitude = wide ? "0x7fffffffffffffffLL" : "0x7fffffff";
    std::string key_max = wide ? "0x7fffffffffffffffLL" : "0x7fffffff", key_min = wide ? "(-0x7fffffffffffffffLL - 1)" : "(-0x7fffffff - 1)";
    std::string nan_key = max ? key_max : key_min;
    auto encode = [=](const std::string& x) { return float_order_key(x, wide, nan_key); };
    auto decode = [=](const std::string& v) {
        std::string flipped = "(" + v + " >= 0 ? " + v + " : " + v + " ^ " + magnitude + ")";
        if (!max) flipped = "(" + v + " == " + key_min + " ? " + key_max + " : " + flipped + ")";
        return from_bits + "((" + (wide ? std::string("long long") : bits) + ")" + flipped + ")";
    };
    std::string f = max ? "kc::imax" : "kc::imin";
    return {key, encode, decode, [f](const std::string& a, const std::string& b) { return f + "(" + a + ", " + b + ")"; }, id};
}

// argmax / argmin along the rows (cuda_layout.cpp: register_arg_reduction): each
// element folded as one 64-bit key, its value's order key in the high half and its
// index along the row in the low half, complemented for argmax, so that the maximum
// (minimum) of the keys is the first index of the maximal (minimal) value, as the
// contract's walk in order finds it: NaN wins over every number and the first NaN
// over the later ones; -0 and +0 are equal, the first of them wins (the order key of
// -0 is taken as +0's).
Combine arg_combine(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    const Kind k = x->type.kind;
    const bool max = n.op == OpCode::argmax;
    const std::string nan_key = max ? "0x7fffffff" : "(-0x7fffffff - 1)";
    const passes::CudaLayout l = E.layout(x);
    auto value_key = [=](const std::string& v) -> std::string {
        if (!is_float(k)) return "(long long)(int)(" + v + ")";
        return "(long long)" + float_order_key("(" + v + " == 0.0f ? 0.0f : " + v + ")", false, nan_key);  // -0 as +0
    };
    Combine c;
    c.type = "long long";
    c.encode_at = [=, &E](const std::string& v, const std::string& j) {
        const std::string index = "(unsigned)(" + E.col_of(l, j) + ")";
        return "(" + value_key(v) + " * 4294967296LL + (long long)" + (max ? "(0xffffffffu - " + index + ")" : index) + ")";
    };
    c.encode = [](const std::string& v) { return v; };
    c.decode = [max](const std::string& v) {
        const std::string low = "(unsigned)((unsigned long long)(" + v + ") & 0xffffffffull)";
        return max ? "(long long)(0xffffffffu - " + low + ")" : "(long long)" + low;
    };
    const std::string f = max ? "kc::imax" : "kc::imin";
    c.combine = [f](const std::string& a, const std::string& b) { return f + "(" + a + ", " + b + ")"; };
    c.folded_identity = max ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
    return c;
}

std::string shuffle_xor(const Emitter& E, const std::string& v, const std::string& lane_mask) {
    return "__shfl_xor_sync(" + E.shuffle_mask() + ", " + v + ", " + lane_mask + ")";
}

// Slot `j` of x encoded for the fold, or the identity where x holds nothing there.
std::string folded_slot(Emitter& E, const Combine& c, const Node* x, const std::string& j, bool mask) {
    std::string v = E.name(x) + "[" + j + "]", ok = mask ? E.valid(x, j) : "";
    if (c.encode_at) return ok.empty() ? c.encode_at(v, j) : "((" + ok + ") ? " + c.encode_at(v, j) + " : " + c.folded_identity + ")";
    if (ok.empty()) return c.encode(v);
    // A float sum of a value NVVM knows: it folded the slots' selects against -0 and
    // their sums into `selp.f32 -1.0, -0.0`, which ptxas compiles without the -0.0
    // (prelude.cpp: "ptxas and -0.0"; fuzz program 6700306's PTX).
    if (c.identity == "-0.0f" && compile_time_known(*x)) return c.encode("kc::select_opaque(" + ok + ", " + v + ", -0.0f)");
    return c.encode("((" + ok + ") ? " + v + " : " + c.identity + ")");
}

// Emits `acc` = the fold of `count` slots (slot(i), i = 0..count-1) with up to four
// independent chains combined at the end: a chain of n dependent steps would stall
// a memory-bound row kernel on its own fold, and a full tree would hold every
// encoded element live at once (register pressure).
void fold(Emitter& E, const Combine& c, const std::string& acc, std::int64_t count, const std::function<std::string(const std::string&)>& slot) {
    const std::int64_t ways = std::min<std::int64_t>(4, count);
    std::string lanes = E.fresh("acc");
    E.line(c.type + " " + lanes + "[" + num(ways) + "];");
    E.line("#pragma unroll");
    E.line("for (int i = 0; i < " + num(ways) + "; ++i) " + lanes + "[i] = " + slot("i") + ";");
    if (count > ways) {
        E.line("#pragma unroll");
        E.line("for (int i = " + num(ways) + "; i < " + num(count) + "; ++i) " + lanes + "[i % " + num(ways) + "] = " +
               c.combine(lanes + "[i % " + num(ways) + "]", slot("i")) + ";");
    }
    std::string folded = lanes + "[0]";
    if (ways == 4) folded = c.combine(c.combine(lanes + "[0]", lanes + "[1]"), c.combine(lanes + "[2]", lanes + "[3]"));
    else if (ways == 3) folded = c.combine(c.combine(lanes + "[0]", lanes + "[1]"), lanes + "[2]");
    else if (ways == 2) folded = c.combine(lanes + "[0]", lanes + "[1]");
    E.line(acc + " = " + folded + ";");
}

void butterfly(Emitter& E, const Combine& c, const std::string& v, std::int64_t from, std::int64_t below) {
    if (from >= below) return;
    E.line("#pragma unroll");
    E.line("for (int m = " + num(from) + "; m < " + num(below) + "; m <<= 1) " + v + " = " + c.combine(v, shuffle_xor(E, v, "m")) + ";");
}

// Partial `index` of an exchange `xs`, published by warp `warp` (expressions): in a
// cluster (cuda_layout.h) each CTA's exchange holds its own warps' partials, so a
// partial of another CTA's warp is read from that CTA's shared memory.
std::string partial(Emitter& E, const std::string& xs, const std::string& index, const std::string& warp) {
    if (E.cluster() == 1) return xs + "[" + index + "]";
    const std::int64_t warps_per_cta = E.threads() / E.cluster() / 32;
    return "(*kc::cluster_map(&" + xs + "[" + index + "], (unsigned)(" + warp + ") / " + num(warps_per_cta) + "u))";
}

void row_reduce(Emitter& E, const Node& n, const Combine& c) {
    const Node* x = n.operands[0];
    auto l = E.layout(x), out = E.layout(&n);
    const std::int64_t per_round = l.row_runs * l.vec, rounds = l.row_rounds, lanes = std::min<std::int64_t>(l.group, 32);
    const std::int64_t warps = std::max<std::int64_t>(l.group / 32, 1);
    std::string acc = E.fresh("part");
    E.line(c.type + " " + acc + "[" + num(rounds) + "];");
    E.line("#pragma unroll");
    E.open("for (int p = 0; p < " + num(rounds) + "; ++p)");
    // A row's slots are whole; past a ragged row's end they hold the identity.
    fold(E, c, acc + "[p]", per_round,
         [&](const std::string& i) { return folded_slot(E, c, x, "p * " + num(per_round) + " + " + i, l.ragged_cols()); });
    butterfly(E, c, acc + "[p]", 1, lanes);
    E.close();
    passes::CudaLayout rows = l;
    rows.holds = passes::CudaHolds::rows;
    rows.count = l.rows;
    rows.cols = 1;
    rows.vec = 1;
    rows.row_runs = 1;
    rows.uniform = rows.count == 1;
    const bool in_place = out.uniform || out.same_distribution(rows);
    std::string shuffles = lanes > 1 ? "shuffles over " + num(lanes) + " lanes" : "one thread per row";
    if (warps == 1 && in_place) {
        E.each_element(&n, [&](const std::string&, const std::string& dst) { E.line(dst + " = " + c.decode(acc + "[j]") + ";"); }, false);
        E.note(n, "in registers: " + num(per_round) + " per thread and row, " + shuffles + ", no shared memory");
        return;
    }
    // Each warp's first lane of each row publishes its partial; every thread reads
    // the warps' partials of the rows it holds and folds them in warp order.
    std::string xs = E.exchange(n, c.type, l.rows * warps, register_bytes(n.type.kind));  // a key has the value's size
    E.line("#pragma unroll");
    E.open("for (int p = 0; p < " + num(rounds) + "; ++p)");
    E.line("const int row = " + E.row_of(l, "p * " + num(per_round)) + ";");
    std::string publish = "tid % " + num(lanes) + " == 0";
    if (l.ragged_rows()) publish += " && row < " + num(l.rows);
    E.line("if (" + publish + ") " + xs + "[" + (warps > 1 ? "row * " + num(warps) + " + tid % " + num(l.group) + " / 32" : "row") + "] = " + acc +
           "[p];");
    E.close();
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) {
        if (warps == 1) {
            E.line(dst + " = " + c.decode(xs + "[" + e + "]") + ";");
            return;
        }
        std::string v = E.fresh("r");
        if (out.uniform && warps > 32) {
            // A cluster's row (more than 32 warps): each lane folds every 32nd warp's
            // partial, then the lanes combine with shuffles.
            E.line(c.type + " " + v + " = " + partial(E, xs, "tid % 32", "tid % 32") + ";");
            E.line("#pragma unroll");
            E.line("for (int w = tid % 32 + 32; w < " + num(warps) + "; w += 32) " + v + " = " + c.combine(v, partial(E, xs, "w", "w")) + ";");
            butterfly(E, c, v, 1, 32);
        } else if (out.uniform) {
            // Every thread needs the one result: each aligned group of `warps` lanes
            // reads the warps' partials once and combines them with shuffles.
            E.line(c.type + " " + v + " = " + partial(E, xs, "tid % " + num(warps), "tid % " + num(warps)) + ";");
            butterfly(E, c, v, 1, warps);
        } else {
            E.line(c.type + " " + v + " = " + partial(E, xs, "(" + e + ") * " + num(warps), "0") + ";");
            E.line("#pragma unroll");
            E.line("for (int w = 1; w < " + num(warps) + "; ++w) " + v + " = " +
                   c.combine(v, partial(E, xs, "(" + e + ") * " + num(warps) + " + w", "w")) + ";");
        }
        E.line(dst + " = " + c.decode(v) + ";");
    });
    E.exchanged();
    E.note(n, "in registers: " + num(per_round) + " per thread and row, " + shuffles +
                  (E.cluster() > 1 ? ", " + num(warps) + " warps of a cluster of " + num(E.cluster()) + " CTAs through distributed shared memory"
                   : warps > 1     ? ", " + num(warps) + " warps through shared memory"
                                   : ", through shared memory"));
}

void column_reduce(Emitter& E, const Node& n, const Combine& c) {
    const Node* x = n.operands[0];
    auto l = E.layout(x), out = E.layout(&n);
    const std::int64_t per_round = l.row_runs * l.vec, bands = l.rows_per_round(), padded = per_round * l.group;
    std::string acc = E.fresh("col");
    E.line(c.type + " " + acc + "[" + num(per_round) + "];");
    E.line("#pragma unroll");
    E.open("for (int s = 0; s < " + num(per_round) + "; ++s)");
    E.line(acc + "[s] = " + folded_slot(E, c, x, "s", l.ragged_rows()) + ";");
    if (l.row_rounds > 1) {
        E.line("#pragma unroll");
        E.line("for (int p = 1; p < " + num(l.row_rounds) + "; ++p) " + acc + "[s] = " +
               c.combine(acc + "[s]", folded_slot(E, c, x, "p * " + num(per_round) + " + s", l.ragged_rows())) + ";");
    }
    // Lanes of a warp that hold the same columns (tid % G alike) combine first.
    if (l.group < 32) butterfly(E, c, acc + "[s]", l.group, std::min<std::int64_t>(32, E.threads()));
    E.close();
    const std::int64_t entries = l.group < 32 ? std::max<std::int64_t>(1, E.threads() / 32) : bands;
    std::string how = "in registers: " + num(l.row_rounds) + " rows per thread and column";
    if (bands > 1 && l.group < 32) how += ", shuffles over " + num(std::min<std::int64_t>(32, E.threads()) / l.group) + " lanes";
    if (entries > 1) {
        std::string xs = E.exchange(n, c.type, entries * padded, register_bytes(n.type.kind));
        std::string col = E.col_of(l, "s");
        std::string publish = l.group < 32 ? "tid % 32 < " + num(l.group) : "";
        std::string entry = l.group < 32 ? "tid / 32" : "tid / " + num(l.group);
        if (!publish.empty()) E.open("if (" + publish + ")");
        E.line("#pragma unroll");
        E.line("for (int s = 0; s < " + num(per_round) + "; ++s) " + xs + "[(" + entry + ") * " + num(padded) + " + " + col + "] = " + acc + "[s];");
        if (!publish.empty()) E.close();
        E.barrier();
        E.line("#pragma unroll");
        E.open("for (int s = 0; s < " + num(per_round) + "; ++s)");
        E.line(acc + "[s] = " + xs + "[" + col + "];");
        E.line("#pragma unroll");
        E.line("for (int w = 1; w < " + num(entries) + "; ++w) " + acc + "[s] = " + c.combine(acc + "[s]", xs + "[w * " + num(padded) + " + " + col + "]") +
               ";");
        E.close();
        E.exchanged();
        how += ", " + num(entries) + " partials per column through shared memory";
    }
    passes::CudaLayout columns = l;
    columns.holds = passes::CudaHolds::columns;
    columns.count = l.cols;
    columns.rows = 1;
    columns.row_rounds = 1;
    columns.uniform = columns.count == 1;
    if (out.same_distribution(columns)) {
        E.each_element(&n, [&](const std::string&, const std::string& dst) { E.line(dst + " = " + c.decode(acc + "[j]") + ";"); }, false);
        E.note(n, how);
        return;
    }
    // Another distribution: through shared memory by column.
    std::string xs = E.exchange(n, c.type, l.cols, register_bytes(n.type.kind));
    E.open("if (tid < " + num(l.group) + ")");
    E.line("#pragma unroll");
    E.open("for (int s = 0; s < " + num(per_round) + "; ++s)");
    std::string col = E.col_of(l, "s");
    E.line("if ((" + col + ") < " + num(l.cols) + ") " + xs + "[" + col + "] = " + acc + "[s];");
    E.close();
    E.close();
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = " + c.decode(xs + "[" + e + "]") + ";"); });
    E.exchanged();
    E.note(n, how + ", redistributed through shared memory");
}

void full_reduce(Emitter& E, const Node& n, const Combine& c) {
    const Node* x = n.operands[0];
    auto l = E.layout(x);
    const std::int64_t lanes = std::min<std::int64_t>(E.threads(), 32), warps = std::max<std::int64_t>(E.threads() / 32, 1);
    std::string acc = E.fresh("all");
    E.line(c.type + " " + acc + ";");
    fold(E, c, acc, l.slots(), [&](const std::string& i) { return folded_slot(E, c, x, i, l.ragged()); });
    butterfly(E, c, acc, 1, lanes);
    if (warps > 1) {
        std::string xs = E.exchange(n, c.type, warps, register_bytes(n.type.kind));
        E.line("if (tid % 32 == 0) " + xs + "[tid / 32] = " + acc + ";");
        E.barrier();
        E.line(acc + " = " + xs + "[tid % " + num(warps) + "];");
        butterfly(E, c, acc, 1, warps);
        E.exchanged();
    }
    E.each_element(&n, [&](const std::string&, const std::string& dst) { E.line(dst + " = " + c.decode(acc) + ";"); }, false);
    E.note(n, "in registers: " + num(l.slots()) + " per thread, shuffles over " + num(lanes) + " lanes" +
                  (warps > 1 ? ", " + num(warps) + " warps through shared memory" : ""));
}

}  // namespace

void emit_register_reduce(Emitter& E, const Node& n) {
    const bool arg = n.op == OpCode::argmax || n.op == OpCode::argmin;
    Combine c = arg ? arg_combine(E, n) : combine_for(E, n.op, n.type.kind);
    if (arg && E.decision(&n).how != passes::CudaLowering::row_reduce) internal_fail("cuda: an argmax or argmin in registers only along the rows");
    switch (E.decision(&n).how) {
        case passes::CudaLowering::row_reduce: return row_reduce(E, n, c);
        case passes::CudaLowering::column_reduce: return column_reduce(E, n, c);
        case passes::CudaLowering::full_reduce: return full_reduce(E, n, c);
        default: internal_fail("cuda: emit_register_reduce without a register decision");
    }
}

}  // namespace kiln::cu
