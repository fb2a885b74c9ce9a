#include "passes/metal_lowering.h"

#include "ir/attrs.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

std::int64_t metal_value_bytes(Kind k) {
    switch (k) {
        case Kind::Bool: case Kind::I8: return 1;
        case Kind::I32: case Kind::F16: case Kind::BF16: case Kind::F32: return 4;
        case Kind::I64: case Kind::F64: return 8;
    }
    return 8;
}

bool metal_half_blocks(const Node& n) { return n.type.kind == Kind::F16; }

bool simdgroup_mma(const Node& n, const LowerOptions& o, std::string& why) {
    if (o.metal_thread_only) return why = "KILN_METAL_LOWERING=thread keeps one instance per thread", false;
    if (o.exact()) return why = "exact precision keeps the contract's order (the matrix units fuse and reorder a block's sums)", false;
    const Node *a = n.operands[0], *b = n.operands[1];
    const ir::MmaDims dims = ir::mma_dims(n);
    if (n.type.rank() != 2 || a->type.rank() != 2 || b->type.rank() != 2 || !(dims.is_matmul() || dims.is_matmul_bt()))
        return why = "not a 2-D product a[m, k] b[k, n] or a[m, k] b[n, k] (simdgroup matrices take those forms)", false;
    const std::int64_t m = a->type.dims[0].extent, k = a->type.dims[1].extent, nn = b->type.dims[dims.is_matmul_bt() ? 0 : 1].extent;
    if (m % 8 || k % 8 || nn % 8)
        return why = "its extents " + std::to_string(m) + "x" + std::to_string(nn) + "x" + std::to_string(k) +
                     " (m x n x k) are not multiples of 8 (simdgroup matrices are 8x8)", false;
    const Kind acc = n.type.kind, in = a->type.kind;
    if (in != b->type.kind) return why = "its operands differ in kind", false;
    const bool floats = in == Kind::F32 || in == Kind::F16 || in == Kind::BF16;
    if (acc == Kind::F32 && floats) return true;      // simdgroup_float8x8 (f16 and bf16 widen exactly)
    if (acc == Kind::F16 && in == Kind::F16) return true;  // simdgroup_half8x8
    return why = std::string(kind_name(in)) + " operands into a " + std::string(kind_name(acc)) +
                 " accumulator have no simdgroup matrix (f32, or f16 into f16)", false;
}

std::int64_t metal_threadgroup_bytes(const Lowered& l) {
    std::int64_t bytes = 0;
    ir::walk(l.program->body, [&](const Node& n) {
        if (!l.is_live(n)) return;
        if (n.op == OpCode::loop) {
            for (const Node* init : ir::loop_inits(n))
                if (!init->type.dims.empty()) bytes += 2 * init->type.count() * metal_value_bytes(init->type.kind);
            return;
        }
        if (!ir::has_result(n.op) || n.type.dims.empty() || l.host.count(&n)) return;
        switch (n.op) {
            case OpCode::reshape: case OpCode::mem_store: case OpCode::mem_load: case OpCode::loop_result: case OpCode::region_arg: return;
            default: break;
        }
        bytes += n.type.count() * metal_value_bytes(n.type.kind);
        if (n.op == OpCode::mma && metal_half_blocks(n))
            bytes += 2 * (n.operands[0]->type.count() + n.operands[1]->type.count() + 2 * n.type.count());
    });
    return bytes;
}

std::string MetalLowering::describe() const {
    if (simdgroup)
        return "metal lowering: simdgroup (one instance per 32-lane simdgroup, " + std::to_string(threadgroup_bytes) +
               " bytes of threadgroup memory)";
    return "metal lowering: per-thread (one instance per thread); not simdgroup: " + why;
}

MetalLowering metal_lowering(Lowered& l) {
    MetalLowering m;
    const Node* first = nullptr;
    for (auto& [node, plan] : l.contractions.mma)
        if (plan.lowering == MmaLowering::simdgroup) m.simdgroup = true;
    ir::walk(l.program->body, [&](const Node& n) {
        if (!first && l.contractions.mma.count(&n)) first = &n;
    });
    if (!m.simdgroup) {
        m.why = first ? "the first mma" + (first->loc.known() ? " (" + first->loc.str() + ")" : std::string()) + ": " + l.contractions.of(*first).why
                      : "no contraction to run on simdgroup matrices";
        return m;
    }
    m.threadgroup_bytes = metal_threadgroup_bytes(l);
    if (m.threadgroup_bytes > kMetalThreadgroupBytes) {
        m.simdgroup = false;
        m.why = "its tiles need " + std::to_string(m.threadgroup_bytes) + " bytes of threadgroup memory, more than the " +
                std::to_string(kMetalThreadgroupBytes) + " an Apple GPU has";
        for (auto& [node, plan] : l.contractions.mma)
            if (plan.lowering == MmaLowering::simdgroup) {
                plan.lowering = MmaLowering::ordered;
                plan.why = m.why;
            }
    }
    return m;
}

}  // namespace kiln::passes
