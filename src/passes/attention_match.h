// FlashAttention, recognised by its dataflow: a parallel nest whose instances each
// own a block of query rows, and inside it a 1-D loop over key blocks that carries
// an online softmax (a running row maximum, a running denominator and an
// unnormalised output) through two contractions. The contraction pass records the
// match; the CUDA target builds a Hopper kernel from it (TMA ring, wgmma for both
// products, the softmax on the accumulator fragments: targets/cuda/emit_attention.h).
// Target-neutral: the reasons a kernel is not matched are about the program.
//
// The pattern (every part is checked; anything else keeps the ordinary lowering):
//   parallel(..., row blocks, ...) [..., i, ...]      any number of axes; one of them
//                                                      (i) numbers blocks of bq query rows
//     q0 = i * bq; other scalars of the nest indices (a batch, a head, a KV head h / g)
//     Q = q[..., q0, 0] of [1.., bq, d]               f16/bf16, rank 2 to 5, unit leading dims
//     m = full(c), l = full(0), acc = full(0)          f32 [1.., bq] [1.., bq] [1.., bq, dv]
//     serial or pipeline (T) [t] carrying (m, l, acc) in any order:
//       K = k[..., t * bk, 0] of [1.., bk, d]; V = v[..., t * bk, 0] of [1.., bk, dv]
//                                                      (or at off + t * bk: key_offset)
//       S = mma(Q, K, 0)                               contracting d (K is read K-major)
//       X = score(S, t, rows, columns, scalars)        any elementwise function ("score
//                                                      mod": scale, masks from iota, softcap),
//                                                      also of tiles loaded over the rows and
//                                                      keys at the blocks' origins (a bias)
//       m' = max(m, reduce_max(X, keys))
//       alpha = exp(m - m')                            or exp(s (m - m')), s > 0 a constant
//       P = exp(X - m')  or  ite(c, exp(X - m'), 0)   c: any boolean mask; the same s as alpha's
//                                                      (values written twice are matched as one)
//       l' = l * alpha + reduce_add(P, keys)
//       acc' = mma(P or cast(P), V, acc * alpha)       contracting the keys; or
//       acc' = acc * alpha + mma(P or cast(P), V, 0)   (the same sum reassociated)
//     (values nothing stores or yields are passed over, with the program's liveness)
//     epilogue: elementwise ops of (acc, l, m) and scalars, cast, stored to
//       o[..., q0, 0] of [1.., bq, dv] (one or more stores)
// Why the target may block differently from the program. Rows are independent
// (every op is elementwise along them, or reduces within a row), so the kernel may
// group rows as it likes if it computes, per row r, what depends on the program's
// row block: i = r / bq and iota over the rows = r % bq. Along the keys the carried
// state is the online softmax: for any split of the keys into blocks, in exact
// arithmetic, the loop ends with m = max(c, max_j X_j), l = sum_j w_j and acc =
// sum_j w_j V_j with w_j = [c_j] exp(X_j - m), because each step rescales by
// exp(m - m'). So the kernel may take other key blocks provided it sees, for row r,
// exactly the keys the program does (key j < T(i) * bk; the loads' zero fill past
// the views' ends reproduced by TMA's) and computes X_j from j itself (t = j / bk,
// iota over the keys = j % bk) -- with one exception: where m starts at -inf, a
// first block whose keys are all masked makes exp(m - m') = exp(-inf - -inf) NaN, so
// whether a row's output is NaN depends on the blocking (a mask hiding the leading
// keys). Where t reaches nothing but the key and value loads and values over the keys
// (the masks of causal and tail keys) and m starts finite (key_block_free), the Hopper
// kernel may take key blocks of its own size (attention_kernel_key_block, where the
// program's is not one it takes) and writes t and the key iota that way; elsewhere its
// key block is the program's.
// Reassociation is allowed (both mma's say so) and
// precision is standard; exact mode keeps the ordinary lowering.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "passes/dataflow_match.h"

namespace kiln::passes {

struct AttentionMatch {
    const ir::Node* grid = nullptr;
    int row_axis = 0;                  // the grid axis of the query-row blocks
    const ir::Node* loop = nullptr;    // the loop over key blocks
    int loop_position = -1;            // its position in the nest's body
    int slot_max = 0, slot_sum = 0, slot_acc = 0;  // carried slots of m, l, acc
    const ir::Node *init_max = nullptr, *init_sum = nullptr;  // the full() inits (acc's is zero)
    const ir::Node *load_q = nullptr, *load_k = nullptr, *load_v = nullptr;
    const ir::Node *score_mma = nullptr, *output_mma = nullptr;
    const ir::Node *reduce_max = nullptr, *reduce_sum = nullptr;  // over the keys
    const ir::Node *next_max = nullptr, *alpha = nullptr, *next_sum = nullptr;
    std::vector<const ir::Node*> alphas;   // alpha and the nodes computing the same value (the rescale written twice)
    const ir::Node* scaled_acc = nullptr;  // acc * alpha, the second mma's accumulator operand
    const ir::Node* weights = nullptr;     // P: reduce_sum's operand (the second mma reads it, or its cast)
    // The score product's query operand where the program applies elementwise ops to
    // the query tile alone before the loop (`q * scale`; null: the load itself): the
    // kernel applies them to the tile in shared memory once it has arrived.
    const ir::Node* q_prologue = nullptr;
    std::vector<const ir::Node*> stores;   // into o at (..., q0, 0)
    // Loads of one element the same for the whole query tile, before the loop or in it (a
    // head's ALiBi slope, a batch's key length): the kernel reads them where they are used.
    std::vector<const ir::Node*> tile_loads;
    // Loads in the loop of a tile over the query rows and/or the keys at the blocks'
    // origins (an additive bias or a mask matrix [.., rows, keys], a key padding mask
    // [.., keys]): the query tile's row origin along the rows, t * bk along the keys,
    // every other dim a unit one at an index of the nest. The kernel reads each element
    // where the scores use it, at its row's and its key's absolute index.
    std::vector<const ir::Node*> score_loads;
    // The key tiles' origin t * bk plus an offset of the nest's indices (a sliding
    // window's first key block: off + t * bk, or (s + t) * bk): key_offset *
    // key_offset_scale (null: none). Where it moves with the query block, the query
    // block is a whole number of the kernel's row tiles (attention_kernel_rows).
    const ir::Node* key_offset = nullptr;
    std::int64_t key_offset_scale = 1;
    // The dim of each view that holds the rows (Q, the stores) or the keys (K, V): the
    // second-to-last in [batch, head, sequence, channel], the second in the
    // sequence-major [batch, sequence, head, channel]. The channels are always last.
    // (A store's row dim: tile_dim of its value along axis_rows.)
    int q_row_dim = 0, k_row_dim = 0, v_row_dim = 0;
    // K stored transposed, [.., channels, keys] (k_row_dim its last dim): the kernel reads
    // its boxes of 64 keys and wgmma takes it N-major.
    bool k_transposed = false;
    // Stores of a value per query row (a log-sum-exp m + log(l), the row statistics for
    // a backward pass): at the query tile's row origin, every other dim of the stored
    // tile a unit one.
    std::vector<const ir::Node*> row_stores;
    std::vector<const ir::Node*> epilogue; // the nest's nodes after the loop the stores read, in order
    std::int64_t bq = 0, bk = 0, d = 0, dv = 0;
    // The key block index t reaches only the key and value loads and values over the
    // keys, and the row maximum starts finite: a kernel may block the keys as it likes
    // (the comment above).
    bool key_block_free = false;
    // With key_block_free where the row maximum starts at -inf (LowerOptions::
    // attention_reblock_minus_infinity, on by default): the kernel's key blocks then hold whole program
    // blocks, and a row whose program's first block has every score at -inf (all its keys
    // masked) must end with its row sum and accumulator NaN, as the program's do.
    bool first_block_nan = false;
    Kind in = Kind::BF16;
    int axis_rows = 0, axis_keys = 0, axis_channels = 0, axis_values = 0;  // Dim::axis ids
};

// The query rows of the Hopper kernel's row tile (targets/cuda/attention_producer.h).
inline constexpr std::int64_t kAttentionKernelRows = 128;

// The dim of a tile (a load's, a stored value's) along `axis` where it is not a unit
// one (an attention view's rows or keys), or -1.
int tile_dim(const ir::Node* n, int axis);

// The head dimension the Hopper kernel computes with for a program's d (a multiple
// of 8 up to 256): d rounded up to whole 64-channel boxes (TMA's 128-byte swizzle
// box, wgmma's k-steps of 16 for Q K^T). The channels past d are read as zeros (TMA
// fills what lies past a view's end; the launch runs the kernel only where the query
// and key views end at d) and add nothing to Q K^T; the value channels past dv give
// output columns that are never stored. Heads of 32, 80, 96 or 160 channels take the
// kernel at the cost of the padding's products.
std::int64_t attention_kernel_head_dim(std::int64_t d);

// The key block of the Hopper kernel (targets/cuda/emit_attention.h) where the
// program leaves it free (d and dv: the program's, padded by attention_kernel_head_dim): 128 keys while the value channels' accumulator leaves
// registers for S (dv <= 128) and two stages of K and V fit in shared memory with Q
// (d + dv <= 256), else 64.
int attention_kernel_key_block(std::int64_t d, std::int64_t dv);
// Whether the Hopper kernel takes a program's key block of bk keys as its own: 64, or
// 128 where attention_kernel_key_block is.
bool attention_kernel_takes_key_block(std::int64_t bk, std::int64_t d, std::int64_t dv);

// The match, or nullopt with `why` saying which part differs.
// `reblock_minus_infinity`: LowerOptions::attention_reblock_minus_infinity.
std::optional<AttentionMatch> match_attention(const ir::Program& p, std::string* why, bool reblock_minus_infinity = true,
                                             const LiveNodes* live = nullptr);

}  // namespace kiln::passes
