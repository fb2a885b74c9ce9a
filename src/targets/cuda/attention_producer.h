// The FlashAttention kernel's start (emit_attention.h): the shared-memory ring of K
// and V stages after Q with its mbarriers, and the producer warpgroup, one thread of
// which issues every TMA copy, tile after tile. The text ends inside the if/else
// over roles, at the consumers' branch. A CTA runs tiles kiln_tile = blockIdx.x,
// + gridDim.x, ... (one each, or a persistent grid of one CTA per multiprocessor);
// attention_tile writes a tile's coordinates (numbered so that the last query
// blocks, the longest under a causal trip count, come first), the program's key
// limit per query block and the tile's block count, for both roles.
#pragma once

#include <cstdint>
#include <string>

#include "passes/attention_match.h"
#include "targets/cuda/attention_values.h"
#include "targets/cuda/emit.h"

namespace kiln::cu {

inline constexpr int kAttentionRows = 128;  // query rows per CTA: two consumer warpgroups of 64
static_assert(kAttentionRows == passes::kAttentionKernelRows, "the match's row tile is the kernel's");

// Shared memory: Q (D/64 boxes of [128 rows][64 channels], a consumer warpgroup's
// 64 rows the half of each that it alone reads and refills), then per stage K (D/64
// boxes of [BN][64]) and V (DV/64 boxes of [BN][64]), 128-byte swizzle, then the mbarriers.
struct AttentionRing {
    std::int64_t q_bytes = 0, k_bytes = 0, v_bytes = 0, stage_bytes = 0;
};
AttentionRing attention_ring(const AttentionKernel& k);

// Given kiln_tile: the tile's coordinates kiln_g<axis>, kiln_R0 and kiln_rows;
// then (after them) the program's key limit kiln_limit(i) of query block i,
// kiln_lim_min/max over the tile's rows and its block count kiln_blocks.
std::string attention_tile(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k);
std::string attention_tile_limits(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k);

std::string attention_cta_and_producer(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k);

}  // namespace kiln::cu
