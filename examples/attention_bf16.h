// The kernel of attention_bf16 and attention_softcap (attention_bf16.cpp), for the
// benchmark (bench/attention_bench.cpp) to build over its own shapes and kinds.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "catalog.h"

namespace kiln::catalog {

struct AttentionConfig {
    std::int64_t block_q = 64, block_k = 64;
    std::int64_t group = 1;  // query heads per key/value head
    bool causal = false;
    float scale = 1.0f;
    float softcap = 0.0f;    // 0: none
    // Where the running row maximum starts: -inf as most kernels write it, or a finite
    // floor (-1e30 in older FlashAttention code), with which the Hopper kernel may take
    // key blocks of its own size (passes/attention_match.h: key_block_free).
    float initial_max = -std::numeric_limits<float>::infinity();
};

// q [batch, heads, queries, d], k and v [batch, heads / group, keys, d or dv] ->
// out [batch, heads, queries, dv]; T is bf16 or f16.
template <class T> Kernel make_attention_kernel(const std::string& name, AttentionConfig cfg);

}  // namespace kiln::catalog
