// Entry points the public templates call. Each builds one IR node while a kernel is
// being traced and evaluates it at once otherwise (eager tiles): the same shape and
// kind rules, the same wording of errors, the same arithmetic.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <kiln/detail/opcode.h>
#include <kiln/detail/value.h>

namespace kiln::detail {


Value unary(OpCode op, const Value& x, Loc loc);
Value binary(OpCode op, const Value& a, const Value& b, Loc loc);   // broadcasting by axis identity
Value select(const Value& c, const Value& a, const Value& b, Loc loc);
Value cast(const Value& x, Kind to, Loc loc);
Value full(const Value& scalar, const std::vector<Dim>& dims, Loc loc);
Value iota(const Dim& dim, Loc loc);
Value reshape(const Value& x, const std::vector<Dim>& dims, Loc loc);
Value permute(const Value& x, const std::vector<int>& order, Loc loc);
Value slice(const Value& x, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& sizes, Loc loc);
Value broadcast_to(const Value& x, const std::vector<Dim>& dims, Loc loc);
// Reduce the dims of x named by `axes` (axis ids; for anonymous dims, positions
// encoded as -(position+1)). keep_dims leaves them as extent-1 dims (seed-000 rows/cols).
Value reduce(OpCode op, const Value& x, const std::vector<int>& axes, bool keep_dims, Loc loc);
Value arg_reduce(OpCode op, const Value& x, int axis, Loc loc);
Value scan(OpCode op, const Value& x, int axis, Loc loc);
struct MmaFlags { bool allow_reassociation = true; bool allow_tf32 = false; };
Value mma(const Value& a, const Value& b, const Value& acc, MmaFlags flags, Loc loc);
Value dot(const Value& a, const Value& b, Loc loc);   // seed 000: 2-D, positional, acc kind = operand kind
// reduce_rows / reduce_cols while tracing: where the fold's first step `step` =
// f(init, first) is one of kiln's combiners (add, maximum, minimum) of exactly those
// two, the whole fold of `tile` along dim `dim` as that reduction combined with `init`
// afterwards, the same bits (max and min from any init, add from an init of +-0);
// empty otherwise (the fold is traced step by step, as written).
Value fold_as_reduction(const Value& step, const Value& init, const Value& first, const Value& tile, int dim, Loc loc);
Value gather(const Value& x, const Value& index, int axis, Loc loc);
Value reindex(const Value& x, const std::vector<Dim>& dims, const std::vector<Value>& coords, Loc loc);
Value sort(const Value& x, int axis, bool indices, Loc loc);
Value topk(const Value& x, int axis, std::int64_t k, bool indices, Loc loc);

// Values made from eager data.
Value make_eager(Type type, EagerData data);
const EagerData& eager_data(const Value& v, Loc loc, std::string_view what);

// Helpers shared by the templates.
int axis_position(const Type& t, int axis, Loc loc, std::string_view op);
[[noreturn]] void fail_kind(Loc loc, std::string_view op, std::string_view what);

}  // namespace kiln::detail
