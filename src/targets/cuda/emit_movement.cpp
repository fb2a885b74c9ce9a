// Data movement inside a tile. reshape keeps the row-major order, and its operand
// and result share a distribution (passes/cuda_layout.h): it moves nothing. A
// broadcast of a uniform value, or of a vector held as the projection of the
// result (its columns or its rows), moves nothing either: each result slot reads a
// register of the operand. The others read elements other threads own, so the
// operand is staged in shared memory and each result element reads its source:
// out[e] = x[src(e)].
#include "targets/cuda/emitter.h"

namespace kiln::cu {

namespace {

// src(e) for broadcast, permute and slice: a constant-folded index expression.
std::string source_index(const Node& n, const std::string& e) {
    const auto& from = n.operands[0]->type.dims;
    const auto& to = n.type.dims;
    auto fs = strides_of(from);
    std::string s;
    auto add = [&](const std::string& idx, std::int64_t stride) {
        if (idx == "0" || stride == 0) return;
        s += (s.empty() ? "" : " + ") + (stride == 1 ? idx : idx + " * " + num(stride));
    };
    for (std::size_t d = 0; d < from.size(); ++d) {
        switch (n.op) {
            case OpCode::broadcast:
                if (from[d].extent != 1) add(coord(e, to, static_cast<std::size_t>(ir::dim_map(n)[d])), fs[d]);
                break;
            case OpCode::permute: add(coord(e, to, d), fs[static_cast<std::size_t>(ir::dim_map(n)[d])]); break;
            default: {  // slice
                std::string idx = coord(e, to, d);
                if (ir::slice_starts(n)[d] != 0) idx = "(" + idx + " + " + num(ir::slice_starts(n)[d]) + ")";
                add(idx, fs[d]);
            }
        }
    }
    return s.empty() ? "0" : s;
}

}  // namespace

void emit_movement(Emitter& E, const Node& n) {
    const Node* x = n.operands[0];
    switch (n.op) {
        case OpCode::mem_store:
        case OpCode::mem_load:
            // An explicit memory<T> resource is a value with a layout hint; its contents
            // are the stored tile, which is already where it is needed.
            if (x->type.dims != n.type.dims) internal_fail("cuda: memory op changes the shape");
            E.alias(&n, E.name(x));
            E.note(n, "the operand's registers (no data movement)");
            return;
        case OpCode::reshape:
            if (!Emitter::is_scalar(&n) && !Emitter::is_scalar(x)) {
                E.alias(&n, E.name(x));
                E.note(n, "the operand's registers (row-major order, hence the distribution, is unchanged)");
                return;
            }
            if (Emitter::is_scalar(x)) {  // a scalar becomes a one-element tile
                E.each_element(&n, [&](const std::string&, const std::string& dst) { E.line(dst + " = " + E.name(x) + ";"); });
                return;
            }
            // A one-element tile becomes a scalar: every thread holds it already.
            E.line("const " + ctype(n.type.kind) + " " + E.name(&n) + " = " + E.at(x, "0") + ";");
            E.note(n, "the operand's register (every thread holds the element)");
            return;
        case OpCode::broadcast:
            // A broadcast that only moves unit axes (the layout pass's one class with its
            // operand, decided local): the same elements in the same order.
            if (E.decision(&n).how == passes::CudaLowering::local && !Emitter::is_scalar(x) && x->type.count() == n.type.count()) {
                E.alias(&n, E.name(x));
                E.note(n, "the operand's registers (only unit axes move: the row-major order, hence the distribution, is unchanged)");
                return;
            }
            switch (E.decision(&n).how) {
                case passes::CudaLowering::recompute:
                    // A broadcast iota or fill is a function of the element's index: recompute
                    // it where it is needed instead of moving it (masks like iota(c) == label
                    // would otherwise stage a whole i64 tile).
                    if (x->op == OpCode::iota) {
                        auto along = static_cast<std::size_t>(ir::dim_map(n)[0]);
                        E.each_element(&n, [&](const std::string& e, const std::string& dst) {
                            E.line(dst + " = (long long)" + coord(e, n.type.dims, along) + ";");
                        });
                    } else {
                        E.each_element(&n, [&](const std::string&, const std::string& dst) { E.line(dst + " = " + E.at(x->operands[0]) + ";"); },
                                       false);
                    }
                    E.note(n, "recomputed per element (no data movement)");
                    return;
                case passes::CudaLowering::broadcast_free: {
                    // The operand holds, in its slots, the columns or the rows of this
                    // thread's slots of the result (or is uniform): register moves only.
                    auto lx = E.layout(x), ln = E.layout(&n);
                    const std::int64_t per_round = ln.row_runs * ln.vec;
                    std::string from = "0", what = "every thread holds its one element";
                    if (!Emitter::is_scalar(x) && !lx.uniform) {
                        bool columns = lx.holds == passes::CudaHolds::columns || (lx.holds == passes::CudaHolds::tile && lx.rows == 1);
                        from = columns ? (ln.row_rounds == 1 ? "j" : "j % " + num(per_round)) : (per_round == 1 ? "j" : "j / " + num(per_round));
                        what = columns ? "the operand holds the columns of this thread's slots" : "the operand holds the rows of this thread's slots";
                    }
                    E.each_element(&n, [&](const std::string&, const std::string& dst) { E.line(dst + " = " + E.at(x, from) + ";"); }, false);
                    E.note(n, "in registers, no data movement (" + what + ")");
                    return;
                }
                default: break;
            }
            break;
        case OpCode::permute:
            if (E.decision(&n).how == passes::CudaLowering::padded_transpose) {
                // Rows of an odd pitch: a warp reading a column of the staged tile (a row of
                // the result) hits 32 different banks, as does one writing a row.
                const std::int64_t rows = x->type.dims[0].extent, cols = x->type.dims[1].extent, pitch = cols | 1;
                E.begin_shared(n);
                std::string s = E.shared_array(ctype(x->type.kind), rows * pitch, register_bytes(x->type.kind));
                E.each_owned(x, [&](const std::string& e, const std::string& v) {
                    E.line(s + "[(" + e + ") / " + num(cols) + " * " + num(pitch) + " + (" + e + ") % " + num(cols) + "] = " + v + ";");
                });
                E.barrier();
                E.each_element(&n, [&](const std::string& e, const std::string& dst) {
                    E.line(dst + " = " + s + "[(" + e + ") % " + num(rows) + " * " + num(pitch) + " + (" + e + ") / " + num(rows) + "];");
                });
                E.note(n, "transposed through shared memory, rows padded to an odd pitch of " + num(pitch) + " (no bank conflicts)");
                return;
            }
            break;
        default: break;
    }
    E.begin_shared(n);
    std::string sx = E.stage(x);
    E.barrier();
    std::string why = E.decision(&n).why;
    std::string lowering = "staged through shared memory" + (why.empty() ? "" : " (" + why + ")");
    switch (n.op) {
        case OpCode::broadcast: case OpCode::permute: case OpCode::slice:
            E.each_element(&n, [&](const std::string& e, const std::string& dst) { E.line(dst + " = " + sx + "[" + source_index(n, e) + "];"); });
            break;
        case OpCode::gather: {
            // out[p] = x[p with dim `axis` := idx[p]]; an index out of range gives 0.
            const auto& xd = x->type.dims;
            auto xs = strides_of(xd);
            auto axis = static_cast<std::size_t>(ir::tile_dim(n));
            const Node* idx = n.operands[1];
            E.each_element(&n, [&](const std::string& e, const std::string& dst) {
                std::string q = E.fresh("q");
                E.line("const long long " + q + " = " + E.at(idx) + ";");
                std::string src = q + " * " + num(xs[axis]);
                for (std::size_t d = 0, o = 0; d < xd.size(); ++d)
                    if (d != axis) src += " + " + coord(e, n.type.dims, o++) + " * " + num(xs[d]);
                E.line(dst + " = ((unsigned long long)" + q + " < " + num(xd[axis].extent) + "ULL) ? " + sx + "[(int)(" + src + ")] : " +
                       literal(n.type.kind, 0, 0) + ";");
            });
            break;
        }
        case OpCode::reindex: {
            // out[p] = x[c0(p), ..., cn(p)]; a coordinate out of range gives 0.
            const auto& xd = x->type.dims;
            auto xs = strides_of(xd);
            E.each_element(&n, [&](const std::string&, const std::string& dst) {
                std::string ok, src;
                for (std::size_t d = 0; d < xd.size(); ++d) {
                    std::string c = E.fresh("q");
                    E.line("const long long " + c + " = " + E.at(n.operands[d + 1]) + ";");
                    ok += (ok.empty() ? "" : " && ") + ("(unsigned long long)" + c + " < " + num(xd[d].extent) + "ULL");
                    src += (src.empty() ? "" : " + ") + (c + " * " + num(xs[d]));
                }
                E.line(dst + " = (" + ok + ") ? " + sx + "[(int)(" + src + ")] : " + literal(n.type.kind, 0, 0) + ";");
            });
            break;
        }
        default: internal_fail("cuda: emit_movement on " + std::string(detail::op_name(n.op)));
    }
    E.note(n, lowering);
}

}  // namespace kiln::cu
