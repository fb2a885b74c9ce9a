// The canonical GEMM, recognised by its dataflow (seed 001): a parallel nest over
// (m-block, n-block) tiles whose k loop carries an f32 accumulator through mma of
// two tiles loaded from views, followed by an elementwise epilogue and a store.
// The contraction pass records the match; the CUDA target builds a TMA + wgmma
// kernel from it (targets/cuda/emit_gemm.h). Target-neutral: the reasons a kernel
// is not the canonical GEMM are about the program, not the device.
//
// The pattern (every part is checked; anything else keeps the ordinary lowering):
//   parallel(gm, gn) [i, j]:
//     m0 = i * bm; n0 = j * bn                    (i64 scalars)
//     acc = zeros<f32>([bm, bn])
//     serial or pipeline (kt) [t] carrying acc:
//       k0 = t * bk
//       a = A[m0, k0] of [bm, bk]; b = B[k0, n0] of [bk, bn]   (f16 or bf16, no fallback)
//       acc = mma(a, b, acc)                      (allow_reassociation, standard precision)
//     C[m0, n0].store(epilogue(acc))              (elementwise ops on acc with constant or
//                                                   parameter scalars; C f32, f16 or bf16)
// Because reassociation is allowed and the epilogue is elementwise, the kernel may
// tile differently from the program: it computes every element the program's
// tiles cover, C[r, c] for r < gm * bm and c < gn * bn, as the sum over
// k < kt * bk of A[r, k] B[k, c] with out-of-range operands read as zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

// The matched nodes of one program.
struct GemmMatch {
    const ir::Node* grid = nullptr;   // the parallel nest over (m-block, n-block)
    const ir::Node* loop = nullptr;   // the k loop
    const ir::Node* result = nullptr; // its final accumulator
    const ir::Node* mma = nullptr;
    const ir::Node* load_a = nullptr;
    const ir::Node* load_b = nullptr;
    const ir::Node* store = nullptr;
    std::vector<const ir::Node*> epilogue;  // elementwise ops from the loop's result to the stored value
    std::int64_t bm = 0, bn = 0, bk = 0;    // the program's tile
    int m_axis = 0;                         // the grid axis of the m-blocks (the other: n-blocks)
    int k_loop = -1;                        // the k loop's position in the parallel nest's body
};

// The match, or nullopt with `why` saying which part differs.
std::optional<GemmMatch> match_gemm(const ir::Program& p, std::string* why);

}  // namespace kiln::passes
