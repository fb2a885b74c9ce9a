// mma: out[o] = acc[o], then for each contraction point in row-major order
// out[o] = round(out[o] + round(a * b)).
//   - ordered: each output is one work item folding its contraction in that
//     order (both lowerings; bit-exact everywhere);
//   - simdgroup blocks (passes/metal_lowering.h): a 2-D product (b as [k, n], or
//     as [n, k] loaded transposed) whose extents are multiples of 8 runs as 8x8 blocks, C_ij = acc_ij, then for each k-block
//     C_ij = A_ik B_kj + C_ij with simdgroup_multiply_accumulate. Chained in k
//     order, the blocks see the contraction points in the contract's order, which
//     is what kiln's shim computes; a device's matrix unit fuses and reorders
//     within a block (the harness's tolerance). f16 blocks with an f16
//     accumulator take simdgroup_half8x8 through half staging arrays; f16 and
//     bf16 operands into f32 are already exact floats and take simdgroup_float8x8.
#include "passes/metal_lowering.h"
#include "ir/tile_geometry.h"
#include "targets/metal/emit_expr.h"
#include "targets/metal/emitter.h"

namespace kiln::mtl {

void Emitter::emit_mma(const Node& n) {
    if (lowered_.contractions.of(n).lowering == passes::MmaLowering::simdgroup) return mma_blocks(n);
    mma_ordered(n);
}

void Emitter::mma_ordered(const Node& n) {
    const Node *a = n.operands[0], *b = n.operands[1], *acc = n.operands[2];
    auto m = ir::dim_map(n);
    const auto n_out = static_cast<std::size_t>(m[0]);
    const auto n_con = static_cast<std::size_t>(m[1 + 2 * n_out]);
    const Kind k = n.type.kind;
    auto as = ir::strides_of(a->type.dims), bs = ir::strides_of(b->type.dims);
    for_each_element(n, [&](const std::string& e) {
        std::string abase, bbase;
        for (std::size_t d = 0; d < n_out; ++d) {
            const std::string c = coordinate(e, n.type.dims, d);
            if (m[1 + 2 * d] >= 0) abase += " + " + c + " * " + std::to_string(as[static_cast<std::size_t>(m[1 + 2 * d])]);
            if (m[2 + 2 * d] >= 0) bbase += " + " + c + " * " + std::to_string(bs[static_cast<std::size_t>(m[2 + 2 * d])]);
        }
        line("const int abase = 0" + abase + ", bbase = 0" + bbase + ";");
        line(mtype(k) + " sum = " + read(acc, e) + ";");
        std::string ao = "abase", bo = "bbase";
        for (std::size_t c = 0; c < n_con; ++c) {
            const std::string v = "k" + std::to_string(c);
            const auto pa = static_cast<std::size_t>(m[2 + 2 * n_out + 2 * c]), pb = static_cast<std::size_t>(m[3 + 2 * n_out + 2 * c]);
            open("for (int " + v + " = 0; " + v + " < " + std::to_string(a->type.dims[pa].extent) + "; ++" + v + ")");
            ao += " + " + v + " * " + std::to_string(as[pa]);
            bo += " + " + v + " * " + std::to_string(bs[pb]);
        }
        line("sum = " + mma_step(k, "sum", mma_product(k, a->type.kind, read(a, ao), read(b, bo))) + ";");
        for (std::size_t c = 0; c < n_con; ++c) close();
        line(write(&n, e, "sum"));
    });
}

void Emitter::mma_blocks(const Node& n) {
    const Node *a = n.operands[0], *b = n.operands[1], *acc = n.operands[2];
    const bool bt = ir::mma_dims(n).is_matmul_bt();  // b is [N, K]: its blocks load transposed
    const std::int64_t M = a->type.dims[0].extent, K = a->type.dims[1].extent, N = b->type.dims[bt ? 0 : 1].extent;
    const bool half = passes::metal_half_blocks(n);
    const std::string type = half ? "simdgroup_half8x8" : "simdgroup_float8x8";
    std::string A = storage(a).name, B = storage(b).name, C = storage(acc).name, O = storage(&n).name;
    for (const Node* v : {a, b, acc})
        if (storage(v).space != Space::threadgroup) internal_fail("metal emitter: an operand of a simdgroup mma is not in threadgroup memory");
    if (half) {
        // Exact f16 values (held in float) to half bits, and the result back.
        auto stage = [&](const Node* v, const std::string& name) {
            threadgroup_.push_back("threadgroup half " + name + "[" + std::to_string(v->type.count()) + "];");
            threadgroup_bytes_ += 2 * v->type.count();
            for_each(v->type.count(), false, [&](const std::string& e) { line(name + "[" + e + "] = as_type<half>(kiln_f16_bits(" + read(v, e) + "));"); });
            return name;
        };
        A = stage(a, "kiln_h" + id(&n) + "a");
        B = a == b ? A : stage(b, "kiln_h" + id(&n) + "b");
        C = stage(acc, "kiln_h" + id(&n) + "c");
        O = C;
    }
    const std::string Ks = std::to_string(K), Ns = std::to_string(N);
    open("");
    line(type + " ma, mb, mc;");
    open("for (int bi = 0; bi < " + std::to_string(M / 8) + "; ++bi)");
    open("for (int bj = 0; bj < " + std::to_string(N / 8) + "; ++bj)");
    line("simdgroup_load(mc, " + C + " + bi * " + std::to_string(8 * N) + " + bj * 8, " + Ns + ");");
    open("for (int bk = 0; bk < " + std::to_string(K / 8) + "; ++bk)");
    line("simdgroup_load(ma, " + A + " + bi * " + std::to_string(8 * K) + " + bk * 8, " + Ks + ");");
    if (bt) line("simdgroup_load(mb, " + B + " + bj * " + std::to_string(8 * K) + " + bk * 8, " + Ks + ", ulong2(0, 0), true);");
    else line("simdgroup_load(mb, " + B + " + bk * " + std::to_string(8 * N) + " + bj * 8, " + Ns + ");");
    line("simdgroup_multiply_accumulate(mc, ma, mb, mc);");
    close();
    line("simdgroup_store(mc, " + O + " + bi * " + std::to_string(8 * N) + " + bj * 8, " + Ns + ");");
    close();
    close();
    close();
    barrier();
    if (half) for_each_element(n, [&](const std::string& e) { line(write(&n, e, "kiln_f16_value(as_type<ushort>(" + C + "[" + e + "]))")); });
}

}  // namespace kiln::mtl
