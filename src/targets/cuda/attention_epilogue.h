// The FlashAttention kernel's epilogue (emit_attention.h): after the last key block,
// each thread's output elements (two rows, the m64nDV accumulator layout of
// attention_values.h) computed from the program's epilogue ops and stored with
// the program's bounds.
#pragma once

#include <string>

#include "passes/attention_match.h"
#include "targets/cuda/attention_values.h"

namespace kiln::cu {

// How the output leaves: `direct`, each thread its own element pairs (any stores);
// `quads`, pairs packed and transposed inside each quad of lanes into whole 16-byte
// chunks of a row (where attention_output_quads); `staged`, the same chunks through
// the query rows' shared memory (where attention_output_staged), which then stays
// busy until the epilogue is done.
enum class AttentionStores { direct, quads, staged };

// The epilogue's text: per output element pair, the program's values, then each of
// its stores, as `how` says.
std::string attention_epilogue(FragmentValues& values, const passes::AttentionMatch& m, AttentionStores how);
// The quad epilogue in two halves, for an output deferred to the next tile
// (AttentionKernel::defer_output): attention_quad_pack leaves the tile's output in
// kiln_out, packed and transposed (each lane's whole 16-byte chunks: DV / 8 words for
// each of its two rows), at the tile's end; attention_quad_store stores kiln_out, with
// the tile's coordinates in scope, once the next tile's first S = Q K^T is issued.
std::string attention_quad_pack(FragmentValues& values, const passes::AttentionMatch& m);
std::string attention_quad_store(FragmentValues& values, const passes::AttentionMatch& m);
// The stores of values per query row (AttentionMatch::row_stores), with the tile's
// coordinates and its final row maximum and sum in scope ("" when there are none).
std::string attention_row_stores(FragmentValues& values, const passes::AttentionMatch& m);
// Whether the output can leave in 16-byte chunks through registers (one store of
// 16-bit elements, DV a multiple of 32: whole groups of four 8-column chunks).
bool attention_output_quads(const passes::AttentionMatch& m);
// Whether the output fits through shared memory (one store of 16-bit elements, DV <= D).
bool attention_output_staged(const passes::AttentionMatch& m);

}  // namespace kiln::cu
