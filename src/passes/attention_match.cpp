#include "passes/attention_match.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "ir/attrs.h"
#include "passes/dataflow_match.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

// The binary op `op` of a and b in either order (for commutative ops).
bool is_pair(const Node* n, OpCode op, const Node* a, const Node* b) {
    if (n->op != op || n->operands.size() != 2) return false;
    return (n->operands[0] == a && n->operands[1] == b) || (n->operands[0] == b && n->operands[1] == a);
}

// x itself, or a broadcast of x (a per-row value spread along another axis).
const Node* unbroadcast(const Node* n) { return n->op == OpCode::broadcast ? n->operands[0] : n; }

// Whether a and b compute the same value: the same node, or the same op with the
// same attributes over operands that do (a user who writes exp(m - m') twice gets
// two nodes). Loops and their indices are only ever themselves.
bool same_value(const Node* a, const Node* b) {
    if (a == b) return true;
    if (a->op != b->op || a->type != b->type || a->operands.size() != b->operands.size() || a->body || b->body) return false;
    if (a->op == OpCode::region_arg || a->op == OpCode::loop_result || ir::category(a->op) == ir::OpCategory::memory) return false;
    const ir::RawAttrs &x = a->raw, &y = b->raw;
    if (x.i != y.i || x.j != y.j || x.flag != y.flag || x.kind != y.kind || x.s != y.s || x.ints != y.ints) return false;
    if ((a->data == nullptr) != (b->data == nullptr)) return false;
    if (a->data && (a->data->ints != b->data->ints || a->data->floats != b->data->floats)) return false;
    for (std::size_t i = 0; i < a->operands.size(); ++i)
        if (!same_value(a->operands[i], b->operands[i])) return false;
    return true;
}

// When t is c (a' - b') (or a' - b', c = 1) with a' the value a, b' the value b, either
// possibly broadcast, and c > 0 a float constant, returns c.
std::optional<double> scaled_difference(const Node* t, const Node* a, const Node* b) {
    double c = 1;
    if (t->op == OpCode::mul) {
        auto k0 = float_constant(unbroadcast(t->operands[0])), k1 = float_constant(unbroadcast(t->operands[1]));
        if (k1) c = *k1, t = t->operands[0];
        else if (k0) c = *k0, t = t->operands[1];
        else return std::nullopt;
        if (!(c > 0)) return std::nullopt;
    }
    if (t->op != OpCode::sub || !same_value(unbroadcast(t->operands[0]), a) || !same_value(unbroadcast(t->operands[1]), b)) return std::nullopt;
    return c;
}

// When e is exp(c (a - b)) (see scaled_difference), returns c. This is the family the
// online softmax is invariant under: exp(c (x - m')) exp(c (m' - m'')) = exp(c (x - m'')).
// Also the spellings of the same value users write: B^(c (a - b)) with a constant base
// B > 1 (Triton's exp2 with log2(e) folded into the scale, written pow(2, ..)), which is
// exp(c ln(B) (a - b)), and 1 / exp(c (b - a)). The kernel computes each value as
// written (cuda/attention_values.cpp); the match needs only the invariance.
std::optional<double> exp_of_difference(const Node* e, const Node* a, const Node* b) {
    if (e->op == OpCode::exp) return scaled_difference(e->operands[0], a, b);
    if (e->op == OpCode::pow) {
        auto base = float_constant(unbroadcast(e->operands[0]));
        if (!base || !(*base > 1) || !std::isfinite(*base)) return std::nullopt;
        auto c = scaled_difference(e->operands[1], a, b);
        if (!c) return std::nullopt;
        return *c * std::log(*base);
    }
    if (e->op == OpCode::div && float_constant(unbroadcast(e->operands[0])) == 1.0 && e->operands[1]->op == OpCode::exp)
        return scaled_difference(e->operands[1]->operands[0], b, a);
    return std::nullopt;
}

// Whether two exponent scales are one constant (each is a float constant, or one
// times ln(B) computed here: distinct f32 constants differ far more).
bool same_scale(double x, double y) { return std::fabs(x - y) <= 1e-12 * std::max(std::fabs(x), std::fabs(y)); }

bool scalar(const Node* n) { return is_scalar(n); }
std::vector<int> axes_of(const Node* n) { return non_unit_axes(n); }

class Matcher : public DataflowMatcher<AttentionMatch> {
public:
    Matcher(const ir::Program& p, bool reblock_minus_infinity, const LiveNodes* live)
        : DataflowMatcher(p, live), reblock_minus_infinity_(reblock_minus_infinity) {}

    std::optional<AttentionMatch> run(std::string* why) { return verdict(match(), why); }

private:
    // Whether n depends on any node of `set` (through operands).
    static bool depends(const Node* n, const std::unordered_set<const Node*>& set) {
        std::vector<const Node*> work{n};
        std::unordered_set<const Node*> seen;
        while (!work.empty()) {
            const Node* x = work.back();
            work.pop_back();
            if (set.count(x)) return true;
            if (!seen.insert(x).second) continue;
            for (const Node* o : x->operands) work.push_back(o);
        }
        return false;
    }

    bool match() {
        const Node* grid = p_.grid;
        if (!grid || !ir::loop_inits(*grid).empty()) return no("no parallel nest");
        m_.grid = grid;
        for (const Node* n : p_.body.nodes)
            if (n != grid && !dead(n) && (!scalar(n) || ir::category(n->op) == ir::OpCategory::memory)) return no("work outside the parallel nest");
        const ir::Region& g = *grid->body;
        for (const Node* a : g.args) grid_indices_.insert(a);
        const Node* loop = nullptr;
        for (std::size_t i = 0; i < g.nodes.size(); ++i)
            if (g.nodes[i]->op == OpCode::loop && !dead(g.nodes[i])) {
                if (loop) return no("more than one loop in the nest");
                loop = g.nodes[i];
                m_.loop_position = static_cast<int>(i);
            }
        if (!loop) return no("no loop over key blocks in the nest");
        m_.loop = loop;
        if (ir::loop_kind(*loop) == detail::LoopKind::parallel || ir::loop_rank(*loop) != 1 || ir::loop_inits(*loop).size() != 3)
            return no("the loop is not a 1-D loop carrying three values (row maximum, row sum, accumulator)");
        return match_body(*loop->body) && match_loads() && match_score_loads() && match_inits() && match_key_block() && match_nest(g);
    }

    // The loop body: the two products and the online softmax between them.
    bool match_body(const ir::Region& body) {
        const Node* t = body.args[0];
        carried_ = {body.args[1], body.args[2], body.args[3]};
        std::vector<const Node*> mmas;
        const Node* yield = nullptr;
        for (const Node* n : body.nodes) {
            if (dead(n)) continue;
            if (n->op == OpCode::mma) mmas.push_back(n);
            else if (n->op == OpCode::yield) yield = n;
        }
        if (mmas.size() != 2 || !yield || yield->operands.size() != 3) return no("the loop does not hold exactly two mma (scores, then output)");
        // The output product accumulates into the carried accumulator; the score product
        // starts from zeros. The accumulation is mma(P, V, acc * alpha), or acc * alpha +
        // mma(P, V, 0) (FlashAttention-2's and Triton's `acc = acc * alpha + dot(p, v)`):
        // with reassociation allowed the same sum (docs/semantics.md), which the kernel
        // computes as the first.
        const Node *score = nullptr, *output = nullptr, *output_sum = nullptr;
        for (const Node* x : mmas) (depends(x->operands[2], carried_) ? output : score) = x;
        if (!output)
            for (const Node* y : yield->operands)
                for (int i = 0; i < 2 && !output && y->op == OpCode::add && y->operands.size() == 2; ++i) {
                    const Node *product = y->operands[static_cast<std::size_t>(i)], *rest = y->operands[static_cast<std::size_t>(1 - i)];
                    if (product->op == OpCode::mma && product->operands[2]->op == OpCode::full && float_constant(product->operands[2]) == 0.0 &&
                        product->type == y->type && depends(rest, carried_)) {
                        output = product;
                        output_sum = y;
                        score = mmas[0] == product ? mmas[1] : mmas[0];
                    }
                }
        if (!score || !output) return no("no mma that starts from zeros (the scores) and one that accumulates the output");
        for (const Node* x : {score, output}) {
            if (!ir::mma_options(*x).allow_reassociation) return no("an mma does not allow reassociation");
            if (x->type.kind != Kind::F32) return no("an mma's accumulator is not f32");
        }
        m_.score_mma = score;
        m_.output_mma = output;
        const Node *q = query_load(score->operands[0]), *k = operand_load(score->operands[1]);
        if (q->op != OpCode::load || k->op != OpCode::load) return no("the score mma's operands are not loads");
        if (q->type.kind != k->type.kind || (q->type.kind != Kind::F16 && q->type.kind != Kind::BF16))
            return no("the score mma's operands are not both f16 or both bf16");
        m_.in = q->type.kind;
        if (m_.q_prologue && m_.q_prologue->type.kind != m_.in) return no("the query tile's own ops change its kind");
        const auto sz = score->operands[2];
        if (!(sz->op == OpCode::full && float_constant(sz) == 0.0)) return no("the score mma does not start from zeros");
        // Axes: Q [.., rows, .., channels], K [.., keys, .., channels], S [.., rows, keys]
        // (besides unit dims: the sequence-major layout has the head between).
        auto qa = axes_of(q), ka = axes_of(k), sa = axes_of(score);
        if (qa.size() != 2 || ka.size() != 2 || sa.size() != 2) return no("the score mma is not a product of two 2-D tiles (besides unit dims)");
        // K is [.., keys, .., channels], or stored transposed [.., channels, keys] (a key
        // cache kept channel-major): then its keys are its last dim.
        m_.k_transposed = k->type.dims.back().axis != qa[1] && ka.size() == 2 && ka[0] == qa[1] && k->type.dims.back().axis == ka[1];
        if (q->type.dims.back().axis != qa[1] || (k->type.dims.back().axis != qa[1] && !m_.k_transposed))
            return no("the score mma does not contract the query's last axis with the key's last axis (or, K stored transposed, its channels)");
        m_.axis_rows = qa[0];
        m_.axis_channels = qa[1];
        m_.axis_keys = m_.k_transposed ? ka[1] : ka[0];
        if (sa != std::vector<int>{m_.axis_rows, m_.axis_keys}) return no("the scores are not [rows, keys]");
        if (ir::mma_dims(*score).contract.size() != 1) return no("the score mma contracts more than the channels");
        m_.q_row_dim = tile_dim(q, m_.axis_rows);
        m_.k_row_dim = tile_dim(k, m_.axis_keys);
        m_.bq = q->type.dims[static_cast<std::size_t>(m_.q_row_dim)].extent;
        m_.d = q->type.dims.back().extent;
        m_.bk = k->type.dims[static_cast<std::size_t>(m_.k_row_dim)].extent;
        m_.load_q = q;
        m_.load_k = k;

        // The output product: mma(P or cast(P), V, acc * alpha).
        const Node *pa = output->operands[0], *v = operand_load(output->operands[1]);
        const Node* c = output_sum ? (output_sum->operands[0] == output ? output_sum->operands[1] : output_sum->operands[0]) : output->operands[2];
        if (v->op != OpCode::load || v->type.kind != m_.in) return no("the output mma's second operand is not a load of the operands' kind");
        auto va = axes_of(v);
        if (va.size() != 2 || va[0] != m_.axis_keys || v->type.dims.back().axis != va[1]) return no("the value tile is not [keys, value channels]");
        m_.axis_values = va[1];
        // The kernel addresses every value by its axes (masks, biases, the row state), so
        // the rows, keys and channels must be told apart by them: anonymous dims (seed
        // 000's plain extents, all id 0) are not, and a value read along the keys would be
        // taken along the rows where the blocks are square. (The value channels may be the
        // query's channel axis.)
        {
            const int rows = m_.axis_rows, keys = m_.axis_keys, channels = m_.axis_channels, values = m_.axis_values;
            if (rows == 0 || keys == 0 || channels == 0 || values == 0 || rows == keys || rows == channels || keys == channels || rows == values ||
                keys == values)
                return no("the query rows, keys and channels are not distinct named axes (the kernel tells values apart by their axes)");
        }
        m_.v_row_dim = tile_dim(v, m_.axis_keys);
        m_.dv = v->type.dims.back().extent;
        m_.load_v = v;
        if (axes_of(output) != std::vector<int>{m_.axis_rows, m_.axis_values}) return no("the output is not [rows, value channels]");
        const Node* weights = pa->op == OpCode::cast ? pa->operands[0] : pa;
        if (pa->type.kind != m_.in) return no("the output mma's first operand is not of the operands' kind");
        // Values are matched by their axes, not their order (a mask built from iota over
        // the keys and then the rows is [keys, rows]; the kernel addresses elements by axis).
        auto wa = axes_of(weights);
        if (wa != std::vector<int>{m_.axis_rows, m_.axis_keys} && wa != std::vector<int>{m_.axis_keys, m_.axis_rows})
            return no("the output mma's first operand is not [rows, keys]");
        for (const Node* x : body.nodes)
            if (x->op == OpCode::mma || dead(x)) continue;
            else if (x->op == OpCode::load && x != q && x != k && x != v) {
                // One element a tile, or a tile over the rows and keys (checked at the
                // blocks' origins once they are known: match_score_loads).
                if (cta_load(x, t)) m_.tile_loads.push_back(x);
                else if (score_tile(x)) m_.score_loads.push_back(x);
                else return no("the loop loads more than the query, key and value tiles, tiles over its rows and keys, and elements the same for every key block");
            }

        // Carried slots from the yield: the accumulator's is the output mma.
        int acc = -1, mx = -1, sum = -1;
        for (int s = 0; s < 3; ++s) {
            const Node* y = yield->operands[static_cast<std::size_t>(s)];
            if (y == (output_sum ? output_sum : output)) acc = s;
            else if (y->op == OpCode::maximum) mx = s;
            else if (y->op == OpCode::add) sum = s;
        }
        if (acc < 0 || mx < 0 || sum < 0) return no("the loop does not carry (max, sum, accumulator) updated as an online softmax");
        const Node *m_arg = body.args[1 + static_cast<std::size_t>(mx)], *l_arg = body.args[1 + static_cast<std::size_t>(sum)],
                   *acc_arg = body.args[1 + static_cast<std::size_t>(acc)];
        m_.slot_max = mx;
        m_.slot_sum = sum;
        m_.slot_acc = acc;
        // m' = max(m, reduce_max(X)).
        const Node* next_max = yield->operands[static_cast<std::size_t>(mx)];
        const Node* rmax = next_max->operands[0] == m_arg ? next_max->operands[1] : next_max->operands[0];
        if (!is_pair(next_max, OpCode::maximum, m_arg, rmax) || rmax->op != OpCode::reduce_max) return no("the new row maximum is not max(m, reduce_max(scores))");
        if (!reduces_keys(rmax)) return no("the row maximum does not reduce over the keys");
        const Node* x = rmax->operands[0];
        // l' = l * alpha + reduce_add(P); alpha = exp(m - m').
        const Node* next_sum = yield->operands[static_cast<std::size_t>(sum)];
        const Node *scaled = nullptr, *rsum = nullptr;
        for (int i = 0; i < 2; ++i)
            if (next_sum->operands[static_cast<std::size_t>(i)]->op == OpCode::reduce_add) {
                rsum = next_sum->operands[static_cast<std::size_t>(i)];
                scaled = next_sum->operands[static_cast<std::size_t>(1 - i)];
            }
        if (!rsum || !reduces_keys(rsum) || scaled->op != OpCode::mul) return no("the new row sum is not l * alpha + reduce_add(p)");
        const Node* alpha = scaled->operands[0] == l_arg ? scaled->operands[1] : scaled->operands[0];
        if (!is_pair(scaled, OpCode::mul, l_arg, alpha)) return no("the new row sum is not l * alpha + reduce_add(p)");
        const auto c_alpha = exp_of_difference(alpha, m_arg, next_max);
        if (!c_alpha) return no("the rescale factor is not exp(m - m') (or exp(c (m - m')) with a constant c > 0, B^(c (m - m')) with a constant B > 1, or 1 / exp(c (m' - m)))");
        // P = exp(X - m') or ite(c, exp(X - m'), 0) (the scale as alpha's), the values the output mma reads.
        if (!same_value(rsum->operands[0], weights)) return no("the output mma does not read the probabilities the row sum adds");
        const Node* e = weights;
        if (weights->op == OpCode::select) {
            if (float_constant(weights->operands[2]) != 0.0) return no("masked probabilities are not 0");
            if (depends(weights->operands[0], carried_)) return no("the probabilities' mask depends on the carried state");
            e = weights->operands[1];
        }
        const auto c_p = exp_of_difference(e, x, next_max);
        if (!c_p) return no("the probabilities are not exp(scores - m') (with the scores the maximum reduces)");
        if (!same_scale(*c_p, *c_alpha)) return no("the probabilities and the rescale factor scale the exponent differently");
        if (depends(x, carried_)) return no("the scores depend on the carried state");
        // acc * alpha.
        const Node* bal = c->operands.size() == 2 ? (c->operands[0] == acc_arg ? c->operands[1] : c->operands[0]) : nullptr;
        if (!bal || !is_pair(c, OpCode::mul, acc_arg, bal) || !same_value(unbroadcast(bal), alpha)) return no("the output mma's accumulator is not acc * alpha");
        m_.reduce_max = rmax;
        m_.reduce_sum = rsum;
        m_.next_max = next_max;
        m_.alpha = alpha;
        m_.alphas = {alpha};
        if (unbroadcast(bal) != alpha) m_.alphas.push_back(unbroadcast(bal));
        m_.next_sum = next_sum;
        m_.scaled_acc = c;
        m_.weights = weights;
        // Nothing else in the loop may read the carried state or the reductions, or
        // be a reduction, scan or memory op of its own: what depends on them must be
        // part of the structure checked above (reachable from the yield; X and the
        // masks were checked not to depend on them).
        std::unordered_set<const Node*> structure;
        for (std::vector<const Node*> work{yield}; !work.empty();) {
            const Node* n = work.back();
            work.pop_back();
            if (n == x || !structure.insert(n).second) continue;
            for (const Node* o : n->operands) work.push_back(o);
        }
        std::unordered_set<const Node*> state = {carried_.begin(), carried_.end()};
        state.insert(rmax);
        state.insert(rsum);
        for (const Node* n : body.nodes) {
            if (dead(n) || n == output || n == score || n == rmax || n == rsum || n == yield || n->op == OpCode::stage || n->op == OpCode::load ||
                operand_reshapes_.count(n) || unit_reshape(n))
                continue;
            if (!ir::is_elementwise(n->op) && n->op != OpCode::broadcast && n->op != OpCode::full && n->op != OpCode::iota &&
                n->op != OpCode::constant && !scalar(n))
                return no("the loop has a " + std::string(detail::op_name(n->op)) + " besides the online softmax's ops");
            if (scalar(n) && ir::category(n->op) == ir::OpCategory::memory) return no("the loop reads memory besides its three tiles");
            if (!structure.count(n) && depends(n, state)) return no("the loop computes a " + std::string(detail::op_name(n->op)) + " from the carried state besides the online softmax");
            for (const auto& dim : n->type.dims)
                if (dim.extent != 1 && dim.axis != m_.axis_rows && dim.axis != m_.axis_keys && dim.axis != m_.axis_values)
                    return no("a score value has an axis other than rows, keys and value channels");
        }
        // Key origins: t * bk.
        t_ = t;
        return true;
    }

    bool reduces_keys(const Node* r) const {
        auto dims = ir::reduced_dims(*r);
        const Node* x = r->operands[0];
        return dims.size() == 1 && x->type.dims[static_cast<std::size_t>(dims[0])].axis == m_.axis_keys;
    }

    // Whether the kernel may block the keys its own way (key_block_free), else whether
    // it takes the program's key block.
    bool match_key_block() {
        std::string kept;  // why the kernel must keep the program's key block
        const bool index_free = key_block_free(kept);
        // A row maximum that starts at -inf makes a block whose keys are all masked give
        // NaN (exp(-inf - -inf)) when it comes first: the row's output is NaN exactly
        // when the program's first block hides every key, which another blocking would
        // not reproduce (a mask hiding the leading keys: left padding, a window) unless
        // the kernel makes those rows NaN itself (first_block_nan: its blocks then hold
        // whole program blocks).
        const auto init = float_constant(m_.init_max);
        const bool from_minus_infinity = !(init && std::isfinite(*init));
        const bool nan_reproduced = reblock_minus_infinity_ && attention_kernel_key_block(m_.d, m_.dv) % m_.bk == 0;
        m_.key_block_free = index_free && (!from_minus_infinity || nan_reproduced);
        m_.first_block_nan = m_.key_block_free && from_minus_infinity;
        const bool kept_for_nan = index_free && !m_.key_block_free;
        if (kept_for_nan)
            kept = "its row maximum starts at -inf: a first key block whose keys are all masked gives NaN, " +
                   (reblock_minus_infinity_ ? "which the kernel reproduces only on blocks holding whole program blocks, and " +
                                                  std::to_string(m_.bk) + " keys do not divide its " +
                                                  std::to_string(attention_kernel_key_block(m_.d, m_.dv))
                                            : std::string("and KILN_ATTENTION_REBLOCK_MINUS_INFINITY=0 keeps a -inf program's blocks"));
        if (!m_.key_block_free && !attention_kernel_takes_key_block(m_.bk, m_.d, m_.dv))
            return no("the kernel's key block must be the program's (" + kept + "), and " + std::to_string(m_.bk) +
                      " keys is not one it takes with head dimensions " + std::to_string(m_.d) + " and " + std::to_string(m_.dv) +
                      " (64, or 128 with at most 128 value channels and at most 256 channels in all)" +
                      (kept_for_nan ? "; a row maximum starting at a finite floor (-1e30, say) would let the kernel take its own" : ""));
        return true;
    }

    // Whether t reaches only the key and value loads and values over the keys (through
    // index scalars); else `uses` says what it reaches.
    bool key_block_free(std::string& uses) const {
        std::unordered_set<const Node*> index{t_};
        for (const Node* n : m_.loop->body->nodes) {
            if (n == m_.load_k || n == m_.load_v) continue;
            if (std::none_of(n->operands.begin(), n->operands.end(), [&](const Node* o) { return index.count(o) != 0; })) continue;
            const auto axes = axes_of(n);
            if (std::find(axes.begin(), axes.end(), m_.axis_keys) != axes.end()) continue;  // a value per key
            if (scalar(n)) {
                index.insert(n);
                continue;
            }
            const bool rows = std::find(axes.begin(), axes.end(), m_.axis_rows) != axes.end();
            uses = "its key block index reaches a " + std::string(detail::op_name(n->op)) + (rows ? " over the query rows" : " that is not over the keys");
            return false;
        }
        return true;
    }

    // The loads: Q at (lead.., i * bq, 0), K and V at (lead.., t * bk, 0), whole channel rows.
    bool match_loads() {
        // Multiples of 8: whole 16-byte rows for TMA and whole 8-column groups of the
        // output fragments; the kernel pads them to 64-channel boxes (attention_kernel_head_dim).
        if (m_.d % 8 != 0 || m_.d < 8 || m_.d > 256 || m_.dv % 8 != 0 || m_.dv < 8 || m_.dv > 256)
            return no("head dimensions " + std::to_string(m_.d) + " and " + std::to_string(m_.dv) + " are not multiples of 8 up to 256");
        std::unordered_set<const Node*> row_index, t_set{t_};
        const std::pair<const Node*, int> loads[] = {{m_.load_q, m_.q_row_dim}, {m_.load_k, m_.k_row_dim}, {m_.load_v, m_.v_row_dim}};
        for (const auto& [l, row_dim] : loads) {
            const auto* q = view(l, -1, false);
            const int rank = ir::access_rank(*l);
            if (!q || q->kind != m_.in || rank < 2 || rank > 5 || ir::has_fallback(*l) || ir::bounds_policy(*l) == bounds::check)
                return no("a load is not a tile of an f16/bf16 view of rank 2 to 5 with zero fill or assumed bounds");
            if (l->type.rank() != rank) return no("a load's tile rank differs from its view's");
            // (K stored transposed: its channels the second-to-last dim, its keys the last.)
            const int channel_dim = l == m_.load_k && m_.k_transposed ? rank - 2 : rank - 1;
            if (int_constant(l->operands[static_cast<std::size_t>(channel_dim)]) != 0) return no("a load does not start at channel 0");
            for (int i = 0; i + 1 < rank; ++i) {
                if (i == row_dim) continue;
                const Node* o = l->operands[static_cast<std::size_t>(i)];
                if (!scalar(o) || depends(o, t_set) || depends(o, carried_)) return no("a load's leading coordinates are not indices of the nest");
            }
        }
        const Node* q0 = m_.load_q->operands[static_cast<std::size_t>(m_.q_row_dim)];
        bool found = false;
        for (std::size_t a = 0; a < m_.grid->body->args.size(); ++a)
            if (index_times(q0, m_.grid->body->args[a], m_.bq)) {
                m_.row_axis = static_cast<int>(a);
                found = true;
            }
        if (!found) return no("the query tile's row origin is not a grid index * the query block");
        q0_ = q0;
        row_index.insert(m_.grid->body->args[static_cast<std::size_t>(m_.row_axis)]);
        for (const auto& [l, row_dim] : {loads[1], loads[2]}) {
            if (!key_block_origin(l->operands[static_cast<std::size_t>(row_dim)]))
                return no("a key or value tile's origin is not t * the key block (plus one offset of the nest's indices for both)");
            for (int i = 0; i + 1 < ir::access_rank(*l); ++i)
                if (i != row_dim && depends(l->operands[static_cast<std::size_t>(i)], row_index)) return no("a key or value tile depends on the query block");
        }
        for (int i = 0; i + 1 < ir::access_rank(*m_.load_q); ++i)
            if (i != m_.q_row_dim && depends(m_.load_q->operands[static_cast<std::size_t>(i)], row_index))
                return no("the query tile's leading coordinates depend on the query block");
        // The kernel runs one key range a row tile: an offset that moves with the query
        // block needs each of its row tiles inside one query block.
        if (m_.key_offset && depends(m_.key_offset, row_index) && m_.bq % kAttentionKernelRows != 0)
            return no("the key blocks start at an offset that moves with the query block, and the query block (" + std::to_string(m_.bq) +
                      " rows) is not a whole number of the kernel's " + std::to_string(kAttentionKernelRows) + "-row tiles");
        return true;
    }

    // Whether o is the key tiles' origin: t * bk, or t * bk plus an offset (off + t * bk
    // or (s + t) * bk, either operand order; off and s integer scalars of the nest's
    // indices and host scalars), the same offset at every key tile (the first sets it:
    // AttentionMatch::key_offset).
    bool key_block_origin(const Node* o) {
        const std::unordered_set<const Node*> t_set{t_};
        auto offset = [&](const Node* x) { return scalar(x) && !is_float(x->type.kind) && !depends(x, t_set) && !depends(x, carried_); };
        bool found = index_times(o, t_, m_.bk);
        const Node* off = nullptr;
        std::int64_t scale = 1;
        if (!found && o->op == OpCode::add && o->operands.size() == 2)
            for (int side = 0; side < 2 && !found; ++side)
                if (index_times(o->operands[static_cast<std::size_t>(side)], t_, m_.bk) && offset(o->operands[static_cast<std::size_t>(1 - side)])) {
                    off = o->operands[static_cast<std::size_t>(1 - side)];
                    found = true;
                }
        if (!found && o->op == OpCode::mul && o->operands.size() == 2)
            for (int side = 0; side < 2 && !found; ++side) {
                const Node* x = o->operands[static_cast<std::size_t>(1 - side)];
                if (int_constant(o->operands[static_cast<std::size_t>(side)]) != m_.bk || x->op != OpCode::add || x->operands.size() != 2) continue;
                for (int u = 0; u < 2 && !found; ++u)
                    if (x->operands[static_cast<std::size_t>(u)] == t_ && offset(x->operands[static_cast<std::size_t>(1 - u)])) {
                        off = x->operands[static_cast<std::size_t>(1 - u)];
                        scale = m_.bk;
                        found = true;
                    }
            }
        if (!found) return false;
        if (!key_origin_seen_) {
            key_origin_seen_ = true;
            m_.key_offset = off;
            m_.key_offset_scale = scale;
            return true;
        }
        return off == m_.key_offset && scale == m_.key_offset_scale;
    }

    bool match_inits() {
        auto inits = ir::loop_inits(*m_.loop);
        const Node *im = inits[static_cast<std::size_t>(m_.slot_max)], *il = inits[static_cast<std::size_t>(m_.slot_sum)],
                   *ia = inits[static_cast<std::size_t>(m_.slot_acc)];
        if (!float_constant(im) || im->op != OpCode::full) return no("the row maximum does not start as a constant");
        if (il->op != OpCode::full || !float_constant(il)) return no("the row sum does not start as a constant");
        if (ia->op != OpCode::full || float_constant(ia) != 0.0) return no("the accumulator does not start as zeros");
        for (const Node* x : {im, il, ia})
            if (x->type.kind != Kind::F32) return no("the carried state is not f32");
        m_.init_max = im;
        m_.init_sum = il;
        return true;
    }

    // The nest: index scalars, the query load and the inits before the loop; after
    // it, an elementwise epilogue of the loop's results stored at (lead.., q0, 0).
    bool match_nest(const ir::Region& g) {
        std::unordered_set<const Node*> before = {m_.load_q, m_.loop};
        before.insert(operand_reshapes_.begin(), operand_reshapes_.end());
        before.insert(q_prologue_.begin(), q_prologue_.end());
        for (const Node* x : ir::loop_inits(*m_.loop)) before.insert(x);
        std::unordered_set<const Node*> results;
        // Before the loop: the query tile, the inits, index arithmetic, and values of one
        // element a tile (cta_load, and what is computed from them alone).
        std::unordered_set<const Node*> per_tile;
        for (int i = 0; i < m_.loop_position; ++i) {
            const Node* n = g.nodes[static_cast<std::size_t>(i)];
            if (dead(n) || before.count(n) || (scalar(n) && ir::category(n->op) != ir::OpCategory::memory) || n->op == OpCode::constant) continue;
            if (n->op == OpCode::full && scalar(n->operands[0])) continue;
            if (cta_load(n, nullptr)) {
                per_tile.insert(n);
                m_.tile_loads.push_back(n);
                continue;
            }
            const bool from_tile_values = n->type.count() == 1 && (ir::is_elementwise(n->op) || n->op == OpCode::broadcast || unit_reshape(n)) &&
                                          std::all_of(n->operands.begin(), n->operands.end(), [&](const Node* o) { return per_tile.count(o) || scalar(o); });
            if (from_tile_values) {
                per_tile.insert(n);
                continue;
            }
            return no("the nest computes a " + std::string(detail::op_name(n->op)) + " before the loop besides the query tile and values of one element");
        }
        std::unordered_set<const Node*> epilogue;
        for (std::size_t i = static_cast<std::size_t>(m_.loop_position) + 1; i < g.nodes.size(); ++i) {
            const Node* n = g.nodes[i];
            if (dead(n)) continue;
            if (n->op == OpCode::loop_result) {
                results.insert(n);
                epilogue.insert(n);
                continue;
            }
            if (n->op == OpCode::store) {
                const Node* v = n->operands.back();
                const int rank = ir::access_rank(*n);
                const auto* q = view(n, -1, true);
                if (!q || n->operands.size() != static_cast<std::size_t>(rank) + 1) return no("a store is not into a writable view");
                if (!epilogue.count(v)) return no("a stored value is not computed from the loop's results");
                if (v->type.rank() == rank && axes_of(v) == std::vector<int>{m_.axis_rows}) {
                    if (!match_row_store(n)) return false;
                    continue;
                }
                if (rank < 2 || v->type.rank() != rank || axes_of(v) != std::vector<int>{m_.axis_rows, m_.axis_values} || v->type.dims.back().axis != m_.axis_values)
                    return no("a stored tile is not [rows, value channels] nor a value per row");
                const int row_dim = tile_dim(v, m_.axis_rows);
                if (!row_origin(n->operands[static_cast<std::size_t>(row_dim)])) return no("a store's row origin is not the query tile's");
                if (int_constant(n->operands[static_cast<std::size_t>(rank - 1)]) != 0) return no("a store does not start at channel 0");
                if (!stored_kind_and_view(n)) return false;
                m_.stores.push_back(n);
                continue;
            }
            if (scalar(n) && ir::category(n->op) != ir::OpCategory::memory) continue;  // index arithmetic
            bool ok = ir::is_elementwise(n->op) || n->op == OpCode::broadcast || n->op == OpCode::full || n->op == OpCode::constant || unit_reshape(n);
            if (!ok) return no("the epilogue has a " + std::string(detail::op_name(n->op)) + " that is not elementwise");
            for (const auto& dim : n->type.dims)
                if (dim.extent != 1 && dim.axis != m_.axis_rows && dim.axis != m_.axis_values) return no("an epilogue value has an axis other than rows and value channels");
            epilogue.insert(n);
            m_.epilogue.push_back(n);
        }
        if (m_.stores.empty()) return no("nothing is stored after the loop");
        for (const Node* r : results)
            if (r->operands[0] != m_.loop) return no("the epilogue reads another loop's result");
        return true;
    }

    // A load of one element the same for a whole query tile (a head's ALiBi slope, a
    // batch's key length): every dim of its tile a unit one, its coordinates indices of
    // the nest (not of the key block `t`), zero fill, a fallback or assumed bounds. The
    // kernel reads it where the program uses it (cuda/attention_values.cpp).
    bool cta_load(const Node* n, const Node* t) const {
        if (n->op != OpCode::load || n->type.count() != 1 || ir::bounds_policy(*n) == bounds::check) return false;
        const std::unordered_set<const Node*> t_set{t};
        for (int i = 0; i < ir::access_rank(*n); ++i) {
            const Node* o = n->operands[static_cast<std::size_t>(i)];
            if (!scalar(o) || (t && depends(o, t_set)) || depends(o, carried_)) return false;
        }
        return true;
    }

    // A load in the loop that may be a tile over the rows and keys (AttentionMatch::
    // score_loads): its non-unit dims the rows, the keys or both, its coordinates scalars
    // not computed from the carried state, no bounds check the kernel could not raise.
    bool score_tile(const Node* n) const {
        if (n->op != OpCode::load || ir::bounds_policy(*n) == bounds::check || n->type.rank() != ir::access_rank(*n) || !view(n, -1, false)) return false;
        bool any = false;
        for (const auto& d : n->type.dims) {
            if (d.extent == 1) continue;
            if (d.axis != m_.axis_rows && d.axis != m_.axis_keys) return false;
            any = true;
        }
        for (int i = 0; i < ir::access_rank(*n); ++i) {
            const Node* o = n->operands[static_cast<std::size_t>(i)];
            if (!scalar(o) || depends(o, carried_)) return false;
        }
        return any;
    }

    // The tiles over the rows and keys at the blocks' origins: along the rows the query
    // tile's row origin and the whole query block, along the keys t * bk and the whole key
    // block, every unit dim at an index of the nest (not of t).
    bool match_score_loads() {
        const std::unordered_set<const Node*> t_set{t_};
        for (const Node* n : m_.score_loads)
            for (int i = 0; i < ir::access_rank(*n); ++i) {
                const auto& d = n->type.dims[static_cast<std::size_t>(i)];
                const Node* o = n->operands[static_cast<std::size_t>(i)];
                const bool ok = d.extent == 1                 ? !depends(o, t_set)
                                : d.axis == m_.axis_rows ? d.extent == m_.bq && row_origin(o)
                                                         : d.extent == m_.bk && key_block_origin(o);
                if (!ok)
                    return no("a tile the loop loads over the rows and keys is not at the query tile's row origin and the key tiles' origin, "
                              "each whole, its other dims unit ones at indices of the nest");
            }
        return true;
    }

    // Whether a store's row coordinate is the query tile's row origin.
    bool row_origin(const Node* o) const {
        return o == q0_ || index_times(o, m_.grid->body->args[static_cast<std::size_t>(m_.row_axis)], m_.bq);
    }

    // A store's kind and view: f32, f16 or bf16, into a view the loop does not read.
    bool stored_kind_and_view(const Node* st) {
        const Kind k = st->operands.back()->type.kind;
        if (k != Kind::F32 && k != Kind::F16 && k != Kind::BF16) return no("a stored kind is not f32, f16 or bf16");
        const int o = ir::param_index(*st);
        for (const Node* l : {m_.load_q, m_.load_k, m_.load_v})
            if (ir::param_index(*l) == o) return no("the output view is also read by the loop");
        for (const Node* l : m_.tile_loads)
            if (ir::param_index(*l) == o) return no("a stored view is also read before the loop");
        for (const Node* l : m_.score_loads)
            if (ir::param_index(*l) == o) return no("a stored view is also read by the loop");
        return true;
    }

    // A value per query row stored (AttentionMatch::row_stores): its tile's one non-unit
    // dim at the query tile's row origin.
    bool match_row_store(const Node* st) {
        const int row_dim = tile_dim(st->operands.back(), m_.axis_rows);
        if (row_dim < 0 || !row_origin(st->operands[static_cast<std::size_t>(row_dim)])) return no("a store's row origin is not the query tile's");
        if (!stored_kind_and_view(st)) return false;
        m_.row_stores.push_back(st);
        return true;
    }

    // The query operand through the elementwise ops the program applies to the query
    // tile alone before the loop (`q * scale`, `cast<bf16>(cast<f32>(q) * scale)`: each
    // op's other operands constants or scalars of the nest), which the kernel applies to
    // the tile in shared memory (AttentionMatch::q_prologue); else as operand_load.
    const Node* query_load(const Node* root) {
        std::vector<const Node*> chain;
        const Node* n = operand_load(root);
        while (n->op != OpCode::load && ir::is_elementwise(n->op) && !n->type.dims.empty()) {
            const Node* tile = nullptr;
            for (const Node* o : n->operands) {
                const bool per_nest = scalar(o) || float_constant(unbroadcast(o)) || (o->op == OpCode::full && scalar(o->operands[0])) ||
                                      (o->op == OpCode::broadcast && scalar(o->operands[0]));
                if (per_nest) continue;
                if (tile) return n;  // two tiles: not the query's own ops
                tile = o;
            }
            if (!tile || axes_of(tile) != axes_of(n)) return n;
            chain.push_back(n);
            n = operand_load(tile);
        }
        if (n->op == OpCode::load && !chain.empty()) {
            m_.q_prologue = root;
            q_prologue_.insert(chain.begin(), chain.end());
        }
        return n;
    }

    // An operand of a product through the unit reshapes around it (unit_reshape), which
    // are kept in operand_reshapes_: the kernel reads the load itself.
    const Node* operand_load(const Node* n) {
        for (; unit_reshape(n); n = n->operands[0]) operand_reshapes_.insert(n);
        return n;
    }

    bool reblock_minus_infinity_ = false;
    std::unordered_set<const Node*> carried_, grid_indices_, operand_reshapes_;
    std::unordered_set<const Node*> q_prologue_;  // the query tile's own ops (query_load)
    const Node* t_ = nullptr;
    const Node* q0_ = nullptr;
    bool key_origin_seen_ = false;  // key_block_origin() has recorded the key tiles' offset
};

}  // namespace

int tile_dim(const Node* n, int axis) {
    for (int d = 0; d < n->type.rank(); ++d)
        if (n->type.dims[static_cast<std::size_t>(d)].axis == axis && n->type.dims[static_cast<std::size_t>(d)].extent != 1) return d;
    return -1;
}

std::int64_t attention_kernel_head_dim(std::int64_t d) { return (d + 63) / 64 * 64; }

int attention_kernel_key_block(std::int64_t d, std::int64_t dv) {
    d = attention_kernel_head_dim(d);
    dv = attention_kernel_head_dim(dv);
    return dv <= 128 && d + dv <= 256 ? 128 : 64;
}

bool attention_kernel_takes_key_block(std::int64_t bk, std::int64_t d, std::int64_t dv) {
    return bk == 64 || (bk == 128 && attention_kernel_key_block(d, dv) == 128);
}

std::optional<AttentionMatch> match_attention(const ir::Program& p, std::string* why, bool reblock_minus_infinity, const LiveNodes* live) {
    return Matcher(p, reblock_minus_infinity, live).run(why);
}

}  // namespace kiln::passes
