// The Hopper FlashAttention lowering: for a program the contraction pass matched
// (passes/attention_match.h), a second kernel in the module, written from the
// program's own ops:
//  - a producer warpgroup: one thread issues TMA copies of the CTA's 128 query
//    rows once, then of each key and value block into a ring of shared-memory
//    stages (128-byte swizzle), each with "full" and "empty" mbarriers;
//  - two consumer warpgroups of 64 query rows each: S = Q K^T on wgmma from shared
//    memory into f32 registers; the program's score ops, masks and online-softmax
//    update applied to the accumulator fragments (row statistics over the four
//    lanes that share a row); the probabilities converted in registers to the A
//    operand of O += P V (wgmma with A from registers), O rescaled in registers;
//  - the program's epilogue per output element, stored with its bounds.
// Key blocks are the program's; query rows are regrouped 128 per CTA (the match's
// comment says why that computes the same function), with the program's query
// block, its trip count and its row indices derived per row. CTAs are numbered so
// that the longest (causal: the last query blocks) start first.
#pragma once

#include <string>

#include "passes/attention_match.h"
#include "targets/cuda/emit.h"

namespace kiln::cu {

class Emitter;

// Appends the attention kernel to the translation unit's text and describes it in `info`.
std::string emit_attention_kernel(Emitter& E, const passes::AttentionMatch& m, const std::string& entry, AttentionKernel& info);

}  // namespace kiln::cu
