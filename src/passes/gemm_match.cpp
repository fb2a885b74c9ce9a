#include "passes/gemm_match.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "ir/attrs.h"
#include "passes/dataflow_match.h"
#include "passes/host_scalars.h"
#include "passes/tile_map.h"

namespace kiln::passes {

using detail::OpCode;
using ir::Node;

namespace {

bool scalar(const Node* n) { return is_scalar(n); }

// A rank-0 computation that touches no memory: index arithmetic the kernel does
// not need (the GEMM kernel derives its own coordinates).
bool harmless_scalar(const Node* n) { return scalar(n) && ir::category(n->op) != ir::OpCategory::memory && n->op != OpCode::loop; }

bool zero_tile(const Node* n) {
    if (n->op == OpCode::full) {
        const Node* x = n->operands[0];
        if (x->op != OpCode::constant || !x->data) return false;
        return (x->data->floats.size() == 1 && x->data->floats[0] == 0.0) || (x->data->ints.size() == 1 && x->data->ints[0] == 0);
    }
    if (n->op != OpCode::constant || !n->data) return false;
    if (!n->data->ints.empty()) return std::all_of(n->data->ints.begin(), n->data->ints.end(), [](std::int64_t v) { return v == 0; });  // an i32 accumulator's
    if (n->data->floats.empty()) return false;
    return std::all_of(n->data->floats.begin(), n->data->floats.end(), [](double v) { return v == 0.0; });
}

// n, or what n renames: a broadcast that keeps every dim in its place with its
// extent (seed 000's `dot` gives a product of anonymous dims, which an add with a
// tile of named axes broadcasts to those names, element for element).
const Node* unrenamed(const Node* n) {
    if (n->op != OpCode::broadcast) return n;
    const Node* x = n->operands[0];
    const auto map = ir::dim_map(*n);
    if (x->type.kind != n->type.kind || x->type.rank() != n->type.rank() || map.size() != x->type.dims.size()) return n;
    for (std::size_t d = 0; d < map.size(); ++d)
        if (map[d] != static_cast<std::int64_t>(d) || x->type.dims[d].extent != n->type.dims[d].extent) return n;
    return x;
}

// A scalar constant +0 (not -0: a fallback of -0 gives -0 products where the kernel's
// fill gives +0).
bool positive_zero(const Node* n) {
    if (n->op != OpCode::constant || !n->data || n->type.rank() != 0) return false;
    if (n->data->floats.size() == 1) return n->data->floats[0] == 0.0 && !std::signbit(n->data->floats[0]);
    return n->data->ints.size() == 1 && n->data->ints[0] == 0;
}

// "a load", "an iota": the op's name with its article, for reasons.
std::string a_or_an(std::string_view op) {
    const bool vowel = !op.empty() && std::string_view("aeiou").find(op[0]) != std::string_view::npos;
    return (vowel ? "an " : "a ") + std::string(op);
}

// x unless it is a tile of +0 (a fill of the constant: zeros<T>(...), or 0.0f beside a tile).
bool positive_zero_tile(const Node* x) {
    if (x->op == OpCode::full) return positive_zero(x->operands[0]);
    return positive_zero(x);
}

// The conditions of a mask: through broadcasts and logical ands.
void conditions(const Node* c, std::vector<const Node*>& out, std::unordered_set<const Node*>& parts) {
    parts.insert(c);
    if (c->op == OpCode::broadcast) return conditions(c->operands[0], out, parts);
    if (c->op == OpCode::logical_and && c->type.kind == Kind::Bool) {
        for (const Node* o : c->operands) conditions(o, out, parts);
        return;
    }
    out.push_back(c);
}

// `x` read through select(mask, load, +0) with every condition of the mask
// `iota(a) + origin < limit` (or `limit > iota(a) + origin`), a one of the load's
// axes and origin its origin along it: the load, with the masks appended; x when
// it is no select; null when it is masked some other way.
const Node* unmasked(const Node* x, std::vector<GemmMask>& masks, std::unordered_set<const Node*>& parts) {
    if (x->op != OpCode::select) return x;
    const Node *load = x->operands[1], *other = x->operands[2];
    if (load->op != OpCode::load || !positive_zero_tile(other) || ir::access_rank(*load) != load->type.rank()) return nullptr;
    std::vector<const Node*> conds;
    std::unordered_set<const Node*> seen{x, other};
    if (other->op == OpCode::full) seen.insert(other->operands[0]);
    conditions(x->operands[0], conds, seen);
    std::vector<GemmMask> found;
    for (const Node* c : conds) {
        const bool less = c->op == OpCode::lt;
        if ((!less && c->op != OpCode::gt) || c->operands.size() != 2) return nullptr;
        const Node *index = c->operands[less ? 0 : 1], *limit = c->operands[less ? 1 : 0];
        if (index->op != OpCode::add || index->operands.size() != 2 || !is_scalar(limit) || !host_evaluable(*limit)) return nullptr;
        const Node* iota = index->operands[0]->op == OpCode::iota ? index->operands[0] : index->operands[1];
        const Node* origin = iota == index->operands[0] ? index->operands[1] : index->operands[0];
        if (iota->op != OpCode::iota || iota->type.rank() != 1 || !is_scalar(origin)) return nullptr;
        int dim = -1;
        for (int d = 0; d < load->type.rank(); ++d)
            if (load->type.dims[static_cast<std::size_t>(d)].axis == iota->type.dims[0].axis) dim = d;
        if (dim < 0 || load->operands[static_cast<std::size_t>(dim)] != origin) return nullptr;
        found.push_back({ir::param_index(*load), dim, limit});
        seen.insert({c, index, iota});
    }
    masks.insert(masks.end(), found.begin(), found.end());
    parts.insert(seen.begin(), seen.end());
    return load;
}

// An mma operand's load: x unmasked, or, where x is a transpose of a 2-D tile (a
// user's `transpose(At[k0, m0])`, A stored [K, M]), the transposed tile unmasked;
// `swapped` says which. The transpose joins `parts` (the kernel reads the tile
// transposed: it computes no permute).
//
// A 16-bit operand widened to f32 first (`cast<f32>(A[m0, k0])` into an f32 mma, as
// a port of code that multiplies in f32 writes it) is read as it is stored: the cast
// is exact and so is each product of two widened f16/bf16 values in f32, the sums
// tensor cores form from the 16-bit elements. The cast joins `parts`.
const Node* exactly_widened(const Node* x, std::unordered_set<const Node*>& parts) {
    if (x->op != OpCode::cast || x->type.kind != Kind::F32) return x;
    const Kind from = x->operands[0]->type.kind;
    if (from != Kind::F16 && from != Kind::BF16) return x;
    parts.insert(x);
    return x->operands[0];
}

const Node* operand_load(const Node* x, std::vector<GemmMask>& masks, std::unordered_set<const Node*>& parts, bool& swapped) {
    swapped = false;
    const Node* u = unmasked(exactly_widened(x, parts), masks, parts);
    if (u && u->type.rank() == 2 && unit_reshape(u) && u->operands[0]->op == OpCode::load) {  // a [1.., m, k] tile of a batched view
        parts.insert(u);
        return u->operands[0];
    }
    if (u && u->op == OpCode::permute && u->type.rank() == 2 && ir::dim_map(*u)[0] == 1) {  // the only 2-D permute besides the identity
        parts.insert(u);
        swapped = true;
        u = unmasked(exactly_widened(u->operands[0], parts), masks, parts);
    }
    return u;
}

EpilogueVaries join(EpilogueVaries a, EpilogueVaries b) {
    if (a == b || b == EpilogueVaries::scalar) return a;
    if (a == EpilogueVaries::scalar) return b;
    return EpilogueVaries::tile;  // rows with cols, or anything with tile
}

class Matcher : public DataflowMatcher<GemmMatch> {
public:
    using DataflowMatcher::DataflowMatcher;

    std::optional<GemmMatch> run(std::string* why) { return verdict(match(), why); }

private:
    bool match() {
        const Node* grid = p_.grid;
        if (!grid || ir::loop_rank(*grid) < 1 || ir::loop_rank(*grid) > 5 || !ir::loop_inits(*grid).empty())
            return no("no parallel nest over (m-block, n-block) tiles (with up to 3 batch axes, or 1-D over the tiles)");
        m_.grid = grid;
        for (const Node* n : p_.body.nodes)
            if (n != grid && !dead(n) && !harmless_scalar(n)) return no("work outside the parallel nest");
        const ir::Region& g = *grid->body;
        const Node *loop = nullptr, *result = nullptr;
        for (const Node* n : g.nodes) {
            if (dead(n)) continue;
            if (n->op == OpCode::loop) {
                if (loop) return no("more than one loop in the nest");
                loop = n;
            } else if (n->op == OpCode::store) {
                m_.stores.push_back(n);
            } else if (n->op == OpCode::loop_result) {
                result = n;
            }
        }
        if (!loop && !m_.stores.empty()) return match_single(g);
        if (!loop || !result || m_.stores.empty()) return no("no k loop with a carried accumulator and a store");
        if (!match_loop(loop)) return false;
        if (result->operands[0] != loop || ir::slot(*result) != 0) return no("the stored value is not the k loop's result");
        m_.loop = loop;
        m_.result = result;
        m_.k_loop = static_cast<int>(std::find(g.nodes.begin(), g.nodes.end(), loop) - g.nodes.begin());
        if (!match_epilogue(g)) return false;
        return true;
    }

    bool match_loop(const Node* loop) {
        if (ir::loop_kind(*loop) == detail::LoopKind::parallel || ir::loop_rank(*loop) != 1 || ir::loop_inits(*loop).size() != 1)
            return no("the k loop is not a 1-D loop carrying one value");
        // The accumulator may start from a tile other than zeros (C += A B; a bias
        // broadcast): with reassociation allowed its start is one more term of the
        // sum, which the kernel adds in the epilogue (match_epilogue classifies it).
        const Node* init = ir::loop_inits(*loop)[0];
        if ((init->type.kind != Kind::F32 && init->type.kind != Kind::I32) || init->type.rank() != 2)
            return no("the accumulator is not an f32 (or, for i8 operands, i32) tile");
        init_ = init;
        if (!zero_tile(init)) m_.init = init;
        const ir::Region& body = *loop->body;
        const Node *t = body.args[0], *acc = body.args[1];
        const Node *mma = nullptr, *yield = nullptr;
        for (const Node* n : body.nodes) {
            if (dead(n)) continue;
            if (n->op == OpCode::mma) {
                if (mma) return no("the k loop has more than one mma");
                mma = n;
            } else if (n->op == OpCode::yield) {
                yield = n;
            }
        }
        if (!mma || !yield || yield->operands.size() != 1) return no("the k loop is not acc = mma(load, load, acc)");
        // acc = acc + mma(a, b, 0) (Triton's `acc += tl.dot(a, b)`): the product of the
        // step from zero, added to the accumulator. With reassociation allowed the
        // add is one more term of the mma's sum, so it is acc = mma(a, b, acc).
        // (Seed 000's `acc = acc + dot(a, b)` too: the product renamed to the
        // accumulator's axes, unrenamed().)
        const Node* sum = yield->operands[0] == mma ? nullptr : yield->operands[0];
        const Node* renamed = nullptr;  // the broadcast naming the product's dims, if any
        if (sum && sum->op == OpCode::add && sum->operands.size() == 2)
            for (const Node* o : sum->operands)
                if (o != mma && unrenamed(o) == mma) renamed = o;
        if (sum && !(sum->op == OpCode::add && sum->operands.size() == 2 && zero_tile(mma->operands[2]) &&
                     (renamed ? renamed->type : mma->type) == sum->type &&
                     ((sum->operands[0] == acc && unrenamed(sum->operands[1]) == mma) ||
                      (unrenamed(sum->operands[0]) == mma && sum->operands[1] == acc))))
            return no("the k loop is not acc = mma(load, load, acc) or acc = acc + mma(load, load, 0)");
        // Operands read under masks the views' zero fill makes redundant, or transposed
        // (operand_load()).
        bool a_swapped = false, b_swapped = false;
        const Node *a = operand_load(mma->operands[0], m_.masks, mask_parts_, a_swapped), *b = operand_load(mma->operands[1], m_.masks, mask_parts_, b_swapped);
        if (!a || !b) return no("an operand is masked otherwise than by index < a scalar along its own axes, with +0 elsewhere");
        for (const Node* n : body.nodes) {
            if (dead(n) || n == mma || n == yield || n == sum || n == renamed || (sum && n == mma->operands[2]) || mask_parts_.count(n)) continue;
            if (n->op != OpCode::load && n->op != OpCode::stage && !harmless_scalar(n))
                return no("the k loop has " + a_or_an(detail::op_name(n->op)) + " besides the GEMM");
        }
        if ((sum ? !zero_tile(mma->operands[2]) : mma->operands[2] != acc) || a->op != OpCode::load || b->op != OpCode::load || a == b)
            return no("the mma's operands are not the loop's loads and accumulator");
        for (const Node* n : body.nodes)
            if (!dead(n) && n->op == OpCode::load && n != a && n != b) return no("the k loop loads more than the mma's operands");
        return match_product(mma, a, b, t, a_swapped, b_swapped);
    }

    // No k loop: the whole k range in one tile, acc = mma(A[m0, 0], B[0, n0], start)
    // in the nest itself (the start zeros, or a tile the epilogue adds, as a loop's).
    // The kernel takes it as a k loop of one step (the launch: k_loop < 0).
    bool match_single(const ir::Region& g) {
        const Node* mma = nullptr;
        for (const Node* n : g.nodes)
            if (!dead(n) && n->op == OpCode::mma) {
                if (mma) return no("no k loop, and more than one mma in the nest");
                mma = n;
            }
        if (!mma) return no("no k loop with a carried accumulator and a store");
        const Node* start = mma->operands[2];
        if ((start->type.kind != Kind::F32 && start->type.kind != Kind::I32) || start->type.rank() != 2)
            return no("the accumulator is not an f32 (or, for i8 operands, i32) tile");
        init_ = start;
        if (!zero_tile(start)) m_.init = start;
        bool a_swapped = false, b_swapped = false;
        const Node *a = operand_load(mma->operands[0], m_.masks, mask_parts_, a_swapped), *b = operand_load(mma->operands[1], m_.masks, mask_parts_, b_swapped);
        if (!a || !b) return no("an operand is masked otherwise than by index < a scalar along its own axes, with +0 elsewhere");
        if (a->op != OpCode::load || b->op != OpCode::load || a == b) return no("the mma's operands are not loads");
        mask_parts_.insert({a, b});  // the product's own nodes, which the epilogue does not compute
        if (!match_product(mma, a, b, nullptr, a_swapped, b_swapped)) return false;
        m_.result = mma;
        m_.k_loop = -1;
        return match_epilogue(g);
    }

    // The product's operands and their origins: A at (m0, t * bk), or (t * bk, m0) when
    // stored [K, M]; B at (t * bk, n0), or (n0, t * bk) when stored [N, K]; with no k
    // loop (t null), at k 0. The mma reads each load, or its transpose (`a_swapped`,
    // `b_swapped`: operand_load()).
    bool match_product(const Node* mma, const Node* a, const Node* b, const Node* t, bool a_swapped, bool b_swapped) {
        // i8 x i8 -> i32: products exact, sums modulo 2^32 the same in any order, so
        // the kernel's order needs no permission (passes/contraction.cpp).
        const bool integer = a->type.kind == Kind::I8 && b->type.kind == Kind::I8 && mma->type.kind == Kind::I32;
        if (!integer && !ir::mma_options(*mma).allow_reassociation) return no("the mma does not allow reassociation");
        const ir::MmaDims dims = ir::mma_dims(*mma);
        // Which dim of each operand is the contracted one (`mma` contracts by the shared
        // axis, so a user writes A^T B as mma(A[k0, m0] of [k, m], B[k0, n0] of [k, n])).
        if (dims.out.size() != 2 || dims.contract.size() != 1 || dims.out[0].b != -1 || dims.out[1].a != -1)
            return no("the mma is not a product of A[m, k] (or [k, m]) and B[k, n] (or [n, k])");
        const bool a_operand_t = dims.contract[0].a == 0, b_operand_t = dims.contract[0].b == 1;
        if (dims.out[0].a != (a_operand_t ? 1 : 0) || dims.out[1].b != (b_operand_t ? 0 : 1))
            return no("the mma is not a product of A[m, k] (or [k, m]) and B[k, n] (or [n, k])");
        const bool at = a_operand_t != a_swapped, bt = b_operand_t != b_swapped;  // how the loads lie in memory
        if (!integer) {
            // f32 operands where the mma allows tf32: wgmma's tf32 reads them as tf32.
            const bool tf32 = a->type.kind == Kind::F32 && ir::mma_options(*mma).allow_tf32;
            if (a->type.kind != b->type.kind || (a->type.kind != Kind::F16 && a->type.kind != Kind::BF16 && !tf32))
                return no(a->type.kind == Kind::F32 && b->type.kind == Kind::F32 ? "f32 operands without allow_tf32"
                                                                                 : "the operands are not both f16, both bf16, both i8 or both f32 (with allow_tf32)");
            if (mma->type.kind != Kind::F32) return no("the accumulator is not f32");
        }
        // (wgmma transposes 16-bit operands only: 8-bit and tf32 ones stored with k
        // outermost are copied transposed at each launch, targets/cuda/gemm_staging.h.)
        // A load with a fallback of +0 (`.load(0.0f)`) reads what the bounds policy's
        // zero fill reads: the kernel's TMA fills out-of-range elements with +0.
        // (A view of rank r > 2: a [1.., rows, cols] tile, its leading coordinates the
        // batch's, checked once the batch axes are known.)
        for (const Node* l : {a, b}) {
            const int rank = ir::access_rank(*l);
            const auto* q = view(l, rank, false);
            const std::size_t coords = static_cast<std::size_t>(rank) + (ir::has_fallback(*l) ? 1 : 0);
            if (rank < 2 || rank > 5 || l->type.rank() != rank || l->operands.size() != coords || !q || q->kind != l->type.kind)
                return no("a load is not a plain 2-D tile of a view");
            for (int d = 0; d + 2 < rank; ++d)
                if (l->type.dims[static_cast<std::size_t>(d)].extent != 1) return no("a load is not a plain 2-D tile of a view (besides unit leading dims)");
            if (ir::has_fallback(*l) && !positive_zero(l->operands.back())) return no("a load's fallback is not +0 (the kernel fills with +0)");
        }
        const std::size_t ao = static_cast<std::size_t>(ir::access_rank(*a) - 2), bo = static_cast<std::size_t>(ir::access_rank(*b) - 2);
        std::int64_t bm = a->type.dims[ao + (at ? 1 : 0)].extent, bk = a->type.dims[ao + (at ? 0 : 1)].extent,
                     bn = b->type.dims[bo + (bt ? 0 : 1)].extent;
        const Node *a_m = a->operands[ao + (at ? 1 : 0)], *a_k = a->operands[ao + (at ? 0 : 1)];
        const Node *b_k = b->operands[bo + (bt ? 1 : 0)], *b_n = b->operands[bo + (bt ? 0 : 1)];
        if (t ? !index_times(a_k, t, bk) || !index_times(b_k, t, bk) : int_constant(a_k) != 0 || int_constant(b_k) != 0)
            return no(t ? "the k origins are not t * bk" : "no k loop, and the operands' k origins are not 0");
        const int rank = ir::loop_rank(*m_.grid);
        if (rank >= 2) {
            const auto& args = m_.grid->body->args;
            m_.m_axis = m_.n_axis = -1;
            for (int i = 0; i < rank; ++i)
                for (int j = 0; j < rank; ++j)
                    if (i != j && m_.m_axis < 0 && index_times(a_m, args[static_cast<std::size_t>(i)], bm) &&
                        index_times(b_n, args[static_cast<std::size_t>(j)], bn)) {
                        m_.m_axis = i;
                        m_.n_axis = j;
                    }
            if (m_.m_axis < 0) return no("the block origins are not grid index * tile extent");
            for (int i = 0; i < rank; ++i)
                if (i != m_.m_axis && i != m_.n_axis) m_.batch_axes.push_back(i);
            m_index_ = args[static_cast<std::size_t>(m_.m_axis)];
            n_index_ = args[static_cast<std::size_t>(m_.n_axis)];
        } else if (!match_flat_grid(times(a_m, bm), times(b_n, bn))) {
            return false;
        }
        for (const Node* l : {a, b})
            for (int d = 0; d + 2 < ir::access_rank(*l); ++d)
                if (!batch_scalar(l->operands[static_cast<std::size_t>(d)])) return no("a leading coordinate of an operand is not a scalar of the batch indices");
        m_.load_a = a;
        m_.load_b = b;
        m_.mma = mma;
        m_.a_mmajor = at;
        m_.b_kmajor = bt;
        m_.bm = bm;
        m_.bn = bn;
        m_.bk = bk;
        m_.m0 = a_m;
        m_.n0 = b_n;
        return true;
    }

    // A 1-D grid over the tiles (a Triton port's pid): the m-block pid / G and the
    // n-block pid % G, or the other way round, with G a host scalar (the tiles a
    // row of blocks has). The kernel orders tiles its own way; the launch checks the
    // grid is whole rows of G (launch_args.cpp: gemm_problem).
    bool match_flat_grid(const Node* mi, const Node* ni) {
        const Node* pid = m_.grid->body->args[0];
        auto part = [&](const Node* x, OpCode op) {
            return x && x->op == op && x->operands.size() == 2 && x->operands[0] == pid && scalar(x->operands[1]) && host_evaluable(*x->operands[1]);
        };
        const bool m_by_div = part(mi, OpCode::div) && part(ni, OpCode::mod);
        if ((!m_by_div && !(part(mi, OpCode::mod) && part(ni, OpCode::div))) || mi->operands[1] != ni->operands[1]) {
            if (match_tile_map(mi, ni)) return true;
            return no("the block origins of a 1-D grid are not (pid / G) * bm and (pid % G) * bn (or the other way round), nor block indices of "
                      "integer arithmetic of pid");
        }
        m_.flat_m_by_div = m_by_div;
        m_.tiles_per_row = mi->operands[1];
        const auto& nodes = m_.grid->body->nodes;
        m_.flat_split = static_cast<int>(std::find(nodes.begin(), nodes.end(), mi) - nodes.begin());
        if (m_.flat_split == static_cast<int>(nodes.size())) return no("the block index of a 1-D grid is not computed in its nest");
        m_index_ = mi;
        n_index_ = ni;
        return true;
    }

    // Any other order of the tiles over a 1-D grid (Triton's grouped order for L2
    // reuse, a swizzle): the m- and n-block indices integer arithmetic of pid and host
    // scalars (+ - * / %, min, max). Which tiles it visits depends on the launch's
    // values, so the launch evaluates it for every pid and takes the grid only where
    // it visits each tile of a rectangle once (launch_args.cpp: tile_map_grid); the
    // kernel then orders the tiles its own way, as for (pid / G, pid % G).
    bool match_tile_map(const Node* mi, const Node* ni) {
        const Node* pid = m_.grid->body->args[0];
        if (!mi || !ni || !tile_map_value(*mi, pid) || !tile_map_value(*ni, pid)) return false;
        const auto& nodes = m_.grid->body->nodes;
        auto position = [&](const Node* x) { return static_cast<int>(std::find(nodes.begin(), nodes.end(), x) - nodes.begin()); };
        const int pm = position(mi), pn = position(ni);
        if (pm == static_cast<int>(nodes.size()) || pn == static_cast<int>(nodes.size())) return false;  // pid itself, or a host scalar
        m_.tile_map_m = pm;
        m_.tile_map_n = pn;
        m_index_ = mi;
        n_index_ = ni;
        return true;
    }

    // A scalar the kernel computes per batch: host scalars, the batch axes' indices and
    // index arithmetic of them (b, b / G, h + H * b), nothing the m- or n-blocks, the k
    // loop or memory gives.
    bool batch_scalar(const Node* n) const {
        if (!scalar(n) || is_float(n->type.kind)) return false;
        if (host_evaluable(*n)) return true;
        const auto& args = m_.grid->body->args;
        for (int ax : m_.batch_axes)
            if (n == args[static_cast<std::size_t>(ax)]) return true;
        if (!harmless_scalar(n) || n->operands.empty() || ir::category(n->op) == ir::OpCategory::leaf || !ir::is_elementwise(n->op)) return false;
        return std::all_of(n->operands.begin(), n->operands.end(), [&](const Node* o) { return batch_scalar(o); });
    }

    // x where n = x * extent (either operand order), else null.
    static const Node* times(const Node* n, std::int64_t extent) {
        if (n->op != OpCode::mul || n->operands.size() != 2) return nullptr;
        if (int_constant(n->operands[1]) == extent) return n->operands[0];
        if (int_constant(n->operands[0]) == extent) return n->operands[1];
        return nullptr;
    }

    // Origin `o` is the block's m (or n) origin: the same node the loads use, or
    // the same block index times the same tile extent.
    bool is_origin(const Node* o, bool m) const {
        const Node* ref = m ? m_.m0 : m_.n0;
        return o == ref || index_times(o, m ? m_index_ : n_index_, m ? m_.bm : m_.bn);
    }

    // Classifies the epilogue: every value the stores read, back to the loop's
    // result, host-evaluable scalars and the epilogue's own loads.
    bool match_epilogue(const ir::Region& g) {
        const auto& acc_dims = m_.result->type.dims;
        std::unordered_map<const Node*, EpilogueVaries> varies{{m_.result, EpilogueVaries::tile}};
        std::unordered_set<const Node*> in_nest(g.nodes.begin(), g.nodes.end());
        // Program order: operands come before their uses.
        for (const Node* n : g.nodes) {
            if (dead(n) || n == m_.loop || n == m_.result || (n == init_ && !m_.init) || n->op == OpCode::yield || mask_parts_.count(n)) continue;
            if (n->op == OpCode::store) {
                const int rank = ir::access_rank(*n);
                if (rank < 2 || rank > 5 || !view(n, rank, true) || n->operands.size() != static_cast<std::size_t>(rank) + 1)
                    return no("a store is not into a writable view of rank 2 to 5");
                const Node* v = n->operands.back();
                // A batched view's [1.., bm, bn]: the value an epilogue tile through a unit reshape (below).
                if (rank > 2) {
                    if (!unit_reshapes_.count(v)) return no("a store into a view of rank " + std::to_string(rank) + " is not of an epilogue tile with unit leading dims");
                    for (int d = 0; d + 2 < rank; ++d)
                        if (v->type.dims[static_cast<std::size_t>(d)].extent != 1 || !batch_scalar(n->operands[static_cast<std::size_t>(d)]))
                            return no("a store's leading dims are not unit ones at scalars of the batch indices");
                    v = v->operands[0];
                }
                // Ct[n0, m0] of [bn, bm]: the value a permute of an epilogue tile (below).
                const bool transposed = rank == 2 && transposed_.count(v) != 0;
                if (transposed) v = v->operands[0];
                const std::size_t o = static_cast<std::size_t>(rank - 2);
                if (!is_origin(n->operands[o], !transposed) || !is_origin(n->operands[o + 1], transposed))
                    return no("a store is not at the tile's block origin");
                if (v->type.dims != acc_dims) return no("a store's tile is not the accumulator's shape");
                if (!varies.count(v)) return no("a stored value is not computed from the accumulator by the epilogue");
                Kind k = v->type.kind;
                if (k != Kind::F32 && k != Kind::F16 && k != Kind::BF16 && k != Kind::I32) return no("a stored kind is not f32, f16, bf16 or i32");
                if (ir::param_index(*n) == ir::param_index(*m_.load_a) || ir::param_index(*n) == ir::param_index(*m_.load_b))
                    return no("an output view is also an operand of the mma");
                m_.stores_transposed.push_back(transposed);
                continue;
            }
            // An epilogue tile with its two dims swapped, for a store into a view whose
            // rows are the tile's columns: the kernel stores the element at (r, c) at
            // (c, r) instead. Any other use finds it outside the epilogue's values.
            if (n->op == OpCode::permute && n->type.rank() == 2 && ir::dim_map(*n)[0] == 1 && varies.count(n->operands[0]) &&
                n->operands[0]->type.dims == acc_dims) {
                transposed_.insert(n);
                continue;
            }
            // An epilogue tile with unit leading dims added, for a store into a batched view.
            if (unit_reshape(n) && n->type.rank() > 2 && varies.count(n->operands[0]) && acc_shaped(n->operands[0]->type.dims)) {
                unit_reshapes_.insert(n);
                continue;
            }
            if (harmless_scalar(n) && host_evaluable(*n)) continue;
            if (harmless_scalar(n) && !uses_any(n, varies)) continue;  // index arithmetic of the nest
            auto v = classify(n, varies, acc_dims);
            if (!v) {
                // A value nothing in the epilogue reads (dead code) is harmless.
                if (!read_by_later(n, g)) continue;
                return false;
            }
            varies[n] = *v;
            m_.epilogue.push_back({n, *v, n->op == OpCode::iota ? EpiloguePosition::iota : EpiloguePosition::none});
        }
        return true;
    }

    static bool uses_any(const Node* n, const std::unordered_map<const Node*, EpilogueVaries>& known) {
        return std::any_of(n->operands.begin(), n->operands.end(), [&](const Node* o) { return known.count(o) != 0; });
    }
    static bool read_by_later(const Node* n, const ir::Region& g) {
        bool after = false;
        for (const Node* x : g.nodes) {
            if (x == n) after = true;
            else if (after && std::find(x->operands.begin(), x->operands.end(), n) != x->operands.end()) return true;
        }
        return false;
    }

    // What an epilogue node varies with, or nullopt (with why_) when the kernel
    // cannot compute it per output element. The block origins it reads join `varies`
    // (and m_.epilogue) as they are found.
    std::optional<EpilogueVaries> classify(const Node* n, std::unordered_map<const Node*, EpilogueVaries>& varies,
                                           const std::vector<detail::Dim>& acc_dims) {
        auto operand = [&](const Node* o) -> std::optional<EpilogueVaries> {
            if (auto it = varies.find(o); it != varies.end()) return it->second;
            if (scalar(o) && host_evaluable(*o)) return EpilogueVaries::scalar;
            // The block's origin (Triton's offs_m = pid_m * BM + arange): the kernel
            // computes it from the output's row or column, once, before its first use.
            for (const bool m : {true, false})
                if (scalar(o) && !is_float(o->type.kind) && is_origin(o, m)) {
                    const auto v = m ? EpilogueVaries::rows : EpilogueVaries::cols;
                    varies[o] = v;
                    m_.epilogue.push_back({o, v, EpiloguePosition::origin});
                    return v;
                }
            return std::nullopt;
        };
        std::string op(detail::op_name(n->op));
        if (n->op == OpCode::load) {
            if (ir::has_fallback(*n) && !operand(n->operands.back())) return no_v("the epilogue load's fallback is not a scalar");
            const int rank = ir::access_rank(*n);
            if (!view(n, rank, false) || n->type.rank() != rank || rank > 2) return no_v("an epilogue load is not of a 1-D or 2-D view");
            return epilogue_load(*n);
        }
        if (n->op == OpCode::broadcast || n->op == OpCode::full) {
            auto x = operand(n->operands[0]);
            if (!x) return no_v("the epilogue broadcasts a value it cannot compute per element");
            if (!acc_shaped(n->type.dims)) {
                const auto d = non_unit_dims(n->type.dims);
                if (d.size() == 2 && d[0] == acc_dims[1] && d[1] == acc_dims[0])
                    return no_v("the epilogue computes tiles with the accumulator's axes swapped ([n, m]: an operation whose first operand is over n only)");
                return no_v("the epilogue broadcasts to a shape other than the accumulator's");
            }
            if (n->op == OpCode::broadcast && !keeps_roles(*n, *x))
                return no_v("the epilogue broadcasts a vector along the other axis of the tile than the one it was loaded along");
            return x;  // the same value along the broadcast dims
        }
        // iota over the block's rows or columns: the position in the block, r % bm or
        // c % bn. Which one by its axis (the accumulator's m or n dim, axis and extent),
        // so square anonymous blocks, where it could be either, are refused.
        if (n->op == OpCode::iota) {
            const bool rows = n->type.rank() == 1 && n->type.dims[0] == acc_dims[0], cols = n->type.rank() == 1 && n->type.dims[0] == acc_dims[1];
            if (rows == cols) return no_v("the epilogue's iota is not over the tile's rows or its columns (by axis)");
            return rows ? EpilogueVaries::rows : EpilogueVaries::cols;
        }
        if (n->op == OpCode::reshape) {
            auto x = operand(n->operands[0]);
            if (!x || !unit_reshape(n)) return no_v("the epilogue reshapes a value other than by adding or dropping unit dims");
            return x;  // the same elements on the same axes
        }
        if (!ir::is_elementwise(n->op)) return no_v("the epilogue has " + a_or_an(op) + " that is not elementwise");
        EpilogueVaries v = EpilogueVaries::scalar;
        for (const Node* o : n->operands) {
            auto x = operand(o);
            if (!x) return no_v("the epilogue's " + op + " reads a value computed outside the epilogue");
            if (!scalar(o) && o->type.dims != n->type.dims) return no_v("the epilogue's " + op + " mixes shapes");
            v = join(v, *x);
        }
        if (!scalar(n) && !acc_shaped(n->type.dims) && v == EpilogueVaries::tile) return no_v("the epilogue changes the tile's shape");
        return v;
    }

    // What an epilogue load varies with, by its non-unit dims: the output's block
    // (bm at m0, then bn at n0: the accumulator's dims), a vector along the columns (bn
    // at n0) or the rows (bm at m0), or nothing. Its unit dims are at host scalars: a
    // [1, N] bias kept as PyTorch keeps a broadcastable one, an [M, 1] scale, a
    // per-tensor scale read from memory ([1] at 0).
    std::optional<EpilogueVaries> epilogue_load(const Node& n) {
        std::vector<std::size_t> varying;  // the view dims of non-unit extent
        for (std::size_t d = 0; d < n.type.dims.size(); ++d) {
            if (n.type.dims[d].extent != 1) varying.push_back(d);
            else if (!host_scalar(n.operands[d])) return no_v("an epilogue load's unit dim is not at a scalar the host computes");
        }
        const auto extent = [&](std::size_t i) { return n.type.dims[varying[i]].extent; };
        const auto origin = [&](std::size_t i) { return n.operands[varying[i]]; };
        if (varying.size() == 2 && acc_shaped(n.type.dims) && is_origin(origin(0), true) && is_origin(origin(1), false)) return EpilogueVaries::tile;
        if (varying.size() == 1 && extent(0) == m_.bn && is_origin(origin(0), false)) return EpilogueVaries::cols;
        if (varying.size() == 1 && extent(0) == m_.bm && is_origin(origin(0), true)) return EpilogueVaries::rows;
        if (varying.empty()) return EpilogueVaries::scalar;
        return no_v("an epilogue load is not the output's block, nor a vector at its m or n origin (unit dims aside)");
    }

    // The accumulator's tile, maybe with unit dims added (a [1, bn] bias broadcast by a
    // named unit axis carries that axis along): the same elements at the same (r, c).
    bool acc_shaped(const std::vector<detail::Dim>& dims) const { return non_unit_dims(dims) == m_.result->type.dims; }
    static bool host_scalar(const Node* n) { return scalar(n) && host_evaluable(*n); }

    // Whether broadcast b puts its operand where the kernel computes it: the kernel
    // evaluates a value that varies with the rows at the output's row r, one that varies
    // with the columns at its column c. Every non-unit dim of an epilogue value plays
    // one of those two roles (the acc's m, then its n), and a broadcast must keep them: a
    // [bm] vector loaded at n0 and broadcast along m is bias[n0 + r - m0], not bias[c].
    static bool keeps_roles(const Node& b, EpilogueVaries x) {
        const auto map = ir::dim_map(b);
        const auto& from = b.operands[0]->type.dims;
        const auto& to = b.type.dims;
        std::vector<int> roles;  // each non-unit operand dim's place among the result's non-unit dims
        for (std::size_t i = 0; i < from.size(); ++i) {
            if (from[i].extent == 1) continue;
            const auto p = static_cast<std::size_t>(map[i]);
            int role = 0;
            for (std::size_t j = 0; j < p; ++j) role += to[j].extent != 1;
            roles.push_back(role);
        }
        if (roles.size() == 2) return roles == std::vector<int>{0, 1};
        if (roles.size() == 1) {
            if (x == EpilogueVaries::rows) return roles[0] == 0;
            if (x == EpilogueVaries::cols) return roles[0] == 1;
            return x == EpilogueVaries::scalar;  // (a one-dim value cannot vary with the whole tile)
        }
        return true;
    }
    std::optional<EpilogueVaries> no_v(const std::string& why) {
        why_ = why;
        return std::nullopt;
    }

    const Node* init_ = nullptr;
    const Node *m_index_ = nullptr, *n_index_ = nullptr;  // the block indices: grid indices, or a 1-D grid's pid / G and pid % G
    std::unordered_set<const Node*> mask_parts_;  // the operands' masks' nodes (unmasked()), which the kernel does not compute
    std::unordered_set<const Node*> transposed_;  // permutes of epilogue tiles that only a transposed store may read
    std::unordered_set<const Node*> unit_reshapes_;  // epilogue tiles with unit dims added, that only a batched store may read
};

}  // namespace

std::vector<GemmMask> gemm_operand_masks(const ir::Node& mma) {
    std::vector<GemmMask> masks;
    std::unordered_set<const Node*> parts;
    bool swapped = false;
    for (int i = 0; i < 2; ++i) operand_load(mma.operands[static_cast<std::size_t>(i)], masks, parts, swapped);
    return masks;
}

bool GemmMatch::plain_epilogue() const {
    return std::all_of(epilogue.begin(), epilogue.end(), [](const EpilogueValue& v) { return v.node->op == OpCode::cast; });
}

std::optional<GemmMatch> match_gemm(const ir::Program& p, std::string* why, const LiveNodes* live) { return Matcher(p, live).run(why); }

}  // namespace kiln::passes
