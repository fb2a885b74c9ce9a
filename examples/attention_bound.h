// The error bound of the online-softmax attention kernels (attention,
// causal_attention, flash_attention): their arithmetic restated on Bounded values
// (error_bound.h), block by block as the kernels run it.
#pragma once

#include "error_bound.h"

namespace kiln::catalog {

struct AttentionShape {
    std::int64_t queries, keys, channels, value_channels;
    std::int64_t block_q, block_k;  // query rows per program, keys per step
    bool causal = false;            // query i sees keys j <= i
    bool skips_masked_blocks = false;  // the causal kernel stops after the diagonal block (attention.cpp)
};

// softmax(q k^T * scale) v for one head, q [queries, channels], k [keys, channels],
// v [keys, value_channels], row-major; `scale` is the f32 scale with its error
// against the reference's. Returns [queries, value_channels].
std::vector<Bounded> attention_bound(const double* q, const double* k, const double* v, const AttentionShape& s, Bounded scale);

}  // namespace kiln::catalog
