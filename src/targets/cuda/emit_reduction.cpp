// Reductions, arg-reductions and scans.
//
// reduce: the contract folds left to right in row-major order. Integer addition
// (wrapping) and max/min are associative and commutative (max(-0, +0) is +0 and a
// NaN wins whichever side it is on), so a tree gives the same bits; float addition
// is not, so exact mode (and only it) folds in order, one thread per output, the
// operand staged in shared memory. Reductions over the rows or the columns of a
// tile stay in registers (emit_register_reduce.cpp; passes/cuda_layout.h decides);
// other shapes take a tree over staged operands: P threads (a power of two <= 32,
// inside one warp) per output, each folding a strided part, then a butterfly of
// shuffles.
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

void reduce(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    Kind k = n.type.kind;
    const auto& xd = x->type.dims;
    std::vector<bool> reduced(xd.size(), false);
    for (auto a : ir::reduced_dims(n)) reduced[static_cast<std::size_t>(a)] = true;
    std::int64_t outs = n.type.count(), red = x->type.count() / outs;
    OpCode comb = combiner(n.op);
    std::string t = ctype(k);
    auto how = E.decision(&n).how;
    if (how == passes::CudaLowering::row_reduce || how == passes::CudaLowering::column_reduce || how == passes::CudaLowering::full_reduce)
        return emit_register_reduce(E, n);
    bool ordered = how == passes::CudaLowering::ordered_fold;
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
        std::string shuffled = k == Kind::Bool ? "acc" : "__shfl_xor_sync(" + E.shuffle_mask() + ", acc, m)";
        E.line("#pragma unroll");
        E.line("for (int m = " + num(per / 2) + "; m > 0; m >>= 1) acc = " + binary_expr(E, comb, k, "acc", shuffled) + ";");
    }
    E.line("if (o < " + num(outs) + " && lane == 0) " + so + "[o] = acc;");
    E.close();
    E.barrier();
    E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = " + so + "[" + e + "];"); });
    std::string why = E.decision(&n).why;
    E.note(n, "tree over " + num(per) + " lanes per output (shuffles), operand in shared memory" + (why.empty() ? "" : " (" + why + ")"));
}

// The lines along dim `axis`: line l's first element and the stride along it.
std::string line_base(const std::vector<Dim>& xd, std::size_t axis, const std::string& l) {
    std::vector<bool> reduced(xd.size(), false);
    reduced[axis] = true;
    return kept_offset(xd, reduced, l);
}

void arg_reduce(Emitter& E, const Node& n) {
    // Along the rows of a tile in registers (cuda_layout.cpp: register_arg_reduction).
    if (E.decision(&n).how == passes::CudaLowering::row_reduce) {
        emit_register_reduce(E, n);
        return;
    }
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
    // A bool operand's array is volatile: its bytes are read one at a time
    // (emitter.cpp: shared_element_type; programs 4500528 and 6405128).
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
    const std::string why = E.decision(&n).why;
    E.note(n, "one thread per line, in order" + (why.empty() ? std::string() : " (" + why + ")"));
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
    // The parallel scan starts from the operand's registers and updates the elements
    // each thread owns, so it needs the result distributed as the operand and held
    // once: a result the layout pass distributes otherwise (the columns projection a
    // broadcast of it wants, replicated over the rows) would keep, in every slot but
    // the owners', the operand's registers of another distribution.
    const auto lx = E.layout(x), ln = E.layout(&n);
    bool same_registers = lx.same_distribution(ln) && !ln.replicated() && !lx.replicated();
    if (reorder_ok && same_registers && lines < E.threads() && len > 1) {
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
