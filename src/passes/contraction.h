// Contraction matching: decides, for every mma, how the target computes it, and
// records why a faster lowering was not taken (shown by `kiln plan`). Also
// recognises the canonical GEMM (gemm_match.h), which the CUDA target turns into
// a TMA + wgmma kernel.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "passes/attention_match.h"
#include "passes/gemm_match.h"

namespace kiln::passes {

struct Lowered;

enum class MmaLowering {
    ordered,     // the contract's order: each output is acc, then + round(a * b) per contraction point
    mma_sync,    // cuda: mma.sync tensor cores over fragments staged in shared memory
    wgmma_gemm,  // cuda sm_90a: the canonical GEMM's TMA + wgmma kernel (mma.sync in the fallback kernel)
    wgmma_attention,  // cuda sm_90a: one of FlashAttention's two products in its TMA + wgmma kernel
    simdgroup,   // metal: 8x8 blocks on simdgroup matrices (simdgroup_multiply_accumulate)
};

// The tensor-core instruction of an mma.sync lowering.
enum class TensorCoreShape { none, f16_m16n8k16, bf16_m16n8k16, tf32_m16n8k8, s8_m16n8k32 };

struct MmaPlan {
    MmaLowering lowering = MmaLowering::ordered;
    TensorCoreShape shape = TensorCoreShape::none;  // mma_sync, and the fallback of wgmma_gemm
    std::string why;  // why no faster lowering ("" when this is the fastest kiln has)
    std::string describe() const;
};

// The metal target's lowering of the whole kernel (passes/metal_lowering.h):
// one program instance per thread, or per 32-lane simdgroup with its tiles in
// threadgroup memory and its 8x8-block contractions on simdgroup matrices.
struct MetalLowering {
    bool simdgroup = false;
    std::string why;                    // per-thread: why not simdgroup
    std::int64_t threadgroup_bytes = 0; // simdgroup: the tiles' threadgroup memory
    std::string describe() const;
};

struct Contractions {
    std::unordered_map<const ir::Node*, MmaPlan> mma;  // one per mma node
    std::optional<GemmMatch> gemm;                      // the program is the canonical GEMM (cuda sm_90a)
    std::string gemm_why;                               // else why not (empty without an mma)
    std::optional<AttentionMatch> attention;            // the program is FlashAttention (cuda sm_90a)
    std::string attention_why;                          // else why not (empty with fewer than two mma)
    std::optional<MetalLowering> metal;                 // metal: the kernel's lowering
    const MmaPlan& of(const ir::Node& n) const;
};

void contraction(Lowered& l);

// One line per mma, in program order: "mma at gemm.cpp:40: <plan>" (for plans).
std::vector<std::string> contraction_report(const Lowered& l);

}  // namespace kiln::passes
