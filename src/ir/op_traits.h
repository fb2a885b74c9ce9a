// Op facts generated from the one list of ops (kiln/detail/ops.def, math.def): arity,
// category, combiner, operand kinds, attribute schema and math implementations.
// Code that needs to know something about an op asks here; no other file lists ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <kiln/detail/opcode.h>
#include <kiln/kind.h>

namespace kiln::ir {

using detail::OpCode;

// An op's family. Dispatch on it (a switch with no default) rather than on op codes,
// so a new op of an existing family needs no new case, and a new family makes the
// compiler name every dispatch to extend (kiln builds with -Werror=switch).
enum class OpCategory : std::uint8_t {
    leaf,           // no operands: constants, parameters, view extents and strides, iota
    unary,          // elementwise, one operand, same kind
    binary,         // elementwise, two operands of one kind (either may be a scalar), same kind
    compare,        // elementwise, two operands, bool result
    select,         // elementwise cond ? a : b
    cast,           // elementwise kind conversion
    shape,          // full, broadcast, reshape, permute, slice: elements move, values do not change
    reduction,      // fold over some dims with the combiner
    arg_reduction,  // index of the first extreme element along one dim
    scan,           // inclusive scan along one dim with the combiner
    contraction,    // mma
    movement,       // gather, reindex: data-dependent element movement
    sort,           // sort and top-k along one dim
    memory,         // loads and stores of views, explicit memory<T> resources
    control,        // loops, their results and arguments, yields, stage markers
};
std::string_view category_name(OpCategory c);

// The element kinds an op's (value) operands may have.
enum class KindRule : std::uint8_t { any, numeric, floating, integer, bits };
bool kind_allowed(KindRule r, Kind k);
std::string_view kind_rule_text(KindRule r);  // "floating-point", "bool or integer" ...

// The attributes an op carries (a set of these bits); attrs.h has an accessor each.
enum Attr : std::uint32_t {
    attr_none = 0,
    attr_data = 1u << 0,         // constant: eager data
    attr_param = 1u << 1,        // the kernel parameter (view or scalar) the op refers to
    attr_view_dim = 1u << 2,     // view_extent / view_stride: which dim of the view
    attr_dim = 1u << 3,          // the one tile dim an op works along
    attr_dims = 1u << 4,         // the tile dims a reduction folds
    attr_count = 1u << 5,        // top-k's k
    attr_to_kind = 1u << 6,      // cast's result kind
    attr_dim_map = 1u << 7,      // broadcast / permute / mma dim correspondence
    attr_starts = 1u << 8,       // slice origin
    attr_mma_options = 1u << 9,  // reassociation, tf32
    attr_bounds = 1u << 10,      // bounds policy and fallback of a load or store
    attr_strides = 1u << 11,     // memory<T> resource strides
    attr_loop = 1u << 12,        // loop kind, axes, pipeline window
    attr_slot = 1u << 13,        // carried slot / loop index
    attr_label = 1u << 14,       // stage name
    attr_no_value = 1u << 15,    // not an attribute: the op produces no value
    attr_index_value = 1u << 16, // not an attribute: the op's value is i64 (an index or extent)
};

struct OpTraits {
    std::string_view name;
    int arity;                       // -1: variable
    OpCategory category;
    std::optional<OpCode> combiner;  // reductions, scans, mma (add)
    KindRule kinds;
    std::uint32_t attrs;             // Attr bits
    // Math functions (math.def): kiln's implementation and the device library's.
    std::string_view kiln_fn;        // empty: not a math function
    std::string_view device_fn;
};

const OpTraits& traits(OpCode op);

inline OpCategory category(OpCode op) { return traits(op).category; }
inline std::optional<OpCode> combiner_of(OpCode op) { return traits(op).combiner; }
inline bool has_attr(OpCode op, Attr a) { return (traits(op).attrs & a) != 0; }
// Elementwise: each result element depends only on the operands' elements at the
// same position (unary, binary, compare, select, cast).
bool is_elementwise(OpCode op);
// A math function of math.def (computed by kiln math in exact precision).
inline bool is_math(OpCode op) { return !traits(op).kiln_fn.empty(); }
// Produces a value (stores, yields, stage markers and loops do not).
inline bool has_result(OpCode op) { return !has_attr(op, attr_no_value); }
// Produces i64 indices or extents whatever its operands' kind (argmax, sort_indices, iota ...).
inline bool gives_index(OpCode op) { return has_attr(op, attr_index_value); }
// Reads or writes memory (loads, stores, memory<T> resources).
inline bool touches_memory(OpCode op) { return category(op) == OpCategory::memory; }
// The C/C++ infix operator of an elementwise op that has one with the contract's
// meaning on the emitted operand types ("+", "==", "&" ...), else empty.
std::string_view infix_operator(OpCode op);

// The reduction / scan op of a combiner (nullopt: none such).
std::optional<OpCode> reduction_of(OpCode combiner);
std::optional<OpCode> scan_of(OpCode combiner);

}  // namespace kiln::ir
