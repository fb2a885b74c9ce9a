// The Hopper GEMM lowering (see emit_gemm.h): the pattern match over the IR and
// the text of the second kernel. The main loop itself is emit_gemm_sm90.cuh,
// pasted in verbatim; this file adds the wgmma wrapper for the tile's N, and
// the kernel whose epilogue applies the program's elementwise ops to each
// accumulator element and stores it with the program's bounds.
#include "targets/cuda/emit_gemm.h"

#include <algorithm>

#include "targets/cuda/emitter.h"
#include "targets/common/embedded_text.h"

namespace kiln::cu {

namespace {

// Opt-in shared memory of an sm_90 CTA (227 KB).
constexpr std::int64_t kSharedLimit = 227 * 1024;

// The kernel's tile: the program's when wgmma and TMA take it directly (BM 64 or
// 128: one or two consumer warpgroups; BN a multiple of the 64-column swizzle
// box up to wgmma's 256; BK 64 or 128), else 128x128x64. Stages: as many as fit.
void choose_tile(const GemmMatch& m, GemmKernel& g) {
    bool direct = (m.bm == 64 || m.bm == 128) && m.bn % 64 == 0 && m.bn <= 256 && (m.bk == 64 || m.bk == 128);
    g.bm = direct ? static_cast<int>(m.bm) : 128;
    g.bn = direct ? static_cast<int>(m.bn) : 128;
    g.bk = direct ? static_cast<int>(m.bk) : 64;
    std::int64_t stage = static_cast<std::int64_t>(g.bm + g.bn) * g.bk * 2;
    g.stages = static_cast<int>(std::min<std::int64_t>(8, (kSharedLimit - 1024) / (stage + 16)));
    g.threads = 128 * (g.bm / 64 + 1);
    g.shared_bytes = 1024 + g.stages * stage + 16 * g.stages;
}

// kg::wgmma(d, a_desc, b_desc): one wgmma.mma_async m64nNk16 with f32
// accumulators, A K-major and B N-major (imm-trans-b = 1), accumulating (scale-d
// predicate true).
std::string wgmma_wrapper(int n, Kind in) {
    std::string kind = in == Kind::BF16 ? "bf16" : "f16";
    int regs = n / 2;
    std::string list, operands;
    for (int i = 0; i < regs; ++i) {
        list += (i ? ", %" : "%") + std::to_string(i);
        operands += std::string(i ? ", " : "") + (i % 8 == 0 ? "\n          " : "") + "\"+f\"(d[" + std::to_string(i) + "])";
    }
    std::string r = std::to_string(regs);
    return "namespace kg {\n"
           "struct Wgmma {\n"
           "    static __device__ __forceinline__ void run(float (&d)[" + r + "], unsigned long long a, unsigned long long b) {\n"
           "        asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" + std::to_string(regs + 2) + ", 0;\\n\"\n"
           "            \"wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32." + kind + "." + kind + " {" + list + "}, %" + r +
           ", %" + std::to_string(regs + 1) + ", p, 1, 1, 0, 1;\\n}\\n\"\n"
           "            :" + operands + "\n"
           "            : \"l\"(a), \"l\"(b), \"r\"(1));\n"
           "    }\n"
           "};\n"
           "}  // namespace kg\n";
}

std::string storage(Kind k, const std::string& x) {
    switch (k) {
        case Kind::F16: return "kc::f2h(" + x + ")";
        case Kind::BF16: return "kc::f2b(" + x + ")";
        default: return x;
    }
}

}  // namespace

std::string emit_gemm_kernel(Emitter& E, const GemmMatch& m, const std::string& entry, GemmKernel& g) {
    choose_tile(m, g);
    g.entry = entry;
    g.program_bm = m.bm;
    g.program_bn = m.bn;
    g.program_bk = m.bk;
    g.a = ir::param_index(*m.load_a);
    g.b = ir::param_index(*m.load_b);
    g.c = ir::param_index(*m.store);
    g.m_axis = m.m_axis;
    g.k_loop = m.k_loop;
    g.in = m.load_a->type.kind;
    g.out = m.store->operands.back()->type.kind;

    // Epilogue operands: constants and parameters, as expressions.
    auto operand = [&](auto&& self, const Node* x) -> std::string {
        if (x->op == OpCode::full) return self(self, x->operands[0]);
        if (x->op == OpCode::param) return x->type.kind == Kind::Bool ? "(a" + num(ir::param_index(*x)) + " != 0)" : "a" + num(ir::param_index(*x));
        bool fl = is_float(x->type.kind);
        return literal(x->type.kind, fl ? x->data->floats[0] : 0, fl ? 0 : x->data->ints[0]);
    };
    // The epilogue for one accumulator element `x`; returns the stored value.
    auto chain = [&](const std::string& x, const std::string& suffix, std::string& text) {
        std::unordered_map<const Node*, std::string> at{{m.result, x}};
        std::string last = x;
        for (std::size_t i = 0; i < m.epilogue.size(); ++i) {
            const Node* v = m.epilogue[i];
            std::vector<std::string> args;
            for (const Node* o : v->operands) {
                auto it = at.find(o);
                args.push_back(it != at.end() ? it->second : operand(operand, o));
            }
            std::string e = element_expr(E, *v, args);
            std::string name = "e" + std::to_string(i) + suffix;
            text += "        const " + ctype(v->type.kind) + " " + name + " = " + e + ";\n";
            at[v] = name;
            last = name;
        }
        return last;
    };
    std::string y0, y1;
    std::string body0, body1;
    y0 = chain("x0", "_0", body0);
    y1 = chain("x1", "_1", body1);
    std::string c = "a" + num(g.c);
    std::string st = stype(g.out);
    // A pair of elements at an even column of a row-major C (the launcher checks
    // the alignment) is one 4-byte (f16/bf16) or 8-byte (f32) store.
    std::string pair = g.out == Kind::F32 ? "*reinterpret_cast<float2*>(p) = make_float2(" + y0 + ", " + y1 + ");"
                                          : "*reinterpret_cast<unsigned*>(p) = (unsigned)" + storage(g.out, y0) + " | (unsigned)" +
                                                storage(g.out, y1) + " << 16;";
    std::string s;
    s += "\n// ---- the Hopper GEMM kernel of this program (emit_gemm.cpp): TMA + mbarrier ring + wgmma\n";
    s += embedded::emit_gemm_sm90_cuh();
    s += wgmma_wrapper(g.bn, g.in);
    s += "\nextern \"C\" __global__ void __launch_bounds__(" + num(g.threads) + ", 1) " + entry +
         "(const __grid_constant__ kg::TensorMap kiln_ta, const __grid_constant__ kg::TensorMap kiln_tb, long long kiln_tiles_n, "
         "long long kiln_tiles, int kiln_k_tiles, long long kiln_rows, long long kiln_cols, " +
         kernel_signature(E.program()) + ") {\n";
    s += "    extern __shared__ __align__(16) unsigned char kiln_smem[];\n";
    s += "    // Rows and columns the program's tiles cover, clipped to C (kiln_rows, kiln_cols).\n";
    s += "    auto epilogue = [&](long long r, long long c, float x0, float x1) {\n";
    s += "        if (r >= kiln_rows || c >= kiln_cols) return;\n";
    s += body0 + body1;
    s += "        " + st + "* const p = " + c + " + r * " + c + "_s0 + c;\n";
    s += "        if (c + 1 < kiln_cols) " + pair + "\n";
    s += "        else p[0] = " + storage(g.out, y0) + ";\n";
    s += "    };\n";
    s += "    kg::gemm_sm90<" + num(g.bm) + ", " + num(g.bn) + ", " + num(g.bk) + ", " + num(g.stages) +
         ", kg::Wgmma>(&kiln_ta, &kiln_tb, kiln_tiles_n, kiln_tiles, kiln_k_tiles, kiln_smem, epilogue);\n";
    s += "}\n";
    E.count_tensor_core_op();
    return s;
}

std::string GemmKernel::describe() const {
    if (entry.empty()) return "";
    return "wgmma pipeline (" + entry + "): tile " + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) +
           " (program's " + std::to_string(program_bm) + "x" + std::to_string(program_bn) + "x" + std::to_string(program_bk) + "), " +
           std::to_string(stages) + " TMA stages (128B swizzle, mbarrier ring), " + std::to_string(bm / 64) +
           " consumer warpgroup(s) of wgmma.mma_async m64n" + std::to_string(bn) + "k16 + 1 producer warpgroup, " + std::to_string(threads) +
           " threads, " + std::to_string(shared_bytes) + " bytes shared, persistent grid; taken when A, B and C suit TMA (16-byte " +
           "aligned base and row stride, unit inner stride), else the kernel above";
}

}  // namespace kiln::cu
