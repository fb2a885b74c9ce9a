// The FlashAttention kernel's start (emit_attention.h): the CTA's coordinates
// (numbered so that the last query blocks, the longest under a causal trip count,
// start first), the program's key limit per query block and the CTA's block count,
// the shared-memory ring of K and V stages after Q with its mbarriers, and the
// producer warpgroup, one thread of which issues every TMA copy. The text ends
// inside the if/else over roles, at the consumers' branch.
#pragma once

#include <cstdint>
#include <string>

#include "passes/attention_match.h"
#include "targets/cuda/attention_values.h"
#include "targets/cuda/emit.h"

namespace kiln::cu {

inline constexpr int kAttentionRows = 128;  // query rows per CTA: two consumer warpgroups of 64

// Shared memory: Q (D/64 boxes of [128 rows][64 channels]), then per stage K (D/64
// boxes of [BN][64]) and V (DV/64 boxes of [BN][64]), 128-byte swizzle, then the mbarriers.
struct AttentionRing {
    std::int64_t q_bytes = 0, k_bytes = 0, v_bytes = 0, stage_bytes = 0;
};
AttentionRing attention_ring(const passes::AttentionMatch& m, const AttentionKernel& k);

std::string attention_cta_and_producer(FragmentValues& values, const passes::AttentionMatch& m, const AttentionKernel& k);

}  // namespace kiln::cu
