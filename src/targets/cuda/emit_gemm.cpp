// The Hopper GEMM lowering (see emit_gemm.h): the pattern match over the IR and
// the text of the second kernel. The main loop itself is emit_gemm_sm90.cuh,
// pasted in verbatim; this file adds the wgmma wrapper for the tile's N, and
// the kernel whose epilogue applies the program's elementwise ops to each
// accumulator element and stores it with the program's bounds.
#include "targets/cuda/emit_gemm.h"

#include <algorithm>

#include "targets/cuda/emitter.h"
// Empty for the host compiler; included so that the build records the dependency
// of the text embedded below.
#include "targets/cuda/emit_gemm_sm90.cuh"

// The main loop's text, NUL-terminated, in read-only data (KILN_SOURCE_DIR is set
// by CMake for the kiln library).
asm(".pushsection .rodata\n"
    ".global kiln_cuda_gemm_sm90_text\n"
    ".hidden kiln_cuda_gemm_sm90_text\n"
    ".type kiln_cuda_gemm_sm90_text, @object\n"
    "kiln_cuda_gemm_sm90_text:\n"
    ".incbin \"" KILN_SOURCE_DIR "/src/targets/cuda/emit_gemm_sm90.cuh\"\n"
    ".byte 0\n"
    ".popsection\n");
extern "C" const char kiln_cuda_gemm_sm90_text[];

namespace kiln::cu {

namespace {

// Opt-in shared memory of an sm_90 CTA (227 KB).
constexpr std::int64_t kSharedLimit = 227 * 1024;

class Matcher {
public:
    Matcher(const ir::Program& p, const EmitOptions& o) : p_(p), o_(o) {}

    std::optional<GemmMatch> run(std::string* why) {
        bool ok = match();
        if (why) *why = ok ? "" : why_;
        if (!ok) return std::nullopt;
        return m_;
    }

private:
    bool no(const std::string& why) {
        why_ = why;
        return false;
    }

    static bool scalar(const Node* n) { return n->type.dims.empty(); }
    static std::optional<std::int64_t> int_constant(const Node* n) {
        if (n->op != OpCode::constant || !scalar(n) || is_float(n->type.kind) || n->data->ints.size() != 1) return std::nullopt;
        return n->data->ints[0];
    }
    // n == index * extent (either operand order).
    static bool index_times(const Node* n, const Node* index, std::int64_t extent) {
        if (n->op != OpCode::mul || n->operands.size() != 2) return false;
        const Node *x = n->operands[0], *y = n->operands[1];
        if (x != index) std::swap(x, y);
        return x == index && int_constant(y) == extent;
    }
    // A rank-0 computation that touches no memory: index arithmetic the kernel
    // does not need (the GEMM kernel derives its own coordinates).
    static bool harmless_scalar(const Node* n) {
        return scalar(n) && n->op != OpCode::load && n->op != OpCode::store && n->op != OpCode::loop && n->op != OpCode::mem_store &&
               n->op != OpCode::mem_load;
    }
    static bool zero_tile(const Node* n) {
        if (n->op == OpCode::full) {
            const Node* x = n->operands[0];
            return x->op == OpCode::constant && x->data->floats.size() == 1 && x->data->floats[0] == 0.0;
        }
        if (n->op != OpCode::constant || !n->data) return false;
        return std::all_of(n->data->floats.begin(), n->data->floats.end(), [](double v) { return v == 0.0; }) && !n->data->floats.empty();
    }
    bool view_param(const Node* load, bool writable) const {
        if (load->i < 0 || static_cast<std::size_t>(load->i) >= p_.params.size()) return false;
        const auto& q = p_.params[static_cast<std::size_t>(load->i)];
        return q.is_view && q.rank == 2 && (!writable || q.writable);
    }

    bool match() {
        if (o_.precision == Precision::exact) return no("exact precision keeps the contract's order");
        if (o_.sm != 90) return no("wgmma needs sm_90a");
        const Node* grid = p_.grid;
        if (!grid || ir::loop_rank(*grid) != 2 || grid->operands.size() != 2) return no("no 2-D parallel nest");
        m_.grid = grid;
        for (const Node* n : p_.body.nodes)
            if (n != grid && !harmless_scalar(n) && n->op != OpCode::yield) return no("work outside the parallel nest");
        const ir::Region& g = *grid->body;
        // The grid body: scalars, the zero accumulator, the k loop, its result, the
        // epilogue, the store.
        const Node *loop = nullptr, *result = nullptr, *store = nullptr;
        for (const Node* n : g.nodes) {
            if (n->op == OpCode::loop) {
                if (loop) return no("more than one loop in the nest");
                loop = n;
            } else if (n->op == OpCode::store) {
                if (store) return no("more than one store");
                store = n;
            } else if (n->op == OpCode::loop_result) {
                result = n;
            }
        }
        if (!loop || !result || !store) return no("no k loop with a carried accumulator and a store");
        if (!match_loop(loop)) return false;
        if (result->operands[0] != loop || result->i != 0) return no("the stored value is not the k loop's result");
        // Epilogue: the chain from the loop's result to the stored value.
        const Node* value = store->operands.back();
        std::vector<const Node*> chain;
        for (const Node* v = value; v != result;) {
            if (v->type.dims != result->type.dims) return no("the epilogue changes the tile's shape");
            const Node* next = nullptr;
            if (!epilogue_op(v, &next)) return no("the epilogue has a " + std::string(detail::op_name(v->op)) + " that is not elementwise on the accumulator");
            chain.push_back(v);
            v = next;
        }
        std::reverse(chain.begin(), chain.end());
        m_.epilogue = chain;
        // Everything else in the nest is harmless scalar work or the accumulator's initial value.
        for (const Node* n : g.nodes) {
            if (n == loop || n == result || n == store || n->op == OpCode::yield || harmless_scalar(n) || n == loop->operands[1]) continue;
            if (std::find(chain.begin(), chain.end(), n) != chain.end()) continue;
            if ((n->op == OpCode::constant || n->op == OpCode::full) && is_epilogue_operand(n)) continue;
            return no("the nest has a " + std::string(detail::op_name(n->op)) + " outside the GEMM");
        }
        // The store: C[m0, n0] with the loads' block origins.
        if (store->operands.size() != 3 || !view_param(store, true)) return no("the store is not into a writable 2-D view");
        Kind out = value->type.kind;
        if (out != Kind::F32 && out != Kind::F16 && out != Kind::BF16) return no("the stored kind is not f32, f16 or bf16");
        if (p_.params[static_cast<std::size_t>(store->i)].kind != out) return no("the store converts kinds");
        if (store->i == m_.load_a->i || store->i == m_.load_b->i) return no("the output view is also an input");
        if (store->operands[0] != m_.load_a->operands[0] || store->operands[1] != m_.load_b->operands[1])
            return no("the store is not at the tile's block origin");
        m_.loop = loop;
        m_.result = result;
        m_.store = store;
        return true;
    }

    bool match_loop(const Node* loop) {
        if (loop->i == 0 || ir::loop_rank(*loop) != 1 || loop->operands.size() != 2) return no("the k loop is not a 1-D loop carrying one value");
        const Node* init = loop->operands[1];
        if (init->type.kind != Kind::F32 || init->type.rank() != 2 || !zero_tile(init)) return no("the accumulator does not start as f32 zeros");
        const ir::Region& body = *loop->body;
        const Node *t = body.args[0], *acc = body.args[1];
        const Node *mma = nullptr, *yield = nullptr;
        std::vector<const Node*> loads;
        for (const Node* n : body.nodes) {
            if (n->op == OpCode::mma) mma = n;
            else if (n->op == OpCode::load) loads.push_back(n);
            else if (n->op == OpCode::yield) yield = n;
            else if (n->op != OpCode::stage && !harmless_scalar(n)) return no("the k loop has a " + std::string(detail::op_name(n->op)) + " besides the GEMM");
        }
        if (!mma || !yield || loads.size() != 2 || yield->operands.size() != 1 || yield->operands[0] != mma)
            return no("the k loop is not acc = mma(load, load, acc)");
        if (!mma->flag) return no("the mma does not allow reassociation");
        // Dim map (ops.def): out (m from a.0, n from b.1), contraction a.1 with b.0.
        if (mma->ints != std::vector<std::int64_t>{2, 0, -1, -1, 1, 1, 1, 0}) return no("the mma is not A[m, k] B[k, n]");
        const Node *a = mma->operands[0], *b = mma->operands[1];
        if (mma->operands[2] != acc || a->op != OpCode::load || b->op != OpCode::load || a == b)
            return no("the mma's operands are not the loop's loads and accumulator");
        if (a->type.kind != b->type.kind || (a->type.kind != Kind::F16 && a->type.kind != Kind::BF16))
            return no("the operands are not both f16 or both bf16");
        if (mma->type.kind != Kind::F32) return no("the accumulator is not f32");
        for (const Node* l : {a, b})
            if (l->flag || l->operands.size() != 2 || !view_param(l, false) || p_.params[static_cast<std::size_t>(l->i)].kind != l->type.kind)
                return no("a load is not a plain 2-D tile of a view");
        std::int64_t bm = a->type.dims[0].extent, bk = a->type.dims[1].extent, bn = b->type.dims[1].extent;
        // Origins: A at (grid_m * bm, t * bk), B at (t * bk, grid_n * bn).
        const Node* gi = m_.grid->body->args[0];
        const Node* gj = m_.grid->body->args[1];
        if (!index_times(a->operands[1], t, bk) || !index_times(b->operands[0], t, bk)) return no("the k origins are not t * bk");
        if (!(index_times(a->operands[0], gi, bm) && index_times(b->operands[1], gj, bn)) &&
            !(index_times(a->operands[0], gj, bm) && index_times(b->operands[1], gi, bn)))
            return no("the block origins are not grid index * tile extent");
        m_.m_axis = index_times(a->operands[0], gi, bm) ? 0 : 1;
        m_.load_a = a;
        m_.load_b = b;
        m_.bm = bm;
        m_.bn = bn;
        m_.bk = bk;
        return true;
    }

    // A scalar the epilogue can evaluate anywhere: a constant, a kernel parameter,
    // or a tile holding one of those everywhere.
    static bool is_epilogue_operand(const Node* n) {
        if (n->op == OpCode::param) return scalar(n);
        if (n->op == OpCode::constant) return n->data && (is_float(n->type.kind) ? n->data->floats.size() : n->data->ints.size()) == 1;
        if (n->op == OpCode::full) return is_epilogue_operand(n->operands[0]);
        return false;
    }
    // v is an elementwise op with exactly one operand of the accumulator's chain
    // (returned in *next); the others are epilogue operands.
    bool epilogue_op(const Node* v, const Node** next) const {
        switch (v->op) {
            case OpCode::neg: case OpCode::abs: case OpCode::exp: case OpCode::log: case OpCode::sqrt: case OpCode::rsqrt:
            case OpCode::tanh: case OpCode::erf: case OpCode::sin: case OpCode::cos: case OpCode::cast: case OpCode::add:
            case OpCode::sub: case OpCode::mul: case OpCode::div: case OpCode::pow: case OpCode::maximum: case OpCode::minimum:
                break;
            default: return false;
        }
        if (!is_float(v->type.kind)) return false;
        *next = nullptr;
        for (const Node* x : v->operands) {
            if (is_epilogue_operand(x)) continue;
            if (*next || x->type.dims != v->type.dims || !is_float(x->type.kind)) return false;
            *next = x;
        }
        return *next != nullptr;
    }

    const ir::Program& p_;
    const EmitOptions& o_;
    GemmMatch m_;
    std::string why_;
};

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

std::optional<GemmMatch> match_gemm(const ir::Program& p, const EmitOptions& o, std::string* why) { return Matcher(p, o).run(why); }

std::string emit_gemm_kernel(Emitter& E, const GemmMatch& m, const std::string& entry, GemmKernel& g) {
    choose_tile(m, g);
    g.entry = entry;
    g.program_bm = m.bm;
    g.program_bn = m.bn;
    g.program_bk = m.bk;
    g.a = static_cast<int>(m.load_a->i);
    g.b = static_cast<int>(m.load_b->i);
    g.c = static_cast<int>(m.store->i);
    g.m_axis = m.m_axis;
    const auto& nest = m.grid->body->nodes;
    g.k_loop = static_cast<int>(std::find(nest.begin(), nest.end(), m.loop) - nest.begin());
    g.in = m.load_a->type.kind;
    g.out = m.store->operands.back()->type.kind;

    // Epilogue operands: constants and parameters, as expressions.
    auto operand = [&](auto&& self, const Node* x) -> std::string {
        if (x->op == OpCode::full) return self(self, x->operands[0]);
        if (x->op == OpCode::param) return x->type.kind == Kind::Bool ? "(a" + num(x->i) + " != 0)" : "a" + num(x->i);
        bool fl = is_float(x->type.kind);
        return literal(x->type.kind, fl ? x->data->floats[0] : 0, fl ? 0 : x->data->ints[0]);
    };
    // The epilogue for one accumulator element `x`; returns the stored value.
    auto chain = [&](const std::string& x, const std::string& suffix, std::string& text) {
        std::unordered_map<const Node*, std::string> at{{m.result, x}};
        std::string last = x;
        for (std::size_t i = 0; i < m.epilogue.size(); ++i) {
            const Node* v = m.epilogue[i];
            auto arg = [&](std::size_t k) {
                auto it = at.find(v->operands[k]);
                return it != at.end() ? it->second : operand(operand, v->operands[k]);
            };
            std::string e;
            switch (v->op) {
                case OpCode::cast: e = cast_expr(v->operands[0]->type.kind, v->type.kind, arg(0)); break;
                case OpCode::add: case OpCode::sub: case OpCode::mul: case OpCode::div: case OpCode::pow: case OpCode::maximum:
                case OpCode::minimum:
                    e = binary_expr(E, v->op, v->type.kind, arg(0), arg(1));
                    break;
                default: e = unary_expr(E, v->op, v->type.kind, arg(0));
            }
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
    s += kiln_cuda_gemm_sm90_text;
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
