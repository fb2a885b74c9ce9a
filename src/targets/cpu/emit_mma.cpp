// mma: out[o] = acc[o], then for each contraction point in row-major order
// out[o] = round(out[o] + round(a * b)). Every output sees the contraction in
// that order in both precisions; only the loops around it differ:
//   - f32 results (f32 operands, or f16/bf16 widened to float: their products
//     are exact in float) with a contiguous output dim in b and one contraction
//     dim run through kiln_cpu::mma_block, which keeps a block of outputs in
//     vector registers for the whole contraction;
//   - otherwise outer output dims, the contraction points, then the innermost
//     output dim, so the inner loop vectorises across outputs.
#include "targets/cpu/emit_expr.h"
#include "targets/cpu/emitter.h"

namespace kiln::native {

namespace {

// mma_block's block: kRows outputs of a row by kVectors vectors of 16 floats
// (16 accumulators and 2 operand vectors of AVX-512's 32 registers).
constexpr std::int64_t kRows = 8, kVectors = 2, kWidth = 16;

}  // namespace

void Emitter::emit_mma(const Node& n) {
    const Node *a = n.operands[0], *b = n.operands[1], *acc = n.operands[2];
    auto m = ir::dim_map(n);
    const auto n_out = static_cast<std::size_t>(m[0]);
    const auto n_con = static_cast<std::size_t>(m[1 + 2 * n_out]);
    const Kind k = n.type.kind, in = a->type.kind;
    auto as = ir::strides_of(a->type.dims), bs = ir::strides_of(b->type.dims), os = ir::strides_of(n.type.dims);
    const Storage& out_s = storage(&n);
    const std::string out = out_s.name;
    // Integer accumulators are unsigned, as in integer reductions (emit_reduce.cpp:
    // no signedness change inside the accumulation cycle), converted at the end.
    const bool integer = !is_float(k) && k != Kind::Bool;
    const std::string U = k == Kind::I64 ? "unsigned long long" : "unsigned";
    const std::string O = integer ? out + "_u" : out;  // what the loops accumulate into
    const std::string count = std::to_string(out_s.count);
    if (integer) {
        if (out_s.array) {
            line(U + " " + O + "[" + count + "];");
            frame_bytes_ += out_s.count * 8;
            line("for (int e = 0; e < " + count + "; ++e) " + O + "[e] = (" + U + ")" + at(acc, "e") + ";");
        } else {
            line(U + " " + O + " = (" + U + ")" + at(acc, "0") + ";");
        }
    } else if (out_s.name == storage(acc).name) {
        // In place: the output is the accumulator's carried slot (find_in_place_mma).
    } else if (out_s.array) {
        line("for (int e = 0; e < " + count + "; ++e) " + out + "[e] = " + at(acc, "e") + ";");
    } else {
        line(out + " = " + at(acc, "0") + ";");
    }
    // f16/bf16 products are exact in float, so f16|bf16 -> f32 runs in float. The
    // buffers are named by operand position; one tile as both operands (fuzz seed
    // 4504) is widened once.
    std::string A = storage(a).name, B = storage(b).name;
    bool a_array = storage(a).array, b_array = storage(b).array;
    if (k == Kind::F32 && in != Kind::F32) {
        for (auto [src, name, suffix] : {std::tuple{a, &A, "_a"}, std::tuple{b, &B, "_b"}}) {
            if (name == &B && b == a) {  // a's widened buffer (the first pass set A)
                B = A;
                break;
            }
            *name = out + suffix;
            line("alignas(64) float " + *name + "[" + std::to_string(src->type.count()) + "];");
            line("for (int e = 0; e < " + std::to_string(src->type.count()) + "; ++e) " + *name + "[e] = (float)" + at(src, "e") + ";");
            frame_bytes_ += src->type.count() * 4;
        }
        a_array = b_array = true;
    }
    std::vector<std::int64_t> out_ext, con_ext;
    for (auto& d : n.type.dims) out_ext.push_back(d.extent);
    for (std::size_t c = 0; c < n_con; ++c) con_ext.push_back(a->type.dims[static_cast<std::size_t>(m[2 + 2 * n_out + 2 * c])].extent);
    std::vector<std::string> out_vars, con_vars;
    for (std::size_t d = 0; d < n_out; ++d) out_vars.push_back("o" + std::to_string(d));
    for (std::size_t c = 0; c < n_con; ++c) con_vars.push_back("c" + std::to_string(c));
    // Element offsets into a and b as linear forms over out_vars ++ con_vars.
    std::vector<std::string> all = out_vars;
    all.insert(all.end(), con_vars.begin(), con_vars.end());
    std::vector<std::int64_t> ac(all.size(), 0), bc(all.size(), 0);
    for (std::size_t d = 0; d < n_out; ++d) {
        if (m[1 + 2 * d] >= 0) ac[d] = as[static_cast<std::size_t>(m[1 + 2 * d])];
        if (m[2 + 2 * d] >= 0) bc[d] = bs[static_cast<std::size_t>(m[2 + 2 * d])];
    }
    for (std::size_t c = 0; c < n_con; ++c) {
        ac[n_out + c] = as[static_cast<std::size_t>(m[2 + 2 * n_out + 2 * c])];
        bc[n_out + c] = bs[static_cast<std::size_t>(m[3 + 2 * n_out + 2 * c])];
    }
    auto open_for = [&](const std::string& v, std::int64_t e, std::int64_t from = 0) {
        open("for (int " + v + " = " + std::to_string(from) + "; " + v + " < " + std::to_string(e) + "; ++" + v + ")");
    };
    const std::size_t outer = n_out == 0 ? 0 : n_out - 1;
    // Columns [0, blocked) of the innermost output dim go through mma_block.
    std::int64_t blocked = 0;
    const bool row_dim = n_out >= 2;
    if (k == Kind::F32 && a_array && b_array && out_s.array && n_out >= 1 && n_con == 1 && bc[n_out - 1] == 1 && ac[n_out - 1] == 0 &&
        (!row_dim || bc[n_out - 2] == 0))
        blocked = out_ext.back() / kWidth * kWidth;
    if (blocked > 0) {
        // Batch dims (all but the last two output dims) as loops; the row dim in
        // blocks of kRows, the last rows in one smaller block.
        const std::size_t batch = row_dim ? n_out - 2 : 0;
        for (std::size_t d = 0; d < batch; ++d) open_for(out_vars[d], out_ext[d]);
        const std::int64_t rows = row_dim ? out_ext[n_out - 2] : 1;
        const std::string i = row_dim ? out_vars[n_out - 2] : "0", j = out_vars.back();
        const std::string a_row = std::to_string(row_dim ? ac[n_out - 2] : 0), a_con = std::to_string(ac[n_out]);
        const std::string b_con = std::to_string(bc[n_out]), o_row = std::to_string(row_dim ? os[n_out - 2] : 0);
        // Offsets of a block's first a, b and output elements: at (batch..., i, j), c = 0.
        std::vector<std::int64_t> a0 = ac, b0 = bc;
        a0.resize(n_out), b0.resize(n_out);
        // Standard precision with reassociation allowed may fuse products with their
        // sums (FMA), as the cuda target does; exact precision never does.
        const bool fused = !opts_.exact && ir::mma_options(n).allow_reassociation;
        auto call = [&](std::int64_t r, std::int64_t v) {
            line(std::string(fused ? "kiln_cpu::mma_block_fused<" : "kiln_cpu::mma_block<") + std::to_string(r) + ", " + std::to_string(v) + ">(" + A + " + " + linear(out_vars, a0) + ", " + a_row + ", " + a_con +
                 ", " + B + " + " + linear(out_vars, b0) + ", " + b_con + ", " + out + " + " + linear(out_vars, os) + ", " + o_row + ", " +
                 std::to_string(con_ext[0]) + ");");
        };
        auto row_blocks = [&](std::int64_t r, std::int64_t from, std::int64_t to) {
            if (row_dim) open("for (int " + i + " = " + std::to_string(from) + "; " + i + " < " + std::to_string(to) + "; " + i + " += " + std::to_string(r) + ")");
            const std::int64_t wide = blocked / (kWidth * kVectors) * (kWidth * kVectors);
            if (wide > 0) {
                open("for (int " + j + " = 0; " + j + " < " + std::to_string(wide) + "; " + j + " += " + std::to_string(kWidth * kVectors) + ")");
                call(r, kVectors);
                close();
            }
            for (std::int64_t c = wide; c < blocked; c += kWidth) {
                open("");
                line("const int " + j + " = " + std::to_string(c) + ";");
                call(r, 1);
                close();
            }
            if (row_dim) close();
        };
        const std::int64_t full_rows = rows / kRows * kRows;
        if (full_rows > 0) row_blocks(kRows, 0, full_rows);
        if (rows > full_rows) row_blocks(rows - full_rows, full_rows, rows);
        for (std::size_t d = 0; d < batch; ++d) close();
    }
    if (blocked < (n_out > 0 ? out_ext.back() : 1)) {
        for (std::size_t d = 0; d < outer; ++d) open_for(out_vars[d], out_ext[d]);
        for (std::size_t c = 0; c < n_con; ++c) open_for(con_vars[c], con_ext[c]);
        if (n_out > 0) open_for(out_vars.back(), out_ext.back(), blocked);
        std::string av = a_array ? A + "[" + linear(all, ac) + "]" : A, bv = b_array ? B + "[" + linear(all, bc) + "]" : B;
        std::string o = out_s.array ? O + "[" + linear(out_vars, os) + "]" : O;
        if (k == Kind::F32 || k == Kind::F64) {
            line(o + " = " + o + " + " + av + " * " + bv + ";");  // two roundings: no FMA (-ffp-contract=off)
        } else if (is_float(k)) {
            line(o + " = " + round_to(k, o + " + " + round_to(k, av + " * " + bv)) + ";");
        } else if (integer) {
            line(o + " += (" + U + ")" + av + " * (" + U + ")" + bv + ";");
        } else {
            line(o + " = " + binary(OpCode::add, k, o, binary(OpCode::mul, k, av, bv)) + ";");
        }
        for (std::size_t d = 0; d < outer + n_con + (n_out > 0 ? 1 : 0); ++d) close();
    }
    if (integer) {
        if (out_s.array) line("for (int e = 0; e < " + count + "; ++e) " + out + "[e] = (" + ctype(k) + ")" + O + "[e];");
        else line(out + " = (" + ctype(k) + ")" + O + ";");
    }
    // A NaN anywhere in an output's chain ends it as NaN; round_f32 would have made
    // it canonical (mma_block does so itself).
    if (k == Kind::F32 && blocked < (n_out > 0 ? out_ext.back() : 1)) {
        if (out_s.array) line("for (int e = 0; e < " + count + "; ++e) " + out + "[e] = kiln_cpu::c32(" + out + "[e]);");
        else line(out + " = kiln_cpu::c32(" + out + ");");
    }
}

}  // namespace kiln::native
