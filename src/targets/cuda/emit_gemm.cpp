// The Hopper GEMM lowering (see emit_gemm.h): the pattern match over the IR and
// the text of the second kernel. The main loop itself is emit_gemm_sm90.cuh,
// pasted in verbatim; this file adds the wgmma wrapper for the tile's N, and
// the kernel whose epilogue applies the program's elementwise ops to each
// accumulator element and stores it with the program's bounds.
#include "targets/cuda/emit_gemm.h"

#include <algorithm>
#include <set>

#include "passes/host_scalars.h"
#include "targets/cuda/emitter.h"
#include "targets/cuda/view_access.h"
#include "targets/cuda/wgmma_text.h"
#include "targets/common/embedded_text.h"

namespace kiln::cu {

namespace {

// Opt-in shared memory of an sm_90 CTA (227 KB).
constexpr std::int64_t kSharedLimit = 227 * 1024;

// Whether wgmma and TMA take a program's tile as it is: BM 64 or 128 (one or two
// consumer warpgroups), BN a multiple of the 64-column swizzle box up to wgmma's
// 256, BK 64 or 128.
// (8-bit and tf32 operands take any BK: the kernel's is a 128-byte box row.)
bool takes_directly(std::int64_t bm, std::int64_t bn, std::int64_t bk, Kind in) {
    return (bm == 64 || bm == 128) && bn % 64 == 0 && bn <= 256 && (gemm_k_major_only(in) || bk == 64 || bk == 128);
}

// The kernel's tile: the program's when wgmma and TMA take it directly (BM 64 or
// 128: one or two consumer warpgroups; BN a multiple of the 64-column swizzle
// box up to wgmma's 256; BK 64 or 128), else 128x128x64; at the launch's tile
// when it asks for one (EmitOptions::gemm_bm, gemm_bn). Stages: as many as fit.
void choose_tile(const GemmMatch& m, const EmitOptions& o, GemmKernel& g) {
    const Kind in = m.load_a->type.kind;
    const bool direct = takes_directly(m.bm, m.bn, m.bk, in);
    const GemmTile own = own_tile(m.bm, m.bn, m.bk, in);
    g.bm = own.bm;
    g.bn = own.bn;
    if ((o.gemm_bm == 64 || o.gemm_bm == 128) && o.gemm_bn % 64 == 0 && o.gemm_bn >= 64 && o.gemm_bn <= 256) {
        g.bm = o.gemm_bm;
        g.bn = o.gemm_bn;
    }
    // 8-bit and tf32 operands: a box row of 128 bytes (as 64 f16), so BK 128 or 32.
    const int eb = gemm_operand_bytes(in);
    g.bk = eb != 2 ? 128 / eb : direct ? static_cast<int>(m.bk) : 64;
    std::int64_t stage = static_cast<std::int64_t>(g.bm + g.bn) * g.bk * eb;
    g.stages = static_cast<int>(std::min<std::int64_t>(8, (kSharedLimit - 1024 - 16) / (stage + 16)));
    g.threads = 128 * (g.bm / 64 + 1);
    g.shared_bytes = 1024 + g.stages * stage + 16 * g.stages + 16;  // kg::GemmShape::shared_bytes
}

// kg::Wgmma::run(d, a_desc, b_desc) (wgmma_text.h): A K-major, B N-major or, for B
// stored [N, K], K-major, always accumulating.
std::string wgmma_wrapper(int n, Kind in, bool a_mmajor, bool b_kmajor) {
    return "namespace kg {\n" + wgmma_smem_wrapper("Wgmma", n, in, a_mmajor, b_kmajor, false) + "}  // namespace kg\n";
}

}  // namespace

bool batched(const GemmMatch& m) {
    bool lead = !m.batch_axes.empty() || ir::access_rank(*m.load_a) > 2 || ir::access_rank(*m.load_b) > 2;
    for (const Node* st : m.stores) lead = lead || ir::access_rank(*st) > 2;
    return lead;
}

GemmTile own_tile(std::int64_t bm, std::int64_t bn, std::int64_t bk, Kind in) {
    return takes_directly(bm, bn, bk, in) ? GemmTile{static_cast<int>(bm), static_cast<int>(bn)} : GemmTile{128, 128};
}

namespace {

// The epilogue of one accumulator pair, as the text of the kernel's epilogue
// functor: every epilogue value at output (r, c) and (r, c + 1) (values that vary
// only with the row, or with nothing, once), then each output's store.
class EpilogueWriter {
public:
    EpilogueWriter(Emitter& E, const GemmMatch& m) : E_(E), m_(m) {}

    // Fills columns() and body(): the values that vary only with the column are
    // computed in the column functor (once per column pair, for both rows of a
    // thread's pair), the rest per element pair in the body.
    void write() {
        for (const auto& v : m_.epilogue) {
            bool per_column = v.varies == passes::EpilogueVaries::cols || v.varies == passes::EpilogueVaries::tile;
            bool column_only = v.varies == passes::EpilogueVaries::cols;
            std::string stem = "e" + num(static_cast<std::int64_t>(names_.size()));
            for (int q = 0; q < (per_column ? 2 : 1); ++q) {
                std::string name = stem + (per_column ? "_" + num(q) : "");
                std::string line = "        const " + ctype(v.node->type.kind) + " " + name + " = " + value(*v.node, q, column_only) + ";\n";
                if (column_only) {
                    columns_ += line;
                    fields_ += ctype(v.node->type.kind) + " " + name + "; ";
                    copies_ += "v." + name + " = " + name + "; ";
                    column_names_[q][v.node] = name;
                } else {
                    body_ += line;
                    // A value the same for every element (a fill of a constant) may be read
                    // by column values too: the column functor computes it as well.
                    if (v.varies == passes::EpilogueVaries::scalar) columns_ += line;
                }
                std::string ref = column_only ? "cv." + name : name;
                at_[q][v.node] = ref;
                if (!per_column) at_[1][v.node] = ref;
            }
            names_.push_back(v.node);
        }
        values_ = body_;
        for (std::size_t i = 0; i < m_.stores.size(); ++i) {
            if (m_.stores_transposed[i]) store_transposed(*m_.stores[i]);
            else store(*m_.stores[i]);
        }
        batch_ = make_batch_text();  // (its host scalars join scalars_)
    }
    // kg::QuadStores for the tiles inside the bounds (emit_gemm_sm90.cuh), where
    // every output has 2-byte elements; empty otherwise (the pair stores alone).
    std::string quad_stores() const {
        if (quad_outputs_ == 0 || quad_outputs_ != static_cast<int>(m_.stores.size())) return "";
        return "kg::make_quad_stores<" + num(quad_outputs_) + ">([&](long long r, long long c, [[maybe_unused]] const KilnColumns& cv, " + acc() +
               " x0, " + acc() + " x1, unsigned* u) {\n"
               "        [[maybe_unused]] constexpr bool kiln_in = true;\n" +
               values_ + packs_ + "    },\n    [&](int o, long long r, long long c, uint4 v) {\n" + quad_stores_ + "    },\n    " + quad_ok_ + ")";
    }
    // The column values' struct, the column functor's and the body's text (write() first).
    std::string column_struct() const { return "    struct KilnColumns { " + fields_ + "};\n"; }
    // The column functor and the body for tiles inside the bounds (in) or not: the
    // same text, with kiln_in a constant that drops the checks.
    std::string columns(bool in) const {
        if (fields_.empty()) return "[&](long long) { return KilnColumns{}; }";
        return "[&](long long c) {\n        [[maybe_unused]] constexpr bool kiln_in = " + std::string(in ? "true" : "false") + ";\n" + columns_ +
               "        KilnColumns v;\n        " + copies_ + "\n        return v;\n    }";
    }
    std::string body(bool in) const {
        return "[&](long long r, long long c, [[maybe_unused]] const KilnColumns& cv, " + acc() + " x0, " + acc() + " x1) {\n        constexpr bool kiln_in = " +
               std::string(in ? "true" : "false") + ";\n        if (!kiln_in && (r >= kiln_rows || c >= kiln_cols)) return;\n" + body_ + "    }";
    }
    // The inside functor's condition on (re, ce): rows below re and columns below ce
    // are inside every extent the epilogue's loads and stores check.
    std::string inside() const {
        std::string all = "re <= kiln_rows && ce <= kiln_cols";
        for (const auto& c : inside_) all += " && " + c;
        return all;
    }
    std::string scalars() const { return scalars_; }
    // The accumulator element's C type: float, or int for an i8 x i8 -> i32 product.
    std::string acc() const { return ctype(m_.mma->type.kind); }

    // A batched GEMM's per-batch text (gemm_match.h: batch_axes; empty when the kernel
    // has none): the batched outputs' offsets and range flags, and two functors of a
    // batch number (kg::Batch, emit_gemm_sm90.cuh): kiln_batch_set, which sets them
    // for the tile's batch before its epilogue, and kiln_batch_coords, which gives the
    // producer A's and B's leading coordinates, their tensor maps' order (innermost
    // first). The batch number runs over the batch axes' indices, the last fastest.
    std::string batch_text() const { return batch_; }

private:
    std::string make_batch_text() {
        if (!batched(m_)) return "";
        std::string decompose = "        [[maybe_unused]] long long kiln_br = kiln_bat;\n";
        for (auto it = m_.batch_axes.rbegin(); it != m_.batch_axes.rend(); ++it) {
            const std::string ax = num(*it);
            decompose += "        [[maybe_unused]] const long long kiln_bi" + ax + " = kiln_br % kiln_gb" + ax + ";\n";
            decompose += "        kiln_br /= kiln_gb" + ax + ";\n";
        }
        std::string decl, set, coords;
        for (const Node* st : m_.stores) {
            const int rank = ir::access_rank(*st);
            if (rank <= 2) continue;
            const std::string i = num(ir::param_index(*st)), a = "a" + i;
            decl += "    long long kiln_boff" + i + " = 0;\n    bool kiln_bok" + i + " = true;\n";
            std::string off = "0", ok = "true";
            for (int d = 0; d + 2 < rank; ++d) {
                const std::string c = "kiln_c" + i + "_" + num(d);
                set += "        const long long " + c + " = " + batch_expr(st->operands[static_cast<std::size_t>(d)]) + ";\n";
                off += " + " + c + " * " + a + "_s" + num(d);
                ok += " && " + c + " >= 0 && " + c + " < " + a + "_e" + num(d);
            }
            set += "        kiln_boff" + i + " = " + off + ";\n        kiln_bok" + i + " = " + ok + ";\n";
        }
        const std::pair<const Node*, const char*> operands[] = {{m_.load_a, "ca"}, {m_.load_b, "cb"}};
        for (const auto& [l, name] : operands) {
            const int rank = ir::access_rank(*l);
            for (int d = rank - 3, j = 0; d >= 0; --d, ++j)
                coords += "        " + std::string(name) + "[" + num(j) + "] = (int)(" + batch_expr(l->operands[static_cast<std::size_t>(d)]) + ");\n";
        }
        return decl + "    auto kiln_batch_set = [&](long long kiln_bat) {\n" + decompose + set + "    };\n" +
               "    auto kiln_batch_coords = [&](long long kiln_bat, [[maybe_unused]] int* ca, [[maybe_unused]] int* cb) {\n" + decompose + coords + "    };\n";
    }

    // The expression of operand o at column c + q, in the body (or, with
    // in_columns, inside the column functor, where column values have local names).
    std::string operand(const Node* o, int q, bool in_columns = false) {
        // The sum from zero, plus the accumulator's start where the program gave one.
        if (o == m_.result) return m_.init ? "(" + std::string(q ? "x1" : "x0") + " + " + operand(m_.init, q, in_columns) + ")" : q ? "x1" : "x0";
        if (in_columns)
            if (auto it = column_names_[q].find(o); it != column_names_[q].end()) return it->second;
        if (auto it = at_[q].find(o); it != at_[q].end()) return it->second;
        return scalar(o);
    }

    // A scalar of the batch indices (gemm_match.cpp: batch_scalar) in terms of the batch
    // axes' indices kiln_bi<axis> (batch_text()'s) and host scalars.
    std::string batch_expr(const Node* n) {
        const auto& args = m_.grid->body->args;
        for (int ax : m_.batch_axes)
            if (n == args[static_cast<std::size_t>(ax)]) return "kiln_bi" + num(ax);
        if (passes::host_evaluable(*n)) return scalar(n);
        std::vector<std::string> operands;
        for (const Node* o : n->operands) operands.push_back(batch_expr(o));
        return "(" + element_expr(E_, *n, operands) + ")";
    }

    // A host-evaluable scalar, computed once at the kernel's start from its parameters.
    std::string scalar(const Node* n) {
        if (auto it = scalar_names_.find(n); it != scalar_names_.end()) return it->second;
        std::string e;
        bool fl = is_float(n->type.kind);
        switch (ir::category(n->op)) {
            case ir::OpCategory::leaf:
                if (n->op == OpCode::constant) e = literal(n->type.kind, fl ? n->data->floats[0] : 0, fl ? 0 : n->data->ints[0]);
                else e = view_access::argument(*n);  // param, view_extent, view_stride
                break;
            case ir::OpCategory::shape: e = scalar(n->operands[0]); break;  // full of a scalar
            default: {
                std::vector<std::string> args;
                for (const Node* o : n->operands) args.push_back(scalar(o));
                e = element_expr(E_, *n, args);
            }
        }
        if (ir::category(n->op) == ir::OpCategory::leaf) return scalar_names_[n] = e;  // a literal or a parameter
        std::string name = "kiln_s" + num(static_cast<std::int64_t>(scalar_names_.size()));
        scalars_ += "    const " + ctype(n->type.kind) + " " + name + " = " + e + ";\n";
        return scalar_names_[n] = name;
    }

    std::string value(const Node& n, int q, bool in_columns) {
        if (n.op == OpCode::load) return load(n, q, in_columns);
        // Positions in the output: r and c are its row and column, the program's blocks
        // bm x bn (whatever tile the kernel runs), so a block's origin is r - r % bm and
        // iota over it r % bm.
        if (const auto e = entry(n); e.position != passes::EpiloguePosition::none) {
            const auto position = e.position;
            const bool rows = e.varies == passes::EpilogueVaries::rows;
            const std::string at = rows ? "r" : q ? "(c + 1)" : "c", block = num(rows ? m_.bm : m_.bn);
            return position == passes::EpiloguePosition::origin ? "(" + at + " - " + at + " % " + block + ")" : "(" + at + " % " + block + ")";
        }
        // (Broadcasts and unit reshapes: the same value at (r, c); gemm_match.cpp checks
        // that every value's dims keep the m and n roles.)
        if (n.op == OpCode::broadcast || n.op == OpCode::full || n.op == OpCode::reshape) return operand(n.operands[0], q, in_columns);
        std::vector<std::string> args;
        for (const Node* o : n.operands) args.push_back(operand(o, q, in_columns));
        return element_expr(E_, n, args);
    }

    // An epilogue load at output (r, c + q): the view's element there, or the
    // fallback (zero without one) outside the view.
    std::string load(const Node& n, int q, bool in_columns) {
        std::string a = "a" + num(ir::param_index(n));
        std::string col = q ? "(c + 1)" : "c";
        // Each view dim's index: the output's row r or column c where the load varies
        // with them (a tile's first non-unit dim is its rows, its second its columns; a
        // vector's one dim is its rows or columns), a host scalar at a unit dim.
        std::string ok, off, inside;
        const auto join = [](std::string& text, const std::string& sep, const std::string& more) { text += (text.empty() ? "" : sep) + more; };
        int role = varies_of(n) == passes::EpilogueVaries::cols ? 1 : 0;  // 0: rows, 1: columns
        for (int d = 0; d < ir::access_rank(n); ++d) {
            const std::string e = a + "_e" + num(d), s = a + "_s" + num(d);
            std::string i;
            if (n.type.dims[static_cast<std::size_t>(d)].extent == 1) {
                i = scalar(n.operands[static_cast<std::size_t>(d)]);
                join(ok, " && ", i + " >= 0 && " + i + " < " + e);
                join(inside, " && ", i + " >= 0 && " + i + " < " + e);
            } else {
                const bool row = role++ == 0;
                i = row ? "r" : col;
                join(ok, " && ", i + " < " + e);
                join(inside, " && ", (row ? "re <= " : "ce <= ") + e);
            }
            join(off, " + ", i + " * " + s);
        }
        Kind k = n.type.kind;
        std::string fill = ir::has_fallback(n) ? operand(n.operands.back(), q, in_columns) : literal(k, 0, 0);
        if (ir::bounds_policy(n) == bounds::assume) return from_storage(k, a + "[" + off + "]");
        if (q == 0) inside_.insert(inside);
        return "((kiln_in || (" + ok + ")) ? " + from_storage(k, a + "[" + off + "]") + " : " + fill + ")";
    }
    // n's entry in the epilogue (a value varying with nothing, computed from its operands,
    // where n has none).
    passes::EpilogueValue entry(const Node& n) const {
        for (const auto& v : m_.epilogue)
            if (v.node == &n) return v;
        return {&n};
    }
    passes::EpilogueVaries varies_of(const Node& n) const { return entry(n).varies; }

    // Stores the pair to one output: one 4-byte (f16/bf16) or 8-byte (f32) store at
    // an even column where the view allows it (unit inner stride, even row stride,
    // a base aligned for the pair: uniform over the launch, so the branch never
    // diverges), else the elements in range one by one, at any strides. Inside the
    // bounds (kiln_in: the tile is inside the view and the view takes pairs) the
    // pair store alone, at unit inner stride. A store of cast<f16/bf16>(x) converts
    // x (stored_registers: the same bits, one conversion instead of two).
    void store(const Node& st) {
        // (A batched view's store reads the epilogue tile through a unit reshape, and
        // any store may: the same elements.)
        const Node* v = st.operands.back();
        while (passes::unit_reshape(v)) v = v->operands[0];
        v = stored_registers(v);
        Kind k = st.operands.back()->type.kind;
        std::string a = "a" + num(ir::param_index(st));
        std::string y0 = operand(v, 0), y1 = operand(v, 1);
        // (Outputs are f32, i32, f16 or bf16: gemm_match.cpp.)
        const bool four = k == Kind::F32 || k == Kind::I32;
        std::string pair = k == Kind::I32 ? "*reinterpret_cast<int2*>(p) = make_int2(" + y0 + ", " + y1 + ");"
                                          : "*reinterpret_cast<float2*>(p) = make_float2(" + y0 + ", " + y1 + ");";
        if (!four) {
            // f16/bf16 pairs convert in one instruction, NaNs canonicalised by the 16-bit
            // minimum (the bits of two to_storage calls; prelude.cpp). Always here: the
            // GEMM kernel has registers to spare (EmitOptions::nan_by_minimum is about
            // the generic kernel's).
            pair = "*reinterpret_cast<unsigned*>(p) = " + std::string(k == Kind::F16 ? "kc::f2h2_min(" : "kc::f2b2_min(") + y0 + ", " + y1 + ");";
        }
        // The view's row and column dims are its last two; a batched view's leading
        // coordinates are the tile's batch's (kiln_boff<i>: their element offset,
        // kiln_bok<i>: whether they are in range; batch_text()).
        const int rank = ir::access_rank(st);
        const std::string index = num(ir::param_index(st));
        const std::string er = a + "_e" + num(rank - 2), ec = a + "_e" + num(rank - 1), sr = a + "_s" + num(rank - 2), sc = a + "_s" + num(rank - 1);
        const std::string base = rank > 2 ? "(" + a + " + kiln_boff" + index + ")" : a;
        const std::string lead_ok = rank > 2 ? " && kiln_bok" + index : "";
        // Leading strides keep the parity and 16-byte alignment the flags check, whatever the batch.
        std::string lead_odd, lead_16;
        for (int d = 0; d + 2 < rank; ++d) {
            lead_odd += " | " + a + "_s" + num(d);
            lead_16 += " && " + a + "_s" + num(d) + " % 8 == 0";
        }
        std::string pairs = a + "_pairs";
        if (paired_views_.insert(a).second) {
            scalars_ += "    const bool " + pairs + " = " + sc + " == 1 && ((" + sr + lead_odd + " | (long long)(reinterpret_cast<unsigned long long>(" + a +
                    ") / sizeof(*" + a + "))) & 1) == 0;\n";
            if (!four)
                scalars_ += "    const bool " + a + "_rows16 = " + sc + " == 1 && " + sr + " % 8 == 0" + lead_16 + " && reinterpret_cast<unsigned long long>(" + a +
                            ") % 16 == 0;\n";
        }
        if (!four) {
            // The same bits as the pair store below, handed to the quad stores.
            const std::string o = num(quad_outputs_++);
            packs_ += "        u[" + o + "] = " + (k == Kind::F16 ? "kc::f2h2_min(" : "kc::f2b2_min(") + y0 + ", " + y1 + ");\n";
            quad_stores_ += "        if (o == " + o + ") *reinterpret_cast<uint4*>(" + base + " + r * " + sr + " + c) = v;\n";
            quad_ok_ += (quad_ok_.empty() ? "" : " && ") + a + "_rows16";
        }
        inside_.insert("re <= " + er + " && ce <= " + ec + " && " + pairs + lead_ok);
        body_ += "        if constexpr (kiln_in) {\n";
        body_ += "            " + stype(k) + "* const p = " + base + " + r * " + sr + " + c;\n";
        body_ += "            " + pair + "\n";
        body_ += "        } else if (r < " + er + lead_ok + ") {\n";
        body_ += "            const long long lim = kiln_cols < " + ec + " ? kiln_cols : " + ec + ";\n";
        body_ += "            " + stype(k) + "* const p = " + base + " + r * " + sr + " + c * " + sc + ";\n";
        body_ += "            if (" + pairs + " && c + 1 < lim) " + pair + "\n";
        body_ += "            else {\n";
        body_ += "                if (c < lim) p[0] = " + to_storage(k, y0) + ";\n";
        body_ += "                if (c + 1 < lim) p[" + sc + "] = " + to_storage(k, y1) + ";\n";
        body_ += "            }\n";
        body_ += "        }\n";
    }

    // Stores the pair to an output stored transposed (Ct[n0, m0]: the element at (r, c)
    // goes to Ct's (c, r)), element by element: the pair's two elements are a row of Ct
    // apart. (A quad's lanes hold 8 adjacent rows r of a column: 16 contiguous bytes of
    // Ct's row c.)
    void store_transposed(const Node& st) {
        const Node* v = stored_registers(st.operands.back()->operands[0]);
        Kind k = st.operands.back()->type.kind;
        std::string a = "a" + num(ir::param_index(st));
        std::string y0 = operand(v, 0), y1 = operand(v, 1);
        inside_.insert("ce <= " + a + "_e0 && re <= " + a + "_e1");
        body_ += "        {\n";
        body_ += "            " + stype(k) + "* const p = " + a + " + c * " + a + "_s0 + r * " + a + "_s1;\n";
        body_ += "            if (kiln_in || (r < " + a + "_e1 && c < " + a + "_e0)) p[0] = " + to_storage(k, y0) + ";\n";
        body_ += "            if (kiln_in || (r < " + a + "_e1 && c + 1 < " + a + "_e0 && c + 1 < kiln_cols)) p[" + a + "_s0] = " + to_storage(k, y1) + ";\n";
        body_ += "        }\n";
    }

    Emitter& E_;
    const GemmMatch& m_;
    std::string body_, scalars_, columns_, fields_, copies_;
    std::string values_;                              // body_ before its stores
    std::string packs_, quad_stores_, quad_ok_;       // quad_stores()'s parts
    int quad_outputs_ = 0;                            // outputs with 2-byte elements
    std::vector<const Node*> names_;
    std::unordered_map<const Node*, std::string> at_[2], column_names_[2];
    std::unordered_map<const Node*, std::string> scalar_names_;
    std::set<std::string> paired_views_;  // outputs whose "<a>_pairs" flag is declared
    std::string batch_;                   // batch_text()
    std::set<std::string> inside_;        // the inside functor's conditions (see inside())
};

}  // namespace

std::string emit_gemm_kernel(Emitter& E, const GemmMatch& m, const std::string& entry, GemmKernel& g) {
    choose_tile(m, E.options(), g);
    g.entry = entry;
    g.program_bm = m.bm;
    g.program_bn = m.bn;
    g.program_bk = m.bk;
    g.a = ir::param_index(*m.load_a);
    g.b = ir::param_index(*m.load_b);
    g.a_mmajor = m.a_mmajor;
    g.b_kmajor = m.b_kmajor;
    // wgmma reads 8-bit and tf32 operands K-major only: one stored with k outermost is
    // read from a transposed copy (gemm_staging.h: stage_transposed).
    const bool k_major_only = gemm_k_major_only(m.load_a->type.kind);
    g.flipped = E.options().gemm_flipped & 3;
    g.a_transposed = k_major_only && g.a_stored_mmajor();
    g.b_transposed = k_major_only && !g.b_stored_kmajor();
    // A batched kernel runs its (batch, tile) units whole, on lone CTAs: split-K's
    // workspace and a cluster's multicast are per tile of one batch (not yet for batches).
    g.batched = batched(m);
    // 8-bit and tf32 operands (emit_gemm_sm90.cuh) run on lone CTAs, without split-K,
    // read by TMA.
    g.split_k = E.options().gemm_split_k && !g.batched && !k_major_only;
    g.cluster = E.options().gemm_cluster == 2 && !g.split_k && !g.batched && !k_major_only ? 2 : 1;
    g.cp_async = g.cluster == 1 && !k_major_only && !g.flipped ? E.options().gemm_cp_async & 3 : 0;
    g.n_axis = m.n_axis;
    g.batch_axes = m.batch_axes;
    g.a_lead = ir::access_rank(*m.load_a) - 2;
    g.b_lead = ir::access_rank(*m.load_b) - 2;
    for (std::size_t i = 0; i < m.stores.size(); ++i) {
        g.outputs.push_back(ir::param_index(*m.stores[i]));
        g.outputs_transposed.push_back(m.stores_transposed[i] ? 1 : 0);
    }
    g.m_axis = m.m_axis;
    g.flat_grid = m.tiles_per_row ? (m.flat_m_by_div ? 1 : 2) : m.tile_map() ? 3 : 0;
    g.flat_split = m.flat_split;
    g.tile_map_m = m.tile_map_m;
    g.tile_map_n = m.tile_map_n;
    g.k_loop = m.k_loop;
    g.in = m.load_a->type.kind;

    EpilogueWriter epi(E, m);
    epi.write();
    for (const auto& v : m.epilogue) g.epilogue_loads += v.node->op == OpCode::load;
    std::string s;
    s += "\n// ---- the Hopper GEMM kernel of this program (emit_gemm.cpp): TMA + mbarrier ring + wgmma\n";
    if (E.options().uniform_warpgroup) s += "#define KILN_UNIFORM_WARPGROUP 1\n";
    s += embedded::emit_gemm_sm90_cuh();
    s += wgmma_wrapper(g.bn, g.in, g.kernel_a_mmajor(), g.kernel_b_kmajor());
    const std::string cluster_dims = g.cluster > 1 ? "__cluster_dims__(" + num(g.cluster) + ", 1, 1) " : "";
    // A batched kernel's batches and the batch axes' extents (launch_args.cpp: gemm_launch).
    std::string batch_params = g.batched ? "long long kiln_batches, " : "";
    for (int ax : m.batch_axes) batch_params += "long long kiln_gb" + num(ax) + ", ";
    s += "\nextern \"C\" __global__ void __launch_bounds__(" + num(g.threads) + ", 1) " + cluster_dims + entry +
         "(const __grid_constant__ kg::TensorMap kiln_ta, const __grid_constant__ kg::TensorMap kiln_tb, long long kiln_tiles_n, "
         "long long kiln_tiles, int kiln_k_tiles, int kiln_splits, float* kiln_partials, unsigned* kiln_counters, long long kiln_rows, "
         "long long kiln_cols, " + batch_params + kernel_signature(E.program()) + ") {\n";
    s += "    extern __shared__ __align__(16) unsigned char kiln_smem[];\n";
    s += epi.scalars();
    s += "    // Rows and columns the program's tiles cover (kiln_rows, kiln_cols); each output\n";
    s += "    // is clipped to its own extents.\n";
    s += epi.column_struct();
    s += epi.batch_text();
    s += "    // The epilogue of tiles inside every bound the epilogue checks, then of the rest.\n";
    s += "    auto epilogue = kg::make_epilogue(" + epi.columns(true) + ",\n    " + epi.body(true) + ",\n    " + epi.columns(false) + ",\n    " +
         epi.body(false) + ",\n";
    const std::string quads = E.options().gemm_quad_stores ? epi.quad_stores() : "";
    g.quad_stores = !quads.empty();
    s += "    [&](long long re, long long ce) { return " + epi.inside() + "; }" + (quads.empty() ? "" : ",\n    " + quads) + ");\n";
    s += "    kg::gemm_sm90<" + num(g.bm) + ", " + num(g.bn) + ", " + num(g.bk) + ", " + num(g.stages) + ", " +
         (g.kernel_a_mmajor() ? "true" : "false") + ", " + (g.kernel_b_kmajor() ? "true" : "false") + ", " + (g.split_k ? "true" : "false") + ", " + num(g.cluster) + ", " + num(g.cp_async) +
         ", kg::Wgmma>(&kiln_ta, &kiln_tb, kiln_tiles_n, kiln_tiles, kiln_k_tiles, kg::SplitK{kiln_splits, kiln_partials, kiln_counters, "
         "kiln_rows}, kiln_smem, epilogue, " +
         (g.batched ? "kg::make_batch<" + num(g.a_lead) + ", " + num(g.b_lead) + ">(kiln_batches, kiln_batch_set, kiln_batch_coords)" : std::string("kg::NoBatch{}")) +
         ");\n";
    s += "}\n";
    // (Operands TMA cannot read in place, or that wgmma reads K-major only, are copied
    // first by the staging kernels, each a module of its own: staging_kernels.h.)
    E.count_tensor_core_op();
    return s;
}

std::string GemmKernel::describe() const {
    if (entry.empty()) return "";
    return "wgmma pipeline (" + entry + "): tile " + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) +
           " (program's " + std::to_string(program_bm) + "x" + std::to_string(program_bn) + "x" + std::to_string(program_bk) + "), " +
           std::to_string(stages) + " TMA stages (128B swizzle, mbarrier ring), " + std::to_string(bm / 64) +
           " consumer warpgroup(s) of wgmma.mma_async m64n" + std::to_string(bn) + (in == Kind::I8 ? "k32 s8 -> s32 (exact: integer sums wrap in any order)" : in == Kind::F32 ? "k8 tf32 -> f32 (allow_tf32)" : "k16") +
           " + 1 producer warpgroup, " + std::to_string(threads) +
           " threads, " + std::to_string(shared_bytes) + " bytes shared, persistent grid" + (split_k ? ", split-K" : "") +
           (cluster > 1 ? ", clusters of " + std::to_string(cluster) + " CTAs on adjacent m-tiles sharing B by TMA multicast" : "") +
           (cp_async ? std::string(", ") + (cp_async == 3 ? "A and B" : cp_async == 1 ? "A" : "B") +
                           " copied by the producer warpgroup's cp.async (rows that straddle 128-byte lines)"
                     : "") +
           (batched ? ", batched (work units of a batch and a tile; A's and B's leading coordinates in tensor maps of their views' ranks)" : "") +
           ((flipped & 1) ? std::string(", A's view stored the other way round (strides with the unit one first): read ") +
                                 (a_stored_mmajor() ? "M-major" : "K-major")
                           : std::string()) +
           ((flipped & 2) ? std::string(", B's view stored the other way round (strides with the unit one first): read ") +
                                 (b_stored_kmajor() ? "K-major" : "N-major")
                           : std::string()) +
           // (How each operand is stored, which a flipped view makes the other way round.)
           (a_transposed      ? std::string(", A stored [K, M] (copied transposed at each launch: wgmma reads ") + gemm_k_major_only_name(in) +
                                    " operands K-major only)"
            : a_stored_mmajor() ? ", A stored [K, M] (M-major)"
                                : "") +
           (b_transposed      ? std::string(", B stored [K, N] (copied transposed at each launch: wgmma reads ") + gemm_k_major_only_name(in) +
                                    " operands K-major only)"
            : b_stored_kmajor() ? ", B stored [N, K] (K-major)"
                                : "") +
           (epilogue_loads ? ", " + std::to_string(epilogue_loads) + " load(s) fused into the epilogue" : "") +
           (flat_grid == 3 ? std::string(", the program's own order of tiles over its 1-D grid checked at each launch to visit each tile once (the "
                                         "kernel orders them its own way)")
                           : std::string()) +
           (std::count(outputs_transposed.begin(), outputs_transposed.end(), 1)
                ? ", " + std::to_string(std::count(outputs_transposed.begin(), outputs_transposed.end(), 1)) +
                      " output(s) stored transposed (element by element, a quad's lanes writing 8 adjacent elements of a row)"
                : "") +
           (quad_stores ? ", output stores in whole 16-byte chunks (a transpose inside each quad of lanes) where rows are 16-byte aligned"
                        : ", output stores in pairs of elements (an output of 4-byte elements, or KILN_GEMM_QUAD_STORES=0)") +
           "; A and B read by TMA in place (16-byte aligned base and row stride, unit inner stride) or from a copy packed "
           "to whole 128-byte lines (any row stride; rows that straddle lines where the copy pays), else the kernel above";
}

}  // namespace kiln::cu
