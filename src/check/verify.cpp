// The verifier, as a table of rules in the manner of tinygrad's uop/spec.py: each
// rule names what it applies to (every op, a category, the ops carrying an
// attribute of ops.def's schema, or one op) and checks one thing. The structure of
// the program (regions, dominance, the grid) is checked first, by a walk, so the
// rules may follow operands; within the table, earlier rules guard later ones
// (arity before operand types, an attribute's range before its use).
#include "check/verify.h"

#include <algorithm>
#include <array>
#include <unordered_set>

#include "check/verify_rules.h"
#include "ir/axis_names.h"

namespace kiln::check {

namespace {

using detail::Dim;
using detail::LoopKind;
using detail::OpCode;
using ir::OpCategory;

struct Applies {
    enum class By { every, category, elementwise, attr, op } by;
    unsigned what = 0;
    bool operator()(OpCode op) const {
        switch (by) {
            case By::every: return true;
            case By::category: return ir::category(op) == static_cast<OpCategory>(what);
            case By::elementwise: return ir::is_elementwise(op);
            case By::attr: return ir::has_attr(op, static_cast<ir::Attr>(what));
            case By::op: return op == static_cast<OpCode>(what);
        }
        return false;
    }
};
constexpr Applies every_op{Applies::By::every};
constexpr Applies elementwise{Applies::By::elementwise};
constexpr Applies in(OpCategory c) { return {Applies::By::category, static_cast<unsigned>(c)}; }
constexpr Applies with(ir::Attr a) { return {Applies::By::attr, a}; }
constexpr Applies op(OpCode o) { return {Applies::By::op, static_cast<unsigned>(o)}; }

struct Rule {
    std::string_view name;
    Applies applies;
    void (*check)(const Site&);
};

// Dims of operand k: the result's, or a scalar's (elementwise operands broadcast).
void same_dims_or_scalar(const Site& s, std::size_t k) {
    s.require(s.in(k).dims.empty() || s.in(k).dims == s.n.type.dims,
              "operand " + str(k) + " " + type_text(s.in(k)) + " is neither a scalar nor of the result's dims " +
                  ir::dims_str(s.n.type.dims));
}
void same_kind(const Site& s, std::size_t a, std::size_t b) {
    s.require(s.in(a).kind == s.in(b).kind, "operand kinds differ: " + type_text(s.in(a)) + " vs " + type_text(s.in(b)));
}
void result_kind(const Site& s, Kind k, std::string_view why) {
    s.require(s.n.type.kind == k, "result " + type_text(s.n.type) + " is not " + std::string(kind_name(k)) + " (" + std::string(why) + ")");
}
// The operand's dims without dim d (arg reductions, gather).
std::vector<Dim> without(const Type& t, int d) {
    std::vector<Dim> dims = t.dims;
    dims.erase(dims.begin() + d);
    return dims;
}
void result_dims(const Site& s, const std::vector<Dim>& want) {
    s.require(s.n.type.dims == want, "result dims " + ir::dims_str(s.n.type.dims) + ", expected " + ir::dims_str(want));
}

const Rule kRules[] = {
    // ---- every op: ops.def's arity and kinds columns
    {"arity", every_op, [](const Site& s) {
         int arity = ir::traits(s.n.op).arity;
         s.require(arity < 0 || static_cast<int>(s.n.operands.size()) == arity,
                   str(s.n.operands.size()) + " operands, ops.def says " + str(arity));
     }},
    {"operand values", every_op, [](const Site& s) {
         // A loop_result names its loop; every other operand is a value.
         for (const ir::Node* o : s.n.operands)
             s.require(s.n.op == OpCode::loop_result ? o->op == OpCode::loop : ir::has_result(o->op),
                       "an operand is a " + std::string(detail::op_name(o->op)) +
                           (s.n.op == OpCode::loop_result ? ", not a loop" : ", which has no value"));
     }},
    {"operand kinds", every_op, [](const Site& s) {
         ir::KindRule rule = ir::traits(s.n.op).kinds;
         for (std::size_t k = 0; k < s.n.operands.size(); ++k)
             if (ir::has_result(s.n.operands[k]->op))
                 s.require(valid_kind(s.in(k).kind) && ir::kind_allowed(rule, s.in(k).kind),
                           "operand " + str(k) + " is " + type_text(s.in(k)) + "; ops.def allows " +
                               std::string(ir::kind_rule_text(rule)) + " kinds");
     }},
    {"result kind", every_op, [](const Site& s) {
         if (!ir::has_result(s.n.op)) return;
         s.require(valid_kind(s.n.type.kind), "the result's kind is not a kind");
         if (ir::gives_index(s.n.op)) result_kind(s, Kind::I64, "ops.def marks it index_value");
     }},
    // ---- attribute ranges (ops.def's attributes column)
    {"param", with(ir::attr_param), [](const Site& s) {
         int p = ir::param_index(s.n);
         s.require(p >= 0 && p < static_cast<int>(s.p.params.size()),
                   "parameter " + str(p) + " of a kernel with " + str(s.p.params.size()));
         // Extents, strides and accesses need a view; a param node reads a scalar.
         bool needs_view = ir::has_attr(s.n.op, ir::attr_view_dim) || ir::has_attr(s.n.op, ir::attr_bounds);
         s.require(s.param().is_view == needs_view, "parameter " + str(p) + " (" + s.param().spelling + ") is " +
                                                        (needs_view ? "a scalar, not a view" : "a view, not a scalar"));
         if (!needs_view) s.require(is_scalar_of(s.n.type, s.param().kind), "result " + type_text(s.n.type) + " for " + s.param().spelling);
     }},
    {"view dim", with(ir::attr_view_dim), [](const Site& s) {
         s.require(ir::view_dim(s.n) >= 0 && ir::view_dim(s.n) < s.param().rank,
                   "dim " + str(ir::view_dim(s.n)) + " of a rank-" + str(s.param().rank) + " view (" + s.param().spelling + ")");
         s.require(s.n.type.dims.empty(), "result " + type_text(s.n.type) + " is not a scalar");
     }},
    {"tile dim", with(ir::attr_dim), [](const Site& s) {
         s.require(ir::tile_dim(s.n) >= 0 && ir::tile_dim(s.n) < s.rank_of(0),
                   "dim " + str(ir::tile_dim(s.n)) + " of an operand " + type_text(s.in(0)));
     }},
    {"reduced dims", with(ir::attr_dims), [](const Site& s) {
         ir::Ints d = ir::reduced_dims(s.n);
         s.require(!d.empty(), "no dim to reduce");
         for (std::size_t k = 0; k < d.size(); ++k) {
             s.require(d[k] >= 0 && d[k] < s.rank_of(0), "dims " + ints_text(d) + " outside an operand " + type_text(s.in(0)));
             s.require(k == 0 || d[k - 1] < d[k], "dims " + ints_text(d) + " are not ascending");
         }
     }},
    {"topk count", with(ir::attr_count), [](const Site& s) {
         std::int64_t extent = s.in(0).dims[static_cast<std::size_t>(ir::tile_dim(s.n))].extent;
         s.require(ir::topk_count(s.n) >= 1 && ir::topk_count(s.n) <= extent, "count " + str(ir::topk_count(s.n)) + " outside 1.." + str(extent));
     }},
    {"cast kind", with(ir::attr_to_kind), [](const Site& s) {
         s.require(valid_kind(ir::cast_to(s.n)), "the target kind is not a kind");
         result_kind(s, ir::cast_to(s.n), "the cast's target kind");
     }},
    {"bounds policy", with(ir::attr_bounds), [](const Site& s) {
         s.require(ir::policy_name(ir::bounds_policy(s.n)) != "?", "policy " + str(static_cast<int>(ir::bounds_policy(s.n))) + " is not zero, check or assume");
         s.require(s.n.op == OpCode::load || !ir::has_fallback(s.n), "only a load has a fallback");
     }},
    {"memory layout", with(ir::attr_strides), [](const Site& s) {
         s.require(static_cast<int>(ir::mem_strides(s.n).size()) == s.n.type.rank(),
                   ints_text(ir::mem_strides(s.n)) + " strides for a " + type_text(s.n.type) + " resource");
         auto r = ir::mem_resource(s.n);
         s.require(r == mem::auto_ || r == mem::shared || r == mem::private_, "resource " + str(static_cast<int>(r)) + " is not auto, shared or private");
     }},
    {"loop kind", with(ir::attr_loop), [](const Site& s) {
         s.require(ir::loop_kind_name(ir::loop_kind(s.n)) != "?", "kind " + str(static_cast<int>(ir::loop_kind(s.n))) + " is not parallel, serial or pipeline");
         s.require(ir::loop_rank(s.n) >= 1, "the domain has no axis");
         if (ir::loop_kind(s.n) == LoopKind::pipeline) s.require(ir::pipeline_window(s.n) >= 1, "window " + str(ir::pipeline_window(s.n)) + " < 1");
     }},
    // ---- arity of the ops of variable arity (ops.def: -1)
    {"arity", op(OpCode::load), [](const Site& s) {
         std::size_t want = static_cast<std::size_t>(s.param().rank) + (ir::has_fallback(s.n) ? 1 : 0);
         s.require(s.n.operands.size() == want, str(s.n.operands.size()) + " operands for " + str(s.param().rank) +
                                                    " origins" + (ir::has_fallback(s.n) ? " and a fallback" : ""));
     }},
    {"arity", op(OpCode::store), [](const Site& s) {
         s.require(s.n.operands.size() == static_cast<std::size_t>(s.param().rank) + 1,
                   str(s.n.operands.size()) + " operands for " + str(s.param().rank) + " origins and a value");
     }},
    {"arity", op(OpCode::reindex), [](const Site& s) {
         s.require(!s.n.operands.empty() && s.n.operands.size() == 1 + static_cast<std::size_t>(s.rank_of(0)),
                   str(s.n.operands.size()) + " operands; a source and one coordinate per source dim expected");
     }},
    {"arity", op(OpCode::loop), [](const Site& s) {
         s.require(s.n.operands.size() >= static_cast<std::size_t>(ir::loop_rank(s.n)),
                   str(s.n.operands.size()) + " operands for a domain of " + str(ir::loop_rank(s.n)) + " axes");
     }},
    // (yield: the enclosing loop's 'loop body' rule counts its operands)
    // ---- elementwise ops: kinds, and dims that broadcast only from scalars
    {"elementwise dims", elementwise, [](const Site& s) {
         bool all_scalars = true;
         for (std::size_t k = 0; k < s.n.operands.size(); ++k) {
             same_dims_or_scalar(s, k);
             all_scalars = all_scalars && s.in(k).dims.empty();
         }
         s.require(!all_scalars || s.n.type.dims.empty(), "scalar operands give a result " + type_text(s.n.type));
     }},
    {"unary kind", in(OpCategory::unary), [](const Site& s) { result_kind(s, s.in(0).kind, "the operand's kind"); }},
    {"binary kinds", in(OpCategory::binary), [](const Site& s) {
         same_kind(s, 0, 1);
         result_kind(s, s.in(0).kind, "the operands' kind");
     }},
    {"compare kinds", in(OpCategory::compare), [](const Site& s) {
         same_kind(s, 0, 1);
         result_kind(s, Kind::Bool, "comparisons give bool");
     }},
    {"select kinds", in(OpCategory::select), [](const Site& s) {
         s.require(s.in(0).kind == Kind::Bool, "the condition is " + type_text(s.in(0)) + ", not bool");
         same_kind(s, 1, 2);
         result_kind(s, s.in(1).kind, "the chosen values' kind");
     }},
    // ---- shape ops: values move, kinds stay
    {"shape kind", in(OpCategory::shape), [](const Site& s) { result_kind(s, s.in(0).kind, "shape ops keep the kind"); }},
    {"full", op(OpCode::full), [](const Site& s) { s.require(s.in(0).dims.empty(), "the fill value " + type_text(s.in(0)) + " is not a scalar"); }},
    {"broadcast dim map", op(OpCode::broadcast), broadcast_dim_map},
    {"reshape count", op(OpCode::reshape), [](const Site& s) {
         s.require(s.n.type.count() == s.in(0).count(), ir::dims_str(s.in(0).dims) + " reshaped to " + ir::dims_str(s.n.type.dims));
     }},
    {"permute dim map", op(OpCode::permute), permute_dim_map},
    {"slice window", op(OpCode::slice), slice_window},
    // ---- folds along dims
    {"reduction result", in(OpCategory::reduction), [](const Site& s) {
         result_kind(s, s.in(0).kind, "the operand's kind");
         std::vector<Dim> kept;
         ir::Ints d = ir::reduced_dims(s.n);
         for (int k = 0; k < s.rank_of(0); ++k)
             if (std::find(d.begin(), d.end(), k) == d.end()) kept.push_back(s.in(0).dims[static_cast<std::size_t>(k)]);
         result_dims(s, kept);
     }},
    {"arg reduction result", in(OpCategory::arg_reduction), [](const Site& s) { result_dims(s, without(s.in(0), ir::tile_dim(s.n))); }},
    {"scan result", in(OpCategory::scan), [](const Site& s) {
         s.require(s.n.type == s.in(0), "result " + type_text(s.n.type) + " is not the operand's type " + type_text(s.in(0)));
     }},
    {"sort result", in(OpCategory::sort), [](const Site& s) {
         if (!ir::gives_index(s.n.op)) result_kind(s, s.in(0).kind, "the operand's kind");
         std::vector<Dim> want = s.in(0).dims;  // top-k: `count` elements along the dim, a new anonymous axis
         if (ir::has_attr(s.n.op, ir::attr_count)) want[static_cast<std::size_t>(ir::tile_dim(s.n))] = Dim{ir::topk_count(s.n), 0};
         result_dims(s, want);
     }},
    // ---- contraction
    {"mma kinds", in(OpCategory::contraction), mma_kinds},
    {"mma dim map", in(OpCategory::contraction), mma_dim_map},
    // ---- data movement: i64 coordinates with the result's dims
    {"gather", op(OpCode::gather), [](const Site& s) {
         result_kind(s, s.in(0).kind, "the source's kind");
         result_dims(s, without(s.in(0), ir::tile_dim(s.n)));
         s.require(s.in(1).kind == Kind::I64 && s.in(1).dims == s.n.type.dims, "the index " + type_text(s.in(1)) + " is not i64 of the result's dims");
     }},
    {"reindex", op(OpCode::reindex), [](const Site& s) {
         result_kind(s, s.in(0).kind, "the source's kind");
         for (std::size_t k = 1; k < s.n.operands.size(); ++k)
             s.require(s.in(k).kind == Kind::I64 && s.in(k).dims == s.n.type.dims,
                       "coordinate " + str(k - 1) + " " + type_text(s.in(k)) + " is not i64 of the result's dims");
     }},
    // ---- memory
    {"view access", with(ir::attr_bounds), memory_access},
    {"memory resource", op(OpCode::mem_store), [](const Site& s) {
         s.require(s.n.type == s.in(0), "the stored value " + type_text(s.in(0)) + " is not the resource's " + type_text(s.n.type));
     }},
    {"memory read", op(OpCode::mem_load), [](const Site& s) {
         s.require(s.n.type == s.in(0), "result " + type_text(s.n.type) + " is not the resource's " + type_text(s.in(0)));
     }},
    // ---- leaves
    {"constant data", with(ir::attr_data), [](const Site& s) {
         s.require(s.n.data != nullptr, "no data");
         std::size_t have = is_float(s.n.type.kind) ? s.n.data->floats.size() : s.n.data->ints.size();
         s.require(static_cast<std::int64_t>(have) == s.n.type.count(),
                   str(have) + " elements of data for a " + type_text(s.n.type) + " constant");
     }},
    {"iota", op(OpCode::iota), [](const Site& s) { s.require(s.n.type.rank() == 1, "result " + type_text(s.n.type) + " is not one-dimensional"); }},
    // ---- loops
    {"loop extents", op(OpCode::loop), [](const Site& s) {
         for (int k = 0; k < ir::loop_rank(s.n); ++k)
             s.require(is_scalar_of(s.in(static_cast<std::size_t>(k)), Kind::I64),
                       "extent " + str(k) + " is " + type_text(s.in(static_cast<std::size_t>(k))) + ", not an i64 scalar");
     }},
    {"loop body", op(OpCode::loop), loop_body},
    {"loop_result slot", op(OpCode::loop_result), loop_result},
    {"stage", op(OpCode::stage), [](const Site& s) {
         const ir::Node* loop = s.n.parent ? s.n.parent->owner : nullptr;
         s.require(loop && ir::loop_kind(*loop) == LoopKind::pipeline, "a stage marker outside a pipeline loop's body");
     }},
};

// The rules of each op, in table order (built once).
const std::vector<const Rule*>& rules_of(OpCode op) {
    static const auto by_op = [] {
        std::array<std::vector<const Rule*>, detail::op_count> t;
        for (int o = 0; o < detail::op_count; ++o)
            for (const Rule& r : kRules)
                if (r.applies(static_cast<OpCode>(o))) t[static_cast<std::size_t>(o)].push_back(&r);
        return t;
    }();
    return by_op[static_cast<std::size_t>(op)];
}

// ---- structure: what the rules above may rely on
struct Structure {
    const ir::Program& p;
    std::unordered_set<const ir::Node*> listed;

    void region(const ir::Region& r, std::unordered_set<const ir::Node*> visible) {
        for (const ir::Node* a : r.args) visible.insert(a);
        for (std::size_t i = 0; i < r.nodes.size(); ++i) {
            if (!r.nodes[i]) internal_fail("kernel '" + p.name + "': a region lists a null node");
            const ir::Node& n = *r.nodes[i];
            Site s{p, n, "op code"};
            s.require(static_cast<int>(n.op) < detail::op_count, "op code " + str(static_cast<int>(n.op)) + " is not in ops.def");
            s.rule = "region membership";
            s.require(listed.insert(&n).second, "the node is listed twice");
            s.require(n.parent == &r, "the node's parent is not the region that lists it");
            s.require(n.op != OpCode::region_arg, "a region_arg among the nodes rather than the region's args");
            s.require(n.body == nullptr || n.op == OpCode::loop, "only a loop has a body");
            s.rule = "dominance";
            for (std::size_t k = 0; k < n.operands.size(); ++k)
                s.require(n.operands[k] && visible.count(n.operands[k]),
                          "operand " + str(k) + " is not defined before its use in this region or an enclosing one");
            s.rule = "yield placement";
            bool last_of_body = r.owner && i + 1 == r.nodes.size();
            s.require((n.op == OpCode::yield) == last_of_body, r.owner ? "a loop body ends with its yield, and only there"
                                                                       : "a yield in the kernel's body, outside any loop");
            s.rule = "loop nesting";
            if (n.op == OpCode::loop) {
                s.require(n.body != nullptr, "the loop has no body");
                bool parallel = ir::loop_kind(n) == LoopKind::parallel;
                s.require(!parallel || &n == p.grid, "a parallel loop that is not the program's grid");
                s.require(parallel || r.owner, "a serial or pipeline loop outside the grid");
                region(*n.body, visible);
            }
            visible.insert(&n);
        }
        if (r.owner) {
            Site s{p, *r.owner, "yield placement"};
            s.require(!r.nodes.empty(), "the loop body is empty (no yield)");
        }
    }
};

}  // namespace

void verify(const ir::Program& p) {
    if (p.grid) {
        Site s{p, *p.grid, "grid"};
        s.require(std::find(p.body.nodes.begin(), p.body.nodes.end(), p.grid) != p.body.nodes.end() && p.grid->op == OpCode::loop &&
                      ir::loop_kind(*p.grid) == LoopKind::parallel,
                  "the grid is not a parallel loop of the kernel's body");
    }
    if (p.body.owner || !p.body.args.empty()) internal_fail("kernel '" + p.name + "': its body has an owner or arguments");
    Structure{p, {}}.region(p.body, {});
    ir::walk(p.body, [&](const ir::Node& n) {
        for (const Rule* r : rules_of(n.op)) r->check(Site{p, n, r->name});
    });
    // Stores outside the grid run once; with a grid they must sit inside it, or
    // every instance would race on them.
    if (p.grid)
        for (const ir::Node* n : p.body.nodes)
            if (n->op == detail::OpCode::store)
                fail(n->loc, "store", "a store outside the parallel nest would be performed by every instance; move it inside");
}

}  // namespace kiln::check
