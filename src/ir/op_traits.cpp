// The trait table, expanded from ops.def and math.def.
#include "ir/op_traits.h"

#include <array>

#include <kiln/error.h>

namespace kiln::ir {

namespace {

// Spellings of ops.def's columns as values (one namespace per column, since
// several columns spell "none").
namespace combiner_column {
constexpr std::optional<OpCode> none = std::nullopt;
constexpr std::optional<OpCode> add = OpCode::add;
constexpr std::optional<OpCode> maximum = OpCode::maximum;
constexpr std::optional<OpCode> minimum = OpCode::minimum;
}  // namespace combiner_column
namespace kinds_column {
constexpr KindRule any = KindRule::any, numeric = KindRule::numeric, floating = KindRule::floating, integer = KindRule::integer,
                   bits = KindRule::bits;
}  // namespace kinds_column
namespace attributes_column {
constexpr std::uint32_t none = attr_none, data = attr_data, param = attr_param, view_dim = attr_view_dim, dim = attr_dim,
                        dims = attr_dims, count = attr_count, to_kind = attr_to_kind, dim_map = attr_dim_map, starts = attr_starts,
                        mma_options = attr_mma_options, bounds = attr_bounds, strides = attr_strides, loop = attr_loop,
                        slot = attr_slot, label = attr_label, no_value = attr_no_value,
                        index_value = attr_index_value;
}  // namespace attributes_column

struct MathRow {
    OpCode op;
    int arity;
    std::string_view kiln_fn, device_fn;
};
constexpr MathRow math_rows[] = {
#define KILN_MATH(op, arity, kiln_fn, device_fn) {OpCode::op, arity, #kiln_fn, #device_fn},
#include <kiln/detail/math.def>
#undef KILN_MATH
};

std::array<OpTraits, detail::op_count> build() {
    std::array<OpTraits, detail::op_count> t{{
#define KILN_OP(name, arity, category, combiner, kinds, attributes)                                                    \
    {#name, arity, OpCategory::category, [] { using namespace combiner_column; return combiner; }(),                  \
     [] { using namespace kinds_column; return kinds; }(),                                                             \
     [] { using namespace attributes_column; return static_cast<std::uint32_t>(attributes); }(), {}, {}},
#include <kiln/detail/ops.def>
#undef KILN_OP
    }};
    for (const MathRow& m : math_rows) {
        OpTraits& o = t[static_cast<std::size_t>(m.op)];
        if (o.arity != m.arity) internal_fail("math.def: arity of " + std::string(o.name) + " differs from ops.def");
        o.kiln_fn = m.kiln_fn;
        o.device_fn = m.device_fn;
    }
    return t;
}

const std::array<OpTraits, detail::op_count>& table() {
    static const auto t = build();
    return t;
}

}  // namespace

const OpTraits& traits(OpCode op) { return table()[static_cast<std::size_t>(op)]; }

std::string_view category_name(OpCategory c) {
    switch (c) {
        case OpCategory::leaf: return "leaf";
        case OpCategory::unary: return "unary";
        case OpCategory::binary: return "binary";
        case OpCategory::compare: return "compare";
        case OpCategory::select: return "select";
        case OpCategory::cast: return "cast";
        case OpCategory::shape: return "shape";
        case OpCategory::reduction: return "reduction";
        case OpCategory::arg_reduction: return "arg_reduction";
        case OpCategory::scan: return "scan";
        case OpCategory::contraction: return "contraction";
        case OpCategory::movement: return "movement";
        case OpCategory::sort: return "sort";
        case OpCategory::memory: return "memory";
        case OpCategory::control: return "control";
    }
    return "?";
}

bool kind_allowed(KindRule r, Kind k) {
    switch (r) {
        case KindRule::any: return true;
        case KindRule::numeric: return k != Kind::Bool;
        case KindRule::floating: return is_float(k);
        case KindRule::integer: return is_int(k);
        case KindRule::bits: return k == Kind::Bool || is_int(k);
    }
    return false;
}

std::string_view kind_rule_text(KindRule r) {
    switch (r) {
        case KindRule::any: return "any";
        case KindRule::numeric: return "numeric";
        case KindRule::floating: return "floating-point";
        case KindRule::integer: return "integer";
        case KindRule::bits: return "bool or integer";
    }
    return "?";
}

bool is_elementwise(OpCode op) {
    switch (category(op)) {
        case OpCategory::unary: case OpCategory::binary: case OpCategory::compare: case OpCategory::select: case OpCategory::cast:
            return true;
        case OpCategory::leaf: case OpCategory::shape: case OpCategory::reduction: case OpCategory::arg_reduction:
        case OpCategory::scan: case OpCategory::contraction: case OpCategory::movement: case OpCategory::sort:
        case OpCategory::memory: case OpCategory::control:
            return false;
    }
    return false;
}

std::string_view infix_operator(OpCode op) {
    switch (op) {
        case OpCode::add: return "+";
        case OpCode::sub: return "-";
        case OpCode::mul: return "*";
        case OpCode::div: return "/";
        case OpCode::eq: return "==";
        case OpCode::ne: return "!=";
        case OpCode::lt: return "<";
        case OpCode::le: return "<=";
        case OpCode::gt: return ">";
        case OpCode::ge: return ">=";
        case OpCode::logical_and: return "&";
        case OpCode::logical_or: return "|";
        case OpCode::logical_xor: return "^";
        default: return "";
    }
}

std::optional<OpCode> reduction_of(OpCode combiner) {
    for (const OpTraits& t : table())
        if (t.category == OpCategory::reduction && t.combiner == combiner) return static_cast<OpCode>(&t - table().data());
    return std::nullopt;
}

std::optional<OpCode> scan_of(OpCode combiner) {
    for (const OpTraits& t : table())
        if (t.category == OpCategory::scan && t.combiner == combiner) return static_cast<OpCode>(&t - table().data());
    return std::nullopt;
}

}  // namespace kiln::ir
