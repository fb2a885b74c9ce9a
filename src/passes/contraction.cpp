#include "passes/contraction.h"

#include "ir/attrs.h"
#include "passes/lowered.h"
#include "passes/metal_lowering.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

std::string_view shape_name(TensorCoreShape s) {
    switch (s) {
        case TensorCoreShape::none: return "";
        case TensorCoreShape::f16_m16n8k16: return "mma.sync m16n8k16 f16 -> f32";
        case TensorCoreShape::bf16_m16n8k16: return "mma.sync m16n8k16 bf16 -> f32";
        case TensorCoreShape::tf32_m16n8k8: return "mma.sync m16n8k8 tf32 -> f32";
        case TensorCoreShape::s8_m16n8k32: return "mma.sync m16n8k32 s8 -> s32 (exact: integer sums wrap at 32 bits in any order)";
    }
    return "";
}

// The mma.sync instruction for this mma on cuda, or none with the reason.
//  - i8 x i8 -> i32 (m16n8k32 .s8, without .satfinite): the products of two i8 fit
//    in i32 and are exact, as the contract forms them; PTX wraps the s32
//    accumulation on overflow, and the contract wraps each sum at 32 bits. Sums
//    modulo 2^32 do not depend on their order, so the hardware's order gives the
//    ordered fold's bits: allowed in exact mode and without allow_reassociation.
//  - f16/bf16 -> f32 (m16n8k16), and f32 -> f32 with allow_tf32 (m16n8k8 .tf32):
//    the hardware sums in its own order and precision, so only in standard
//    precision with allow_reassociation.
TensorCoreShape tensor_core_shape(const Node& n, const LowerOptions& o, std::string& why) {
    const Node *a = n.operands[0], *b = n.operands[1];
    if (o.sm < 80) return why = "tensor cores need sm_80 or later", TensorCoreShape::none;
    ir::MmaDims m = ir::mma_dims(n);
    if (n.type.rank() != 2 || a->type.rank() != 2 || b->type.rank() != 2 || !m.is_matmul())
        return why = "not a 2-D product a[m, k] b[k, n] (tensor cores take that form only)", TensorCoreShape::none;
    Kind in = a->type.kind;
    if (in == Kind::I8 && n.type.kind == Kind::I32) return TensorCoreShape::s8_m16n8k32;
    if (o.exact()) return why = "exact precision keeps the contract's order", TensorCoreShape::none;
    if (!ir::mma_options(n).allow_reassociation) return why = "the mma does not allow reassociation", TensorCoreShape::none;
    if (n.type.kind != Kind::F32) return why = "the accumulator is " + std::string(kind_name(n.type.kind)) + ", not f32", TensorCoreShape::none;
    if (in == Kind::F16) return TensorCoreShape::f16_m16n8k16;
    if (in == Kind::BF16) return TensorCoreShape::bf16_m16n8k16;
    if (in == Kind::F32 && ir::mma_options(n).allow_tf32) return TensorCoreShape::tf32_m16n8k8;
    if (in == Kind::F32) return why = "f32 operands without allow_tf32 (input precision is never reduced silently)", TensorCoreShape::none;
    return why = std::string(kind_name(in)) + " operands have no tensor-core instruction", TensorCoreShape::none;
}

// Whether the cuda target can build a TMA + wgmma kernel (the GEMM's, attention's).
// `integer`: an i8 x i8 -> i32 product, whose sums modulo 2^32 are the ordered
// fold's in any order, so exact precision takes the kernel too.
bool wgmma_ready(const LowerOptions& o, std::string& why, bool integer = false) {
    if (o.exact() && !integer) return why = "exact precision keeps the contract's order", false;
    if (o.sm != 90) return why = "wgmma needs sm_90a", false;
    return true;
}

}  // namespace

std::string MmaPlan::describe() const {
    std::string s;
    switch (lowering) {
        case MmaLowering::ordered: s = "ordered (the contract's order)"; break;
        case MmaLowering::mma_sync: s = "tensor cores: " + std::string(shape_name(shape)); break;
        case MmaLowering::wgmma_gemm:
            // The ordinary kernel beside it computes the mma on tensor cores where it
            // can (a[m, k] b[k, n]); a weight stored [N, K] it computes one output a thread.
            s = "canonical GEMM: TMA + wgmma kernel (" +
                (shape == TensorCoreShape::none ? std::string("the ordinary kernel, without tensor cores,")
                                                : std::string(shape_name(shape)) + " in the kernel") +
                " for views TMA cannot take)";
            break;
        case MmaLowering::wgmma_attention:
            s = "FlashAttention: TMA + wgmma kernel, the softmax on the accumulator fragments (the ordinary kernel for views TMA "
                "cannot take)";
            break;
        case MmaLowering::simdgroup: s = "simdgroup matrices: 8x8 blocks, simdgroup_multiply_accumulate"; break;
    }
    return why.empty() ? s : s + "; not faster: " + why;
}

std::vector<std::string> contraction_report(const Lowered& l) {
    std::vector<std::string> lines;
    ir::walk(l.program->body, [&](const Node& n) {
        auto it = l.contractions.mma.find(&n);
        if (it == l.contractions.mma.end()) return;
        lines.push_back("mma" + (n.loc.known() ? " at " + n.loc.str() : std::string()) + ": " + it->second.describe());
    });
    return lines;
}

const MmaPlan& Contractions::of(const Node& n) const {
    auto it = mma.find(&n);
    if (it == mma.end()) internal_fail("contraction: no plan for an mma (the pass did not run)");
    return it->second;
}

void contraction(Lowered& l) {
    const LowerOptions& o = l.options;
    bool any = false;
    ir::walk(l.program->body, [&](const Node& n) {
        if (ir::category(n.op) != ir::OpCategory::contraction || !l.is_live(n)) return;
        any = true;
        MmaPlan plan;
        switch (o.target) {
            case TargetKind::interp: break;
            case TargetKind::cpu:
                plan.why = "the cpu target keeps the contract's order per output (f32 in a register-blocked micro-kernel)";
                break;
            case TargetKind::cuda:
                plan.shape = tensor_core_shape(n, o, plan.why);
                if (plan.shape != TensorCoreShape::none) plan.lowering = MmaLowering::mma_sync;
                break;
            case TargetKind::metal:
                if (simdgroup_mma(n, o, plan.why)) plan.lowering = MmaLowering::simdgroup;
                break;
        }
        l.contractions.mma[&n] = plan;
    });
    if (o.target == TargetKind::metal) l.contractions.metal = metal_lowering(l);
    if (!any || o.target != TargetKind::cuda) return;
    std::string why;
    const LiveNodes* live = l.dce_done ? &l.live : nullptr;
    auto m = match_gemm(*l.program, &why, live);
    if (m && wgmma_ready(o, why, m->mma->type.kind == Kind::I32)) {
        l.contractions.gemm = m;
        MmaPlan& plan = l.contractions.mma[m->mma];
        plan.lowering = MmaLowering::wgmma_gemm;
        plan.why.clear();
        return;
    }
    l.contractions.gemm_why = "not the canonical GEMM: " + why;
    std::string attention_why;
    auto a = l.contractions.mma.size() == 2 ? match_attention(*l.program, &attention_why, o.attention_reblock_minus_infinity, live) : std::nullopt;
    if (a && wgmma_ready(o, attention_why)) {
        l.contractions.attention = a;
        for (const Node* x : {a->score_mma, a->output_mma}) {
            MmaPlan& plan = l.contractions.mma[x];
            plan.lowering = MmaLowering::wgmma_attention;
            plan.why.clear();
        }
        return;
    }
    if (l.contractions.mma.size() == 2) l.contractions.attention_why = "not FlashAttention: " + attention_why;
    const std::string& reason = l.contractions.mma.size() == 2 ? l.contractions.attention_why : l.contractions.gemm_why;
    for (auto& [node, plan] : l.contractions.mma) {
        if (plan.lowering != MmaLowering::ordered || plan.why.empty()) plan.why = reason;
        else if (reason.find(plan.why) == std::string::npos) plan.why += "; " + reason;  // why no tensor cores, and why not the GEMM's or attention's kernel
    }
}

}  // namespace kiln::passes
