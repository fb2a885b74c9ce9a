// The kernel of attention_bf16 and attention_softcap (attention_bf16.cpp), for the
// benchmark (bench/attention_bench.cpp) to build over its own shapes and kinds.
#pragma once

#include <cstdint>
#include <string>

#include "catalog.h"

namespace kiln::catalog {

struct AttentionConfig {
    std::int64_t block_q = 64, block_k = 64;
    std::int64_t group = 1;  // query heads per key/value head
    bool causal = false;
    float scale = 1.0f;
    float softcap = 0.0f;    // 0: none
};

// q [batch, heads, queries, d], k and v [batch, heads / group, keys, d or dv] ->
// out [batch, heads, queries, dv]; T is bf16 or f16.
template <class T> Kernel make_attention_kernel(const std::string& name, AttentionConfig cfg);

}  // namespace kiln::catalog
