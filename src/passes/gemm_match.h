// The canonical GEMM, recognised by its dataflow (seed 001): a parallel nest over
// (m-block, n-block) tiles whose k loop carries an f32 accumulator through the mma
// of two tiles loaded from views, followed by an epilogue and stores. (Or i8
// operands into an i32 accumulator, A stored [M, K] and B stored [N, K]: wgmma reads
// 8-bit operands K-major only. Their sums are exact in any order, so neither
// allow_reassociation nor standard precision is needed.) The
// contraction pass records the match; the CUDA target builds a TMA + wgmma kernel
// from it (targets/cuda/emit_gemm.h). Target-neutral: the reasons a kernel is not
// the canonical GEMM are about the program, not the device.
//
// The pattern (every part is checked; anything else keeps the ordinary lowering):
//   parallel(gm, gn) [i, j]                       (either axis order)
//     m0 = i * bm; n0 = j * bn                    (i64 scalars)
//   or parallel(tiles) [pid], a Triton port's 1-D grid:
//     m0 = (pid / G) * bm; n0 = (pid % G) * bn    (or the other way round; G a host
//                                                   scalar, tiles a multiple of it at launch)
//     acc = zeros<f32>([bm, bn])                  or any [bm, bn] f32 start the epilogue
//                                                   could compute (C += A B: a loaded tile,
//                                                   a broadcast bias), added after the sum
//     serial or pipeline (kt) [t] carrying acc:   (or no loop: acc = mma(A[m0, 0], B[0, n0], acc)
//                                                   with the whole k range in one tile)
//       a = A[m0, t * bk] of [bm, bk]             (f16 or bf16; a fallback only of +0, the
//                                                   kernel's fill for out-of-range elements;
//                                                   or ite(iota + origin < limit, load, 0):
//                                                   GemmMask, checked at launch)
//       b = B[t * bk, n0] of [bk, bn]             or B[n0, t * bk] of [bn, bk] (B stored
//                                                   [N, K], as a linear layer's weight)
//       acc = mma(a, b, acc)                      (allow_reassociation), or
//       acc = acc + mma(a, b, 0)                  (Triton's `acc += dot(a, b)`: the same
//                                                   sum reassociated, docs/semantics.md)
//     epilogue: elementwise ops (and broadcasts) over the accumulator and
//       - scalars: constants, parameters, host-evaluable scalars;
//       - vectors loaded along n: V[n0] of [bn] (a bias, a per-column scale);
//       - vectors loaded along m: V[m0] of [bm] (a per-row scale);
//       - tiles loaded at the block: R[m0, n0] of [bm, bn] (a residual);
//     C[m0, n0].store(...) of [bm, bn], one or more (e.g. pre- and post-activation),
//       or Ct[n0, m0].store(...) of [bn, m] (an output stored transposed: the store
//       takes the tile's axes in the view's order, a permute of the epilogue's value)
// Batched: a parallel nest of 3 to 5 axes, two of them the m- and n-blocks as above
// and the others batch axes (a batch, a head); the views of any rank from 2 to 5,
// each tile [1.., bm, bk] (and so on) read through a reshape dropping its unit dims,
// the outputs written back through one adding them, every leading coordinate a
// scalar of the batch indices and host scalars (b, b / G for a shared K/V head, 0).
// The kernel's work units are then (batch, tile); each view is a tensor map of its
// own rank.
// Because reassociation is allowed and every epilogue value at output (r, c)
// depends only on the inputs at (r, c), (c), (r), the kernel may tile differently
// from the program: it computes every element the program's tiles cover, C[r, c]
// for r < gm * bm and c < gn * bn, as the sum over k < kt * bk of A[r, k] B[k, c]
// with out-of-range operands read as zero, then the epilogue at (r, c).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "passes/dataflow_match.h"

namespace kiln::passes {

// What an epilogue value varies with, over the output tile.
enum class EpilogueVaries { scalar, rows, cols, tile };

// Where an epilogue value comes from besides its operands: computed from them, or a
// position the kernel derives from the output's row r or column c (the block's
// origin m0 = r - r % bm, or iota over the block, r % bm; likewise for c and bn).
enum class EpiloguePosition { none, origin, iota };

struct EpilogueValue {
    const ir::Node* node = nullptr;
    EpilogueVaries varies = EpilogueVaries::scalar;
    EpiloguePosition position = EpiloguePosition::none;
};

// A mask on a GEMM operand's load that hides only elements the view's zero fill
// hides already, where its limit is at least the view's extent along the masked dim
// (Triton's `tl.load(p, mask=offs_k < K, other=0)`, written ite(iota(k) + k0 < K,
// A[m0, k0], 0)). The limit is a host scalar: the launch checks it against the view
// (targets/cuda/launch_args.cpp: gemm_problem) and runs the ordinary kernel, which
// computes the mask as written, where it hides more.
struct GemmMask {
    int param = -1;                   // the view the load reads
    int dim = 0;                      // elements whose index along it is >= limit are masked
    const ir::Node* limit = nullptr;  // a host-evaluable scalar
};
// The matched nodes of one program.
struct GemmMatch {
    const ir::Node* grid = nullptr;   // the parallel nest over (m-block, n-block)
    const ir::Node* loop = nullptr;   // the k loop (null: none, the whole k range in one tile)
    const ir::Node* result = nullptr; // its final accumulator (the mma itself with no k loop)
    const ir::Node* mma = nullptr;
    const ir::Node* load_a = nullptr;
    const ir::Node* load_b = nullptr;
    bool a_mmajor = false;            // A is stored [K, M] and loaded [bk, bm]
    bool b_kmajor = false;            // B is stored [N, K] and loaded [bn, bk]
    // The accumulator's start where it is not zeros: an epilogue value (it is in
    // `epilogue`), added to the sum from zero (null: zeros).
    const ir::Node* init = nullptr;
    // The epilogue's values in program order, from the loop's result to the stored
    // values (loads, broadcasts, elementwise ops); scalars it reads that are not in
    // this list are host-evaluable (constants, parameters, their arithmetic).
    std::vector<EpilogueValue> epilogue;
    std::vector<const ir::Node*> stores;     // each C[m0, n0] of [bm, bn], or Ct[n0, m0] of [bn, bm]
    // Per store: whether it is Ct[n0, m0] of the permuted value (its value's operand
    // is then the [bm, bn] epilogue value stored).
    std::vector<bool> stores_transposed;
    std::int64_t bm = 0, bn = 0, bk = 0;     // the program's tile
    int m_axis = 0, n_axis = 1;              // the grid axes of the m- and n-blocks
    std::vector<int> batch_axes;             // the grid's other axes, in order (empty: no batch)
    // A 1-D grid over the tiles: pid's m-block is pid / tiles_per_row and its n-block
    // pid % tiles_per_row (flat_m_by_div), or the other way round (null: a 2-D grid).
    const ir::Node* tiles_per_row = nullptr;
    bool flat_m_by_div = true;
    int flat_split = -1;  // the position of pid / G (or pid % G: the m-block's) in the nest's body
    // Any other order over a 1-D grid (tiles_per_row null): the positions in the nest's
    // body of the m- and n-block indices, integer arithmetic of pid that the launch
    // checks visits each tile once (-1: none).
    int tile_map_m = -1, tile_map_n = -1;
    bool tile_map() const { return tile_map_m >= 0; }
    int k_loop = -1;                         // the k loop's position in the parallel nest's body (-1: no k loop)
    const ir::Node* m0 = nullptr;            // the block origins (scalars of the nest)
    const ir::Node* n0 = nullptr;
    // The masks on A's and B's loads (GemmMask): nodes the kernel does not compute.
    std::vector<GemmMask> masks;
    // The epilogue only stores the accumulator (possibly converted).
    bool plain_epilogue() const;
};

// The masks of the mma's two operands (each a load, or a load under masks of that form).
std::vector<GemmMask> gemm_operand_masks(const ir::Node& mma);

// The match, or nullopt with `why` saying which part differs; with `live`
// (passes/dce.h), nodes outside it are passed over.
std::optional<GemmMatch> match_gemm(const ir::Program& p, std::string* why, const LiveNodes* live = nullptr);

}  // namespace kiln::passes
