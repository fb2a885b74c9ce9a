// The FlashAttention kernel's epilogue (emit_attention.h): after the last key block,
// each thread's output elements (two rows, the m64nDV accumulator layout of
// attention_values.h) computed from the program's epilogue ops and stored with
// the program's bounds.
#pragma once

#include <string>

#include "passes/attention_match.h"
#include "targets/cuda/attention_values.h"

namespace kiln::cu {

// The epilogue's text: per output element pair, the program's values, then each of
// its stores; `staged` (where attention_output_staged), through shared memory.
std::string attention_epilogue(FragmentValues& values, const passes::AttentionMatch& m, bool staged);
// Whether the output goes through shared memory (one store of 16-bit elements, DV <= D).
bool attention_output_staged(const passes::AttentionMatch& m);

}  // namespace kiln::cu
