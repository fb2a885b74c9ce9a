#include "targets/cuda/attention_values.h"

#include <cmath>

#include "ir/attrs.h"
#include "targets/cuda/emitter.h"
#include "targets/cuda/view_access.h"

namespace kiln::cu {

using detail::OpCode;
using ir::Node;

// A block-uniform condition under which every select of the loop body whose mask
// the interval proofs cover takes its first branch ("" when none is covered).
std::string FragmentValues::interior_condition(const ir::Region& body) {
    std::string all;
    for (const Node* n : body.nodes) {
        if (n->op != OpCode::select || n->operands[0]->type.dims.empty()) continue;
        auto p = proven(n->operands[0]);
        if (!p) continue;
        resolved_.insert(n);
        all += (all.empty() ? "" : " && ") + *p;
    }
    return all.empty() ? "" : "(" + all + ")";
}

// The interval of an integer value over the warpgroup's rows and the block's keys
// (nullopt: not an index expression the proof follows).
std::optional<FragmentValues::Interval> FragmentValues::interval(const Node* n) {
    auto exact = [](const std::string& e) { return Interval{"(long long)(" + e + ")", "(long long)(" + e + ")"}; };
    if (is_float(n->type.kind) || n->type.kind == Kind::Bool) return std::nullopt;
    switch (n->op) {
        case OpCode::region_arg: {
            const auto& g = m_.grid->body->args;
            for (std::size_t a = 0; a < g.size(); ++a)
                if (g[a] == n) return static_cast<int>(a) == m_.row_axis ? Interval{"kiln_gi_lo", "kiln_gi_hi"} : exact("kiln_g" + num(static_cast<std::int64_t>(a)));
            if (n == m_.loop->body->args[0]) {
                if (program_key_blocks()) return exact("kiln_t");
                // The program's key blocks the kernel's block kiln_t overlaps.
                const std::string first = "(long long)kiln_t * " + num(block_keys_) + "LL";
                return Interval{"(" + first + " / " + num(m_.bk) + "LL)", "((" + first + " + " + num(block_keys_ - 1) + "LL) / " + num(m_.bk) + "LL)"};
            }
            return std::nullopt;
        }
        case OpCode::iota: {
            const int axis = n->type.dims[0].axis;
            if (axis == m_.axis_rows) return Interval{"kiln_im_lo", "kiln_im_hi"};
            if (axis == m_.axis_keys) {
                if (program_key_blocks()) return Interval{"0LL", num(block_keys_ - 1) + "LL"};
                // Within one program block (it holds several of the kernel's): where
                // the kernel's block lies in it. Else any key of a program block.
                if (m_.bk % block_keys_ != 0) return Interval{"0LL", num(m_.bk - 1) + "LL"};
                const std::string first = "((long long)kiln_t * " + num(block_keys_) + "LL % " + num(m_.bk) + "LL)";
                return Interval{first, "(" + first + " + " + num(block_keys_ - 1) + "LL)"};
            }
            return std::nullopt;
        }
        case OpCode::constant:
            if (n->type.count() != 1) return std::nullopt;
            return exact(num(n->data->ints[0]) + "LL");
        case OpCode::param:
        case OpCode::view_extent:
        case OpCode::view_stride: return exact(expr(n, Where::cta));
        case OpCode::full:
        case OpCode::broadcast: return interval(n->operands[0]);
        default: break;
    }
    if (n->operands.size() != 2) return std::nullopt;
    auto a = interval(n->operands[0]), b = interval(n->operands[1]);
    if (!a || !b) return std::nullopt;
    auto constant = [](const Node* x) -> std::optional<std::int64_t> {
        while (x->op == OpCode::full || x->op == OpCode::broadcast) x = x->operands[0];
        if (x->op != OpCode::constant || x->type.count() != 1 || is_float(x->type.kind)) return std::nullopt;
        return x->data->ints[0];
    };
    switch (n->op) {
        case OpCode::add: return Interval{"(" + a->lo + " + " + b->lo + ")", "(" + a->hi + " + " + b->hi + ")"};
        case OpCode::sub: return Interval{"(" + a->lo + " - " + b->hi + ")", "(" + a->hi + " - " + b->lo + ")"};
        case OpCode::mul: {
            auto cb = constant(n->operands[1]), ca = constant(n->operands[0]);
            if (cb && *cb >= 0) return Interval{"(" + a->lo + " * " + num(*cb) + "LL)", "(" + a->hi + " * " + num(*cb) + "LL)"};
            if (ca && *ca >= 0) return Interval{"(" + b->lo + " * " + num(*ca) + "LL)", "(" + b->hi + " * " + num(*ca) + "LL)"};
            return std::nullopt;
        }
        case OpCode::div: {  // truncating division by a positive constant is monotone
            auto cb = constant(n->operands[1]);
            if (!cb || *cb <= 0) return std::nullopt;
            return Interval{"(" + a->lo + " / " + num(*cb) + "LL)", "(" + a->hi + " / " + num(*cb) + "LL)"};
        }
        case OpCode::minimum:
        case OpCode::maximum: {  // monotone in both operands
            const char* op = n->op == OpCode::minimum ? " < " : " > ";
            auto pick = [&](const std::string& x, const std::string& y) { return "(" + x + op + y + " ? " + x + " : " + y + ")"; };
            return Interval{pick(a->lo, b->lo), pick(a->hi, b->hi)};
        }
        default: return std::nullopt;
    }
}
// An expression that is true only when boolean n holds at every element of the
// box (a sufficient condition), or nullopt.
std::optional<std::string> FragmentValues::proven(const Node* n) {
    switch (n->op) {
        case OpCode::full:
        case OpCode::broadcast: return proven(n->operands[0]);
        case OpCode::constant:
            if (n->type.count() == 1 && n->data->ints.size() == 1 && n->data->ints[0] != 0) return std::string("true");
            return std::nullopt;
        case OpCode::logical_and: {
            auto a = proven(n->operands[0]), b = proven(n->operands[1]);
            if (!a || !b) return std::nullopt;
            return "(" + *a + " && " + *b + ")";
        }
        case OpCode::logical_or: {
            auto a = proven(n->operands[0]), b = proven(n->operands[1]);
            if (a && b) return "(" + *a + " || " + *b + ")";
            return a ? a : b;
        }
        case OpCode::lt:
        case OpCode::le:
        case OpCode::gt:
        case OpCode::ge: {
            auto a = interval(n->operands[0]), b = interval(n->operands[1]);
            if (!a || !b) return std::nullopt;
            if (n->op == OpCode::lt) return "(" + a->hi + " < " + b->lo + ")";
            if (n->op == OpCode::le) return "(" + a->hi + " <= " + b->lo + ")";
            if (n->op == OpCode::gt) return "(" + a->lo + " > " + b->hi + ")";
            return "(" + a->lo + " >= " + b->hi + ")";
        }
        default: return std::nullopt;
    }
}

// The expression of n's value at the current element of context `w`.
std::string FragmentValues::expr(const Node* n, Where w) {
    if (auto it = rows_.find(n); it != rows_.end()) return it->second + "[h]";
    if (auto it = tiles_.find(n); it != tiles_.end()) return it->second + "[j]";
    if (auto it = values_.find(n); it != values_.end()) return it->second;
    switch (n->op) {
        case OpCode::region_arg: return argument(n, w);
        case OpCode::loop_result: {
            int slot = ir::slot(*n);
            if (slot == m_.slot_max) return "kiln_m[h]";
            if (slot == m_.slot_sum) return "kiln_l[h]";
            return "kiln_o[j]";
        }
        case OpCode::iota: {
            int axis = n->type.dims[0].axis;
            if (axis == m_.axis_rows) return "kiln_im[h]";
            if (axis == m_.axis_keys) return program_key_blocks() ? "(long long)kc" : "(long long)(" + key_index() + " % " + num(m_.bk) + "u)";
            if (axis == m_.axis_values) return "(long long)oc";
            return "0LL";
        }
        case OpCode::constant: {
            if (n->type.count() != 1) internal_fail("cuda attention: a constant table");
            bool fl = is_float(n->type.kind);
            return literal(n->type.kind, fl ? n->data->floats[0] : 0, fl ? 0 : n->data->ints[0]);
        }
        case OpCode::param:
        case OpCode::view_extent:
        case OpCode::view_stride: return view_access::argument(*n);
        case OpCode::full:
        case OpCode::broadcast: return expr(n->operands[0], w);
        // Only reshapes of unit dims reach the kernel (passes/attention_match.cpp: unit_reshape):
        // the same elements on the same axes.
        case OpCode::reshape: return expr(n->operands[0], w);
        case OpCode::load: return tile_load(n);
        default: break;
    }
    if (n == m_.score_mma) return "kiln_s[j]";
    if (interior_ && resolved_.count(n)) return expr(n->operands[1], w);  // the mask is proven true here
    if (!ir::is_elementwise(n->op)) internal_fail("cuda attention: a " + std::string(detail::op_name(n->op)) + " in the kernel's values");
    // Precision fast: the probabilities' exp(x - m) as one fma and the SFU's 2^y, the
    // row's m log2(e) computed once (FlashAttention's exp2 with the scale folded in).
    if (E_.fast() && n->op == OpCode::exp && n->type.kind == Kind::F32 && n->operands[0]->op == OpCode::sub) {
        const Node* d = n->operands[0];
        // With the scale folded (the maximum's operand left unformed: S still in kiln_s).
        if (!tiles_.count(d->operands[0]))
            if (auto c = folded_scale(d->operands[0])) return scaled_exp(d->operands[0], *c, expr(d->operands[1], w), w);
        return "kc::exp_fast_diff(" + expr(d->operands[0], w) + ", " + expr(d->operands[1], w) + ")";
    }
    std::vector<std::string> args;
    for (const Node* o : n->operands) args.push_back(expr(o, w));
    return element_expr(E_, *n, args);
}

std::string FragmentValues::tile_load(const Node* n) {
    const bool over_scores = std::find(m_.score_loads.begin(), m_.score_loads.end(), n) != m_.score_loads.end();
    if (!over_scores && std::find(m_.tile_loads.begin(), m_.tile_loads.end(), n) == m_.tile_loads.end())
        internal_fail("cuda attention: a load that is not one element of a tile nor a tile over the rows and keys");
    // One element the same for the whole tile (AttentionMatch::tile_loads), read where it
    // is used: an L1 hit after the first, and the compiler keeps what it can in registers.
    // A tile over the rows and keys (AttentionMatch::score_loads) at the element's row
    // and key: the match put its origins at the query tile's row origin and at t * bk, so
    // they are the row's absolute index and the key's (key_index()).
    const int rank = ir::access_rank(*n);
    const std::string a = "a" + num(ir::param_index(*n));
    std::string ok, off;
    for (int i = 0; i < rank; ++i) {
        const auto& dim = n->type.dims[static_cast<std::size_t>(i)];
        const bool rows = over_scores && dim.extent != 1 && dim.axis == m_.axis_rows, keys = over_scores && dim.extent != 1 && dim.axis == m_.axis_keys;
        const std::string c = rows   ? std::string("(long long)kiln_row[h]")
                              : keys ? std::string(m_.key_offset ? "kiln_koff + " : "") + "(long long)" + key_index()
                                     : "(long long)(" + expr(n->operands[static_cast<std::size_t>(i)], Where::cta) + ")";
        ok += (i ? " && " : "") + std::string("(unsigned long long)") + c + " < (unsigned long long)" + a + "_e" + num(i);
        off += (i ? " + " : "") + c + " * " + a + "_s" + num(i);
    }
    const std::string value = from_storage(n->type.kind, a + "[" + off + "]");
    // (A tile over the rows is read checked even where the program assumes its bounds:
    // the kernel's last 128 rows may run past the program's last query block.)
    if (ir::bounds_policy(*n) == bounds::assume && !over_scores) return value;
    const std::string fill = ir::has_fallback(*n) ? expr(n->operands.back(), Where::cta) : literal(n->type.kind, 0, 0);
    return "(" + ok + " ? " + value + " : " + fill + ")";
}

bool FragmentValues::depends_on_rows(const Node* n) const {
    std::vector<const Node*> work{n};
    std::unordered_set<const Node*> seen;
    const Node* row_arg = m_.grid->body->args[static_cast<std::size_t>(m_.row_axis)];
    while (!work.empty()) {
        const Node* x = work.back();
        work.pop_back();
        if (!seen.insert(x).second) continue;
        if (x == row_arg || (x->op == OpCode::iota && x->type.dims[0].axis == m_.axis_rows)) return true;
        for (const Node* o : x->operands) work.push_back(o);
    }
    return false;
}

std::optional<double> FragmentValues::folded_scale(const Node* x) {
    if (fold_scale_ == 0 || !E_.fast() || x->type.kind != Kind::F32) return std::nullopt;
    // Mode 1: only where the key range and the masks are the same for every query
    // row (no causal diagonal): measured on an H200, the fold gained 7% on full
    // attention at d 64 and d 128 (bench/results/gpu-20261203-s10); on causal blocks
    // (mode 2, the masks selecting S before one exp) +2% at d 128 with 128-row
    // blocks and -11% on 3000 x 3001 with 64-row blocks (gpu-20261203-s11).
    const bool row_independent_only = fold_scale_ == 1;
    if (row_independent_only && depends_on_rows(m_.loop->operands[0])) return std::nullopt;
    if (x->op == OpCode::select) {
        if (interior_ && resolved_.count(x)) return folded_scale(x->operands[1]);
        auto fill = float_constant(*x->operands[2]);
        if (!fill || !(std::isinf(*fill) && *fill < 0) || (row_independent_only && depends_on_rows(x->operands[0]))) return std::nullopt;
        return folded_scale(x->operands[1]);
    }
    if (x->op != OpCode::mul) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
        if (x->operands[side] != m_.score_mma) continue;
        auto c = float_constant(*x->operands[1 - side]);
        // A normal positive f32: c * max S is then max c S bit for bit.
        if (c && *c > 0 && std::isfinite(*c) && std::fabs(*c) >= 0x1p-126) return c;
    }
    return std::nullopt;
}

std::string FragmentValues::unscaled_expr(const Node* x, Where w) {
    if (x->op == OpCode::select) {
        if (interior_ && resolved_.count(x)) return unscaled_expr(x->operands[1], w);
        return "(" + expr(x->operands[0], w) + " ? " + unscaled_expr(x->operands[1], w) + " : " + expr(x->operands[2], w) + ")";
    }
    return expr(m_.score_mma, w);  // x is S * c
}

std::string FragmentValues::scaled_exp(const Node* x, double c, const std::string& m, Where w) {
    // The masks select on S, before the one fma and the SFU: exp of a masked -inf is
    // exp_fast_scaled(-inf, c log2 e, m), bit for bit what exp(-inf - m) is (0, or
    // NaN where m is -inf: c log2 e > 0), with one exp an element, not one a branch.
    // c log2(e), rounded once to f32.
    return "kc::exp_fast_scaled(" + unscaled_expr(x, w) + ", " + literal(Kind::F32, static_cast<double>(static_cast<float>(c * 1.4426950408889634)), 0) +
           ", " + m + ")";
}

// Unsigned, 32 bits, as the producer's TMA coordinates of the keys (kb * bn) are; and
// division by the program's key block (a power of two, as a rule) is then a shift.
std::string FragmentValues::key_index() const { return "((unsigned)kiln_t * " + num(block_keys_) + "u + (unsigned)kc)"; }

std::string FragmentValues::argument(const Node* n, Where w) const {
    const auto& g = m_.grid->body->args;
    for (std::size_t a = 0; a < g.size(); ++a)
        if (g[a] == n) return static_cast<int>(a) == m_.row_axis ? "kiln_gi[h]" : "kiln_g" + num(static_cast<std::int64_t>(a));
    const auto& l = m_.loop->body->args;
    if (n == l[0]) {
        if (program_key_blocks()) return "kiln_t";
        // Other key blocks only where t reaches nothing but values over the keys.
        if (w != Where::score) internal_fail("cuda attention: the key block index outside the scores, with the kernel's own key blocks");
        return "(long long)(" + key_index() + " / " + num(m_.bk) + "u)";
    }
    for (std::size_t s = 1; s < l.size(); ++s)
        if (l[s] == n) {
            const int slot = static_cast<int>(s) - 1;
            if (slot == m_.slot_max) return "kiln_m[h]";
            if (slot == m_.slot_sum) return "kiln_l[h]";
            return "kiln_o[j]";
        }
    internal_fail("cuda attention: an index of another loop");
}

}  // namespace kiln::cu
