// What the verifier's rules share: the node under check with the way to report a
// broken rule, and the rules too long to write inline in verify.cpp's table.
#pragma once

#include <string>
#include <string_view>

#include "ir/attrs.h"

namespace kiln::check {

using detail::Type;

// One node of a program under one rule. A malformed program is a kiln bug, so a
// broken rule is an internal error naming the kernel, the op, where the node was
// written and the rule.
struct Site {
    const ir::Program& p;
    const ir::Node& n;
    std::string_view rule;

    // "kernel 'k': reduce_add at f.cpp:12 breaks the rule 'reduced dims': <what>".
    [[noreturn]] void broken(std::string_view what) const;
    void require(bool ok, std::string_view what) const {
        if (!ok) broken(what);
    }
    const Type& in(std::size_t k) const { return n.operands[k]->type; }
    int rank_of(std::size_t k) const { return in(k).rank(); }
    // The kernel parameter the node refers to (valid once the 'param' rule passed).
    const detail::ParamSig& param() const { return p.params[static_cast<std::size_t>(ir::param_index(n))]; }
};

// Text for messages: "f32 4x8 (m, n)", "i64 scalar", "[1, 0]".
std::string type_text(const Type& t);
std::string ints_text(ir::Ints v);
bool valid_kind(Kind k);
template <class N> std::string str(N v) { return std::to_string(v); }
inline bool is_scalar_of(const Type& t, Kind k) { return t.kind == k && t.dims.empty(); }

// ---- rules with more than a few lines (the table in verify.cpp says when they apply)
void broadcast_dim_map(const Site& s);  // broadcast: operand dim k -> result dim map[k]
void permute_dim_map(const Site& s);    // permute: result dim k = operand dim map[k]
void slice_window(const Site& s);       // slice: starts + result extents inside the operand
void mma_kinds(const Site& s);          // same kind, f16|bf16 -> f32, i8 -> i32
void mma_dim_map(const Site& s);        // the encoding, and every dim used once with equal extents
void memory_access(const Site& s);      // load / store: origins, fallback, value, the view's rank and kind
void loop_body(const Site& s);          // the body's args (indices, carried) and its yield
void loop_result(const Site& s);        // names a loop and one of its carried slots

}  // namespace kiln::check
