#include "passes/gemm_match.h"

#include <algorithm>

#include "ir/attrs.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

class Matcher {
public:
    explicit Matcher(const ir::Program& p) : p_(p) {}

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
        int i = ir::param_index(*load);
        if (i < 0 || static_cast<std::size_t>(i) >= p_.params.size()) return false;
        const auto& q = p_.params[static_cast<std::size_t>(i)];
        return q.is_view && q.rank == 2 && (!writable || q.writable);
    }

    bool match() {
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
        if (result->operands[0] != loop || ir::slot(*result) != 0) return no("the stored value is not the k loop's result");
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
        if (p_.params[static_cast<std::size_t>(ir::param_index(*store))].kind != out) return no("the store converts kinds");
        if (ir::param_index(*store) == ir::param_index(*m_.load_a) || ir::param_index(*store) == ir::param_index(*m_.load_b)) return no("the output view is also an input");
        if (store->operands[0] != m_.load_a->operands[0] || store->operands[1] != m_.load_b->operands[1])
            return no("the store is not at the tile's block origin");
        m_.loop = loop;
        m_.result = result;
        m_.store = store;
        m_.k_loop = static_cast<int>(std::find(g.nodes.begin(), g.nodes.end(), loop) - g.nodes.begin());
        return true;
    }

    bool match_loop(const Node* loop) {
        if (ir::loop_kind(*loop) == detail::LoopKind::parallel || ir::loop_rank(*loop) != 1 || loop->operands.size() != 2) return no("the k loop is not a 1-D loop carrying one value");
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
        if (!ir::mma_options(*mma).allow_reassociation) return no("the mma does not allow reassociation");
        // Dim map (ops.def): out (m from a.0, n from b.1), contraction a.1 with b.0.
        if (!ir::mma_dims(*mma).is_matmul()) return no("the mma is not A[m, k] B[k, n]");
        const Node *a = mma->operands[0], *b = mma->operands[1];
        if (mma->operands[2] != acc || a->op != OpCode::load || b->op != OpCode::load || a == b)
            return no("the mma's operands are not the loop's loads and accumulator");
        if (a->type.kind != b->type.kind || (a->type.kind != Kind::F16 && a->type.kind != Kind::BF16))
            return no("the operands are not both f16 or both bf16");
        if (mma->type.kind != Kind::F32) return no("the accumulator is not f32");
        for (const Node* l : {a, b})
            if (ir::has_fallback(*l) || l->operands.size() != 2 || !view_param(l, false) || p_.params[static_cast<std::size_t>(ir::param_index(*l))].kind != l->type.kind)
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
        m_.mma = mma;
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
        auto c = ir::category(v->op);
        if (c != ir::OpCategory::unary && c != ir::OpCategory::binary && c != ir::OpCategory::cast) return false;
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
    GemmMatch m_;
    std::string why_;
};

}  // namespace

std::optional<GemmMatch> match_gemm(const ir::Program& p, std::string* why) { return Matcher(p).run(why); }

}  // namespace kiln::passes
