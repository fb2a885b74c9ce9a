// The attention and causal_attention entries share one kernel builder and one case
// list: FlashAttention-2 over row-major [n, d] views, with or without the causal mask.
#pragma once

#include "catalog.h"

namespace kiln::catalog {

// q [n, d], k [m, d], v [m, dv] -> out [n, dv]; `block` query rows per program and
// `block` keys per step of the online softmax (any head dimension, any n and m).
Kernel make_attention_kernel(std::int64_t block, bool causal);
std::vector<Case> attention_cases(Size size, std::uint64_t seed, bool causal);

}  // namespace kiln::catalog
