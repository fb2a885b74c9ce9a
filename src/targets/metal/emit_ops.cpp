// Shape ops, folds, scans, sorts and gathers, each reproducing interp/eval.cpp:
// an output element (a line, for arg-reductions, scans and sorts) is one work
// item, computed in the interpreter's order by one thread; the simdgroup
// lowering strides the items across its lanes.
#include <algorithm>

#include "ir/tile_geometry.h"
#include "passes/metal_lowering.h"
#include "targets/metal/emit_expr.h"
#include "targets/metal/emitter.h"

namespace kiln::mtl {

namespace {

template <class T> std::vector<T> pick(const std::vector<T>& v, const std::vector<std::size_t>& at) {
    std::vector<T> r;
    for (auto k : at) r.push_back(v[k]);
    return r;
}

// The dims of `dims` other than `axis`.
std::vector<std::size_t> others_of(std::size_t rank, std::size_t axis) {
    std::vector<std::size_t> o;
    for (std::size_t d = 0; d < rank; ++d)
        if (d != axis) o.push_back(d);
    return o;
}

// The coordinates of element e of a tile of `dims`, as expressions.
std::vector<std::string> coordinates(const std::string& e, const std::vector<ir::Dim>& dims) {
    std::vector<std::string> c;
    for (std::size_t d = 0; d < dims.size(); ++d) c.push_back(coordinate(e, dims, d));
    return c;
}

std::string zero(Kind k) {
    switch (k) {
        case Kind::Bool: return "false";
        case Kind::F16: case Kind::BF16: case Kind::F32: return "0.0f";
        case Kind::F64: return "kf64(0)";
        default: return "(" + mtype(k) + ")0";
    }
}

}  // namespace

// out[p] = x[sum of p's coordinates times per-dim source coefficients + base].
void Emitter::emit_relayout(const Node& n) {
    const Node* x = n.operands[0];
    const auto& od = n.type.dims;
    const ir::AffineSource src = ir::relayout_source(n);
    for_each_element(n, [&](const std::string& e) { line(write(&n, e, read(x, linear(coordinates(e, od), src.coef, src.base)))); });
}

// Each output folds its elements left to right in row-major order over the
// reduced dims, from the first.
void Emitter::emit_reduce(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const Kind k = n.type.kind;
    auto xs = ir::strides_of(xd);
    auto reduced = ir::reduced_dims(n);
    std::vector<std::size_t> kept, red;
    for (std::size_t d = 0; d < xd.size(); ++d)
        (std::find(reduced.begin(), reduced.end(), static_cast<std::int64_t>(d)) != reduced.end() ? red : kept).push_back(d);
    const auto red_dims = pick(xd, red), kept_dims = pick(xd, kept);
    std::int64_t count = 1;
    for (auto& d : red_dims) count *= d.extent;
    auto red_offset = [&](const std::string& r) {
        std::vector<std::int64_t> s = pick(xs, red);
        return linear(coordinates(r, red_dims), s);
    };
    for_each_element(n, [&](const std::string& e) {
        line("const int base = " + linear(coordinates(e, kept_dims), pick(xs, kept)) + ";");
        line(mtype(k) + " acc = " + read(x, "base + " + red_offset("0")) + ";");
        if (count > 1) line("for (int r = 1; r < " + std::to_string(count) + "; ++r) acc = " + binary(*ir::combiner_of(n.op), k, "acc", read(x, "base + " + red_offset("r"))) + ";");
        line(write(&n, e, "acc"));
    });
}

// The index of the first extreme element of each line; NaN counts as extreme.
void Emitter::emit_arg_reduce(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    auto xs = ir::strides_of(xd);
    const auto others = others_of(xd.size(), axis);
    const std::string step = std::to_string(xs[axis]);
    for_each_element(n, [&](const std::string& e) {
        line("const int base = " + linear(coordinates(e, pick(xd, others)), pick(xs, others)) + ";");
        line("long best = 0;");
        open("for (int j = 1; j < " + std::to_string(xd[axis].extent) + "; ++j)");
        line("const " + mtype(x->type.kind) + " v = " + read(x, "base + j * " + step) + ", bv = " + read(x, "base + (int)best * " + step) + ";");
        const char* cmp = n.op == OpCode::argmax ? ">" : "<";
        if (is_float(x->type.kind)) line(std::string("if (!(bv != bv) && (v != v || v ") + cmp + " bv)) best = j;");
        else line(std::string("if (v ") + cmp + " bv) best = j;");
        close();
        line(write(&n, e, "best"));
    });
}

// Inclusive scan along one dim, left to right, one line per work item.
void Emitter::emit_scan(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    const Kind k = n.type.kind;
    auto xs = ir::strides_of(xd);
    const auto others = others_of(xd.size(), axis);
    const auto line_dims = pick(xd, others);
    std::int64_t lines = 1;
    for (auto& d : line_dims) lines *= d.extent;
    const std::string step = std::to_string(xs[axis]);
    for_each(lines, storage(&n).space == Space::scalar, [&](const std::string& e) {
        line("const int base = " + linear(coordinates(e, line_dims), pick(xs, others)) + ";");
        line(mtype(k) + " acc = " + read(x, "base") + ";");
        line(write(&n, "base", "acc"));
        open("for (int j = 1; j < " + std::to_string(xd[axis].extent) + "; ++j)");
        line("acc = " + binary(*ir::combiner_of(n.op), k, "acc", read(x, "base + j * " + step)) + ";");
        line(write(&n, "base + j * " + step, "acc"));
        close();
    });
}

// sort / topk: each line's stable order (kiln_sort_line, on a private copy of
// the line), then the first `count` values or source indices.
void Emitter::emit_sort(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    const bool topk = n.op == OpCode::topk_values || n.op == OpCode::topk_indices;
    const bool want_index = n.op == OpCode::sort_indices || n.op == OpCode::topk_indices;
    const std::int64_t L = xd[axis].extent, count = topk ? ir::topk_count(n) : L;
    auto xs = ir::strides_of(xd), os = ir::strides_of(n.type.dims);
    const auto others = others_of(xd.size(), axis);
    const auto line_dims = pick(xd, others);
    std::int64_t lines = 1;
    for (auto& d : line_dims) lines *= d.extent;
    const std::string Ls = std::to_string(L);
    private_bytes_ += L * (passes::metal_value_bytes(x->type.kind) + 8);
    for_each(lines, storage(&n).space == Space::scalar, [&](const std::string& e) {
        const auto c = coordinates(e, line_dims);
        line("const int base = " + linear(c, pick(xs, others)) + ", obase = " + linear(c, pick(os, others)) + ";");
        line(mtype(x->type.kind) + " line[" + Ls + "];");
        line("int order[" + Ls + "], scratch[" + Ls + "];");
        line("for (int j = 0; j < " + Ls + "; ++j) line[j] = " + read(x, "base + j * " + std::to_string(xs[axis])) + ";");
        line(std::string("kiln_sort_line(line, order, scratch, ") + Ls + ", " + (topk ? "true" : "false") + ");");
        open("for (int j = 0; j < " + std::to_string(count) + "; ++j)");
        line(write(&n, "obase + j * " + std::to_string(os[axis]), want_index ? "(long)order[j]" : "line[order[j]]"));
        close();
    });
}

// out[p] = x[p with dim `axis` := index[p]], 0 when the index is outside. As in
// the interpreter, x's other dims take p's coordinates in order (p may have
// fewer dims than x: the axis is then not one of p's).
void Emitter::emit_gather(const Node& n) {
    const Node *x = n.operands[0], *index = n.operands[1];
    const auto& xd = x->type.dims;
    const auto axis = static_cast<std::size_t>(ir::tile_dim(n));
    auto xs = ir::strides_of(xd);
    const auto others = others_of(xd.size(), axis);
    for_each_element(n, [&](const std::string& e) {
        auto c = coordinates(e, n.type.dims);
        c.resize(others.size(), "0");
        line("const long j = " + read(index, e) + ";");
        line(write(&n, e, "j >= 0 && j < " + std::to_string(xd[axis].extent) + " ? " +
                              read(x, linear(c, pick(xs, others)) + " + (int)j * " + std::to_string(xs[axis])) + " : " +
                              zero(n.type.kind)));
    });
}

// out[p] = x[c0(p), ..., cn(p)], 0 when any coordinate is outside.
void Emitter::emit_reindex(const Node& n) {
    const Node* x = n.operands[0];
    const auto& xd = x->type.dims;
    auto xs = ir::strides_of(xd);
    for_each_element(n, [&](const std::string& e) {
        std::string inside, offset;
        for (std::size_t d = 0; d < xd.size(); ++d) {
            const std::string c = "c" + std::to_string(d);
            line("const long " + c + " = " + read(n.operands[d + 1], e) + ";");
            inside += (d ? " && " : "") + c + " >= 0 && " + c + " < " + std::to_string(xd[d].extent);
            offset += (d ? " + " : "") + std::string("(int)") + c + " * " + std::to_string(xs[d]);
        }
        line(write(&n, e, "(" + inside + ") ? " + read(x, offset) + " : " + zero(n.type.kind)));
    });
}

}  // namespace kiln::mtl
