#include "fuzz/standard_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "fuzz/values.h"
#include "ir/attrs.h"
#include "ir/ir.h"
#include "ir/op_traits.h"

namespace kiln::fuzz {

namespace {

using detail::OpCode;
using ir::Node;
using ir::OpCategory;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The unit roundoff of a float kind, and half its smallest subnormal (the most a
// rounding that underflows loses beyond the relative error).
double unit(Kind k) {
    switch (k) {
        case Kind::F16: return 0x1p-11;
        case Kind::BF16: return 0x1p-8;
        case Kind::F64: return 0x1p-53;
        default: return 0x1p-24;
    }
}
double underflow(Kind k) {
    switch (k) {
        case Kind::F16: return 0x1p-25;
        case Kind::BF16: return 0x1p-134;
        case Kind::F64: return 0x1p-1074;  // (half of it is not a double)
        default: return 0x1p-150;
    }
}
double largest(Kind k) {
    switch (k) {
        case Kind::F16: return 65504.0;
        case Kind::BF16: return 0x1.fep127;
        case Kind::F64: return std::numeric_limits<double>::max();
        default: return std::numeric_limits<float>::max();
    }
}
// n roundings of at most u each, compounded (Higham's gamma_n).
double gamma(double n, Kind k) {
    const double nu = n * unit(k);
    return nu < 1 ? nu / (1 - nu) : kInf;
}
// How many ulps a target's own exp, log ... may be from the correctly rounded
// result in precision standard (docs/semantics.md), plus the interpreter's half
// ulp (kiln's math, rounded once) and a little for the f64 evaluation.
constexpr double kMathUlps = 2.0 + 0.5 + 0.1;

// A value's state: its magnitude and how far the two targets' values may be apart.
struct State {
    double mag = kInf;
    double abs = 0, rel = 0;
    bool exact() const { return abs == 0 && rel == 0; }
    // As one absolute bound. No relative part adds nothing, even to an unbounded
    // magnitude: 0 * inf would be NaN, which every max() below would then drop,
    // turning an unbounded value into an exact one.
    double spread() const { return rel == 0 ? abs : abs + rel * mag; }
};
// A magnitude times a difference: none when there is no difference (0 * inf is 0 here).
double scaled(double mag, double difference) { return difference == 0 ? 0 : mag * difference; }
// The wider of two bounds; NaN (an unbounded magnitude times a difference) counts as unbounded.
double wider(double a, double b) { return std::isnan(a) || std::isnan(b) ? kInf : std::max(a, b); }
State joined(const State& a, const State& b) { return State{std::max(a.mag, b.mag), wider(a.abs, b.abs), wider(a.rel, b.rel)}; }
State unbounded() { return State{kInf, kInf, 0}; }
State exact_value(double mag) { return State{mag, 0, 0}; }

// Both targets round their (different) results to kind k: up to an ulp more apart,
// beside the difference they had. An exact value stays exact (same bits).
State rounded(State s, Kind k) {
    if (!is_float(k)) return s.exact() ? s : unbounded();
    if (s.mag > largest(k) * (1 - unit(k))) return s.exact() ? s : unbounded();  // one may overflow, the other not
    if (s.exact()) return s;
    const double u = unit(k);
    return State{s.mag, s.abs * (1 + u) + 2 * underflow(k), s.rel * (1 + u) + 2 * u};
}

double magnitude_of(Kind k, const unsigned char* p) {
    const double v = element_value(k, p);
    return std::isfinite(v) ? std::abs(v) : kInf;
}

class Analysis {
public:
    Analysis(const std::vector<detail::Arg>& args, std::int64_t max_trips)
        : args_(args), trips_(std::max<std::int64_t>(max_trips, 1)), stores_(args.size()) {}

    void region(const ir::Region& r) {
        for (const Node* n : r.nodes) node(*n);
    }

    std::vector<DifferenceBound> result() const {
        std::vector<DifferenceBound> out(args_.size());
        for (std::size_t p = 0; p < args_.size(); ++p) {
            const State& s = stores_[p];
            out[p] = DifferenceBound{s.abs, s.rel};
        }
        return out;
    }

private:
    State& at(const Node* n) { return states_[n]; }
    const State& of(const Node* n) {
        auto it = states_.find(n);
        return it == states_.end() ? unknown_ : it->second;
    }

    // The largest magnitude in view p (every element of its span: a load reads some of them).
    double view_magnitude(int p) {
        auto it = view_mags_.find(p);
        if (it != view_mags_.end()) return it->second;
        const detail::Arg& a = args_[static_cast<std::size_t>(p)];
        double m = 0;
        if (is_float(a.kind) && a.data) {
            std::int64_t last = 0;
            bool empty = false;
            for (std::size_t d = 0; d < a.extents.size(); ++d) {
                if (a.extents[d] == 0) empty = true;
                else last += (a.extents[d] - 1) * a.strides[d];
            }
            const auto* bytes = static_cast<const unsigned char*>(a.data);
            if (!empty)
                for (std::int64_t e = 0; e <= last && m < kInf; ++e) m = std::max(m, magnitude_of(a.kind, bytes + e * kind_bytes(a.kind)));
        }
        return view_mags_[p] = m;
    }

    double constant_magnitude(const Node& n) {
        double m = 0;
        if (n.data)
            for (double f : n.data->floats) m = std::max(m, std::isfinite(f) ? std::abs(f) : kInf);
        return m;
    }

    // The product (or, looked through data movement and negation, the value) that
    // an addition may fuse with: the cuda target lets NVRTC contract a*b+c.
    const Node* fusable_product(const Node* x) {
        while (x->op == OpCode::neg || x->op == OpCode::broadcast || x->op == OpCode::full || x->op == OpCode::reshape ||
               x->op == OpCode::permute)
            x = x->operands[0];
        return x->op == OpCode::mul && (x->type.kind == Kind::F32 || x->type.kind == Kind::F64) ? x : nullptr;
    }

    State sum_of(const Node& n, const State& a, const State& b) {
        const Kind k = n.type.kind;
        State s{a.mag + b.mag, 0, 0};
        if (!a.exact() || !b.exact()) s.abs = a.spread() + b.spread();
        for (const Node* x : {n.operands[0], n.operands[1]})
            if (const Node* m = fusable_product(x)) s.abs += unit(k) * of(m).mag + underflow(k);
        if (s.exact()) return s;
        return rounded(s, k);
    }

    State product_of(const Node& n, const State& a, const State& b) {
        State s{a.mag * b.mag, 0, 0};
        if (a.exact() && b.exact()) return s;
        if (a.abs == 0 && b.abs == 0) s.rel = a.rel + b.rel + a.rel * b.rel;  // relative differences multiply
        else {
            const double da = a.spread(), db = b.spread();
            s.abs = scaled(a.mag, db) + scaled(b.mag, da) + da * db;
        }
        return rounded(s, n.type.kind);
    }

    State quotient_of(const Node& n, const State& a, const State& b) {
        State s{kInf, 0, 0};  // a divisor may be tiny: no magnitude
        if (a.exact() && b.exact()) return s;
        if (a.abs != 0 || b.abs != 0 || b.rel >= 1) return unbounded();
        s.rel = (a.rel + b.rel) / (1 - b.rel);
        return rounded(s, n.type.kind);
    }

    // exp, log ...: the target's own function in precision standard.
    State math_of(const Node& n, const State& x) {
        const Kind k = n.type.kind;
        State s;
        switch (n.op) {
            case OpCode::exp:
                s.mag = std::exp(x.mag);
                if (!x.exact()) s.rel = std::expm1(x.spread());  // e^(a + d) = e^a e^d
                break;
            case OpCode::tanh: case OpCode::sin: case OpCode::cos: case OpCode::erf:
                s.mag = 1;
                s.abs = x.exact() ? 0 : 1.13 * x.spread();  // slopes at most 1 (erf: 2/sqrt(pi))
                break;
            case OpCode::sqrt:
                // Correctly rounded everywhere; an operand near 0 that differs may be
                // negative on one target only (NaN).
                s.mag = std::sqrt(x.mag);
                if (!x.exact()) return unbounded();
                return s;
            default:  // log, rsqrt: unbounded slope near 0
                if (!x.exact()) return unbounded();
                s.mag = kInf;
                break;
        }
        if (s.mag > largest(k)) return unbounded();
        s.rel += 2 * kMathUlps * unit(k);
        s.abs += 2 * kMathUlps * underflow(k);
        return s;
    }

    // A sum of n terms of magnitude at most term_mag (a reduction, a scan prefix)
    // that a target may reassociate: each target within gamma(depth) sum |x| of the
    // exact sum.
    static double reassociation(double n, double term_mag, double depth, Kind k) { return 2 * gamma(depth, k) * n * term_mag; }

    State contraction(const Node& n) {
        const Kind k = n.type.kind;
        const State &a = of(n.operands[0]), &b = of(n.operands[1]), &acc = of(n.operands[2]);
        double count = 1;
        for (auto& c : ir::mma_dims(n).contract) count *= static_cast<double>(n.operands[0]->type.dims[static_cast<std::size_t>(c.a)].extent);
        if (!is_float(k)) return a.exact() && b.exact() && acc.exact() ? exact_value(kInf) : unbounded();
        const double term = a.mag * b.mag;
        State s{acc.mag + count * term, 0, 0};
        if (!a.exact() || !b.exact() || !acc.exact()) {
            const double da = a.spread(), db = b.spread();
            s.abs = acc.spread() + count * (scaled(a.mag, db) + scaled(b.mag, da) + da * db);
        }
        const auto options = ir::mma_options(n);
        if (options.allow_reassociation) {
            // Each target within gamma(depth) of the exact sum of acc and the count
            // products; tensor cores may truncate their f32 sums (two roundings per
            // addition), and FMA only removes roundings.
            s.abs += 2 * gamma(2 * (count + 1), k) * (acc.mag + count * term);
            // tf32 inputs: rounded to nearest (mma.sync after cvt.rna: 2^-11 of each
            // operand) or truncated (wgmma reads the top 19 bits of an f32 in shared
            // memory: 2^-10), so each product is within 2 * 2^-10 + 2^-20 of its term.
            if (options.allow_tf32 && n.operands[0]->type.kind == Kind::F32) s.abs += count * (2 * 0x1p-10 + 0x1p-20) * term;
        }
        if (!std::isfinite(s.abs)) return unbounded();
        return s.exact() ? s : rounded(s, k);
    }

    State reduction(const Node& n, const State& x) {
        if (!is_float(n.type.kind)) return x.exact() ? exact_value(kInf) : unbounded();
        if (n.op != OpCode::reduce_add && n.op != OpCode::scan_add) return x.exact() ? x : State{x.mag, x.spread(), 0};  // max, min: any order
        double count = 1;
        const auto& dims = n.operands[0]->type.dims;
        if (n.op == OpCode::reduce_add)
            for (auto d : ir::reduced_dims(n)) count *= static_cast<double>(dims[static_cast<std::size_t>(d)].extent);
        else count = static_cast<double>(dims[static_cast<std::size_t>(ir::tile_dim(n))].extent);
        State s{count * x.mag, 0, 0};
        if (count <= 1) return x;
        s.abs = count * x.spread() + reassociation(count, x.mag, count - 1, n.type.kind);
        if (!std::isfinite(s.abs)) return unbounded();
        return rounded(s, n.type.kind);
    }

    // A value that passes its operand's elements on unchanged (moved, selected).
    State passed(const State& x) { return x; }
    // An integer, bool or index computed from x: exact, or anything.
    State discrete(bool exact) { return exact ? exact_value(kInf) : unbounded(); }

    bool all_exact(const Node& n, std::size_t from = 0) {
        for (std::size_t k = from; k < n.operands.size(); ++k)
            if (!of(n.operands[k]).exact()) return false;
        return true;
    }

    void loop(const Node& n) {
        const ir::Region& body = *n.body;
        const int rank = ir::loop_rank(n);
        auto inits = ir::loop_inits(n);
        for (std::size_t a = 0; a < body.args.size(); ++a) {
            const Node* arg = body.args[a];
            at(arg) = a < static_cast<std::size_t>(rank) ? exact_value(kInf) : of(inits[a - static_cast<std::size_t>(rank)]);
        }
        const bool grid = ir::loop_kind(n) == detail::LoopKind::parallel;
        const std::int64_t passes = grid ? 1 : trips_;
        const Node* yield = body.nodes.empty() ? nullptr : body.nodes.back();
        for (std::int64_t t = 0; t < passes; ++t) {
            region(body);
            if (!yield || yield->op != OpCode::yield) break;
            // The carried values after this trip: what the next one starts from.
            for (std::size_t c = 0; c < yield->operands.size(); ++c) {
                const Node* arg = body.args[static_cast<std::size_t>(rank) + c];
                const State next = of(yield->operands[c]), before = of(arg);
                at(arg) = joined(before, next);
            }
        }
        carried_[&n] = {};
        for (std::size_t c = static_cast<std::size_t>(rank); c < body.args.size(); ++c) carried_[&n].push_back(of(body.args[c]));
    }

    void node(const Node& n) {
        const auto op = n.op;
        const Kind k = n.type.kind;
        auto x = [&](std::size_t i) -> const State& { return of(n.operands[i]); };
        switch (ir::category(op)) {
            case OpCategory::leaf:
                if (op == OpCode::constant) at(&n) = exact_value(constant_magnitude(n));
                else if (op == OpCode::param) {
                    const auto& a = args_[static_cast<std::size_t>(ir::param_index(n))];
                    at(&n) = exact_value(is_float(k) && std::isfinite(a.f) ? std::abs(a.f) : kInf);
                } else at(&n) = exact_value(kInf);
                return;
            case OpCategory::unary:
                if (op == OpCode::neg || op == OpCode::abs) at(&n) = passed(x(0));
                else if (op == OpCode::logical_not) at(&n) = discrete(x(0).exact());
                else at(&n) = math_of(n, x(0));
                return;
            case OpCategory::binary:
                if (!is_float(k)) {
                    at(&n) = discrete(all_exact(n));
                    return;
                }
                switch (op) {
                    case OpCode::add: case OpCode::sub: at(&n) = sum_of(n, x(0), x(1)); return;
                    case OpCode::mul: at(&n) = product_of(n, x(0), x(1)); return;
                    case OpCode::div: at(&n) = quotient_of(n, x(0), x(1)); return;
                    case OpCode::maximum: case OpCode::minimum: {
                        const State &a = x(0), &b = x(1);
                        at(&n) = a.exact() && b.exact() ? exact_value(std::max(a.mag, b.mag))
                                                         : State{std::max(a.mag, b.mag), wider(a.spread(), b.spread()), 0};
                        return;
                    }
                    default:  // pow
                        at(&n) = all_exact(n) ? State{kInf, 2 * kMathUlps * underflow(k), 2 * kMathUlps * unit(k)} : unbounded();
                        return;
                }
            case OpCategory::compare: at(&n) = discrete(all_exact(n)); return;
            case OpCategory::select: {
                if (!x(0).exact()) {
                    at(&n) = unbounded();
                    return;
                }
                const State &a = x(1), &b = x(2);
                at(&n) = joined(a, b);
                return;
            }
            case OpCategory::cast: {
                const Kind from = n.operands[0]->type.kind;
                if (is_float(from) && is_float(k)) at(&n) = rounded(x(0), k);  // exact values convert alike; others may round apart
                else if (is_float(k)) at(&n) = x(0).exact() ? exact_value(kInf) : unbounded();
                else at(&n) = discrete(x(0).exact());
                return;
            }
            case OpCategory::shape: at(&n) = passed(x(0)); return;
            case OpCategory::reduction: at(&n) = reduction(n, x(0)); return;
            case OpCategory::arg_reduction: at(&n) = discrete(x(0).exact()); return;
            case OpCategory::scan: at(&n) = reduction(n, x(0)); return;
            case OpCategory::contraction: at(&n) = contraction(n); return;
            case OpCategory::movement:
                // gather and reindex: indices must agree; values move unchanged.
                at(&n) = all_exact(n, 1) ? passed(x(0)) : unbounded();
                return;
            case OpCategory::sort:
                if (op == OpCode::sort_indices || op == OpCode::topk_indices) at(&n) = discrete(x(0).exact());
                else at(&n) = x(0).exact() ? x(0) : State{x(0).mag, x(0).spread(), 0};  // order statistics move by the largest difference
                return;
            case OpCategory::memory:
                if (op == OpCode::load) {
                    const int p = ir::param_index(n);
                    double m = view_magnitude(p);
                    if (ir::has_fallback(n)) m = std::max(m, x(n.operands.size() - 1).mag);
                    at(&n) = exact_value(m);
                } else if (op == OpCode::store) {
                    const State& v = x(n.operands.size() - 1);
                    State& s = stores_[static_cast<std::size_t>(ir::param_index(n))];
                    s = joined(s, v);
                } else {
                    at(&n) = passed(x(0));  // memory<T>: a round trip
                }
                return;
            case OpCategory::control:
                if (op == OpCode::loop) loop(n);
                else if (op == OpCode::loop_result) {
                    const auto& c = carried_[n.operands[0]];
                    at(&n) = static_cast<std::size_t>(ir::slot(n)) < c.size() ? c[static_cast<std::size_t>(ir::slot(n))] : unbounded();
                }
                return;
        }
    }

    const std::vector<detail::Arg>& args_;
    std::int64_t trips_;
    std::vector<State> stores_;  // joined over every store to each parameter
    std::unordered_map<const Node*, State> states_;
    std::unordered_map<const Node*, std::vector<State>> carried_;
    std::unordered_map<int, double> view_mags_;
    State unknown_ = unbounded();
};

}  // namespace

bool DifferenceBound::bounded() const { return std::isfinite(abs) && std::isfinite(rel); }

bool DifferenceBound::admits(double ref, double got) const {
    if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got);
    if (ref == got) return true;
    if (!bounded() || !std::isfinite(ref) || !std::isfinite(got)) return false;
    // A hair of slack for the f64 arithmetic of this check itself.
    return std::abs(got - ref) <= (abs + rel * std::abs(ref)) * (1 + 0x1p-40) + 0x1p-1070;
}

std::vector<DifferenceBound> standard_bounds(const ir::Program& p, const std::vector<detail::Arg>& args, std::int64_t max_trips) {
    Analysis a(args, max_trips);
    a.region(p.body);
    return a.result();
}

}  // namespace kiln::fuzz
