// Tile operations as functions: math, selection, shapes, reductions, contraction,
// data movement and the higher-order forms (map, zip, reduce_rows ...). Every
// function records the caller's line for its diagnostics. Semantics: ops.def.
#pragma once

#include <functional>
#include <type_traits>
#include <utility>

#include <kiln/tile.h>

namespace kiln {

// ---- elementwise math (kiln's deterministic implementations, rounded once)
#define KILN_UNARY_MATH(NAME, CODE, REQ)                                                              \
    template <REQ T> Tile<T> NAME(const Tile<T>& x, Loc loc = Loc::here()) {                        \
        return Tile<T>(detail::unary(detail::OpCode::CODE, x.value(), loc));                         \
    }                                                                                                 \
    template <REQ T> Scalar<T> NAME(const Scalar<T>& x, Loc loc = Loc::here()) {                     \
        return Scalar<T>(detail::unary(detail::OpCode::CODE, x.value(), loc));                       \
    }
// One function per one-operand math function of math.def (pow is below).
#define KILN_MATH(NAME, ARITY, KILN_FN, DEVICE_FN) KILN_MATH_FN_##ARITY(NAME)
#define KILN_MATH_FN_1(NAME) KILN_UNARY_MATH(NAME, NAME, FloatElement)
#define KILN_MATH_FN_2(NAME)
#include <kiln/detail/math.def>
#undef KILN_MATH_FN_2
#undef KILN_MATH_FN_1
#undef KILN_MATH
KILN_UNARY_MATH(abs, abs, Element)
#undef KILN_UNARY_MATH

namespace detail {
// A binary operation as a function object: add(a, b) computes; reduce(v, axis, add)
// names the combiner.
template <OpCode Code> struct BinaryFn {
    static constexpr OpCode code = Code;
    template <class A, class B> auto operator()(const A& a, const B& b, Loc loc = Loc::here()) const {
        using T = common_kind_t<A, B>;
        using R = result_of<T, A, B>;
        return R(binary(Code, lift<T>(a), lift<T>(b), loc));
    }
};
}  // namespace detail
inline constexpr detail::BinaryFn<detail::OpCode::add> add{};
inline constexpr detail::BinaryFn<detail::OpCode::sub> sub{};
inline constexpr detail::BinaryFn<detail::OpCode::mul> mul{};
inline constexpr detail::BinaryFn<detail::OpCode::div> div{};
inline constexpr detail::BinaryFn<detail::OpCode::maximum> maximum{};
inline constexpr detail::BinaryFn<detail::OpCode::minimum> minimum{};

template <class A, class B> requires(detail::is_value_v<std::remove_cvref_t<A>> || detail::is_value_v<std::remove_cvref_t<B>>)
auto max(const A& a, const B& b, Loc loc = Loc::here()) { return maximum(a, b, loc); }
template <class A, class B> requires(detail::is_value_v<std::remove_cvref_t<A>> || detail::is_value_v<std::remove_cvref_t<B>>)
auto min(const A& a, const B& b, Loc loc = Loc::here()) { return minimum(a, b, loc); }
template <class A, class B> requires(detail::is_value_v<std::remove_cvref_t<A>> || detail::is_value_v<std::remove_cvref_t<B>>)
auto pow(const A& a, const B& b, Loc loc = Loc::here()) {
    using T = detail::common_kind_t<A, B>;
    static_assert(FloatElement<T>, "kiln: pow takes floating-point kinds");
    return detail::result_of<T, A, B>(detail::binary(detail::OpCode::pow, detail::lift<T>(a), detail::lift<T>(b), loc));
}

// ite(cond, a, b): elementwise selection (seed 004's argument order).
template <class C, class A, class B>
auto ite(const C& cond, const A& a, const B& b, Loc loc = Loc::here()) {
    static_assert(std::is_same_v<detail::value_kind_t<C>, bool>, "kiln: ite's condition must be a bool tile or scalar");
    using KA = detail::value_kind_t<A>;
    using KB = detail::value_kind_t<B>;
    using T = std::conditional_t<!std::is_void_v<KA>, KA,
              std::conditional_t<!std::is_void_v<KB>, KB, literal_kind_t<A>>>;
    static_assert(std::is_void_v<KA> || std::is_void_v<KB> || std::is_same_v<KA, KB>,
                  "kiln: ite's branches have different element kinds; convert with cast<T>()");
    constexpr bool tile = detail::is_tile<std::remove_cvref_t<C>>::value || detail::any_tile<A, B>;
    using R = std::conditional_t<tile, Tile<T>, Scalar<T>>;
    return R(detail::select(cond.value(), detail::lift<T>(a), detail::lift<T>(b), loc));
}

// ---- kinds
template <Element U, class X> auto cast(const X& x, Loc loc = Loc::here()) {
    using R = std::conditional_t<detail::is_tile<std::remove_cvref_t<X>>::value, Tile<U>, Scalar<U>>;
    return R(detail::cast(x.value(), kind_of<U>, loc));
}
template <class X> auto to_f32(const X& x, Loc loc = Loc::here()) { return cast<f32>(x, loc); }
template <class X> auto to_f16(const X& x, Loc loc = Loc::here()) { return cast<f16>(x, loc); }
template <class X> auto to_bf16(const X& x, Loc loc = Loc::here()) { return cast<bf16>(x, loc); }
template <class X> auto to_f64(const X& x, Loc loc = Loc::here()) { return cast<f64>(x, loc); }

// ---- construction
template <Element T> Tile<T> zeros(const Shape& s, Loc loc = Loc::here()) {
    return Tile<T>(detail::full(detail::lift_literal<T>(0), s.dims(loc), loc));
}
template <Element T, class V> Tile<T> full(const Shape& s, const V& v, Loc loc = Loc::here()) {
    return Tile<T>(detail::full(detail::lift<T>(v), s.dims(loc), loc));
}
inline Tile<i64> iota(const Axis& a, Loc loc = Loc::here()) {
    return Tile<i64>(detail::iota(detail::Dim{a.size(), a.id()}, loc));
}

// ---- shape
template <Element T> Tile<T> reshape(const Tile<T>& x, const Shape& s, Loc loc = Loc::here()) {
    return Tile<T>(detail::reshape(x.value(), s.dims(loc), loc));
}
template <Element T> Tile<T> permute(const Tile<T>& x, std::vector<int> order, Loc loc = Loc::here()) {
    return Tile<T>(detail::permute(x.value(), order, loc));
}
// transpose: swaps the last two dimensions.
template <Element T> Tile<T> transpose(const Tile<T>& x, Loc loc = Loc::here()) {
    int r = x.rank();
    if (r < 2) fail(loc, "transpose", "needs a tile of rank 2 or more, got rank " + std::to_string(r));
    std::vector<int> order;
    for (int i = 0; i < r; ++i) order.push_back(i);
    std::swap(order[r - 1], order[r - 2]);
    return Tile<T>(detail::permute(x.value(), order, loc));
}

// ---- reductions: fold left to right in row-major order (the pinned order).
namespace detail {
// A combiner is one of kiln's (add, maximum, minimum): the pinned orders and every
// target know those; a lambda would be opaque to them.
template <class Fn> concept KilnCombiner = requires { Fn::code; };
template <class Fn> constexpr OpCode reduce_code() {
    if constexpr (!KilnCombiner<Fn>) static_assert(always_false<Fn>::value, "kiln: reduce combines with add, maximum or minimum");
    else if constexpr (Fn::code == OpCode::add) return OpCode::reduce_add;
    else if constexpr (Fn::code == OpCode::maximum) return OpCode::reduce_max;
    else if constexpr (Fn::code == OpCode::minimum) return OpCode::reduce_min;
    else static_assert(always_false<Fn>::value, "kiln: reduce combines with add, maximum or minimum");
}
template <class Fn> constexpr OpCode scan_code() {
    if constexpr (!KilnCombiner<Fn>) static_assert(always_false<Fn>::value, "kiln: scan combines with add, maximum or minimum");
    else if constexpr (Fn::code == OpCode::add) return OpCode::scan_add;
    else if constexpr (Fn::code == OpCode::maximum) return OpCode::scan_max;
    else if constexpr (Fn::code == OpCode::minimum) return OpCode::scan_min;
    else static_assert(always_false<Fn>::value, "kiln: scan combines with add, maximum or minimum");
}
inline std::vector<int> axis_ids(const Shape& s) {
    std::vector<int> ids;
    for (auto& a : s.axes()) ids.push_back(a.id());
    return ids;
}
}  // namespace detail
template <Element T, class Fn> Tile<T> reduce(const Tile<T>& x, const Axis& a, Fn, Loc loc = Loc::here()) {
    return Tile<T>(detail::reduce(detail::reduce_code<Fn>(), x.value(), {a.id()}, false, loc));
}
template <Element T, class Fn> Tile<T> reduce(const Tile<T>& x, const Shape& axes, Fn, Loc loc = Loc::here()) {
    return Tile<T>(detail::reduce(detail::reduce_code<Fn>(), x.value(), detail::axis_ids(axes), false, loc));
}
template <Element T> Tile<i64> argmax(const Tile<T>& x, const Axis& a, Loc loc = Loc::here()) {
    return Tile<i64>(detail::arg_reduce(detail::OpCode::argmax, x.value(), a.id(), loc));
}
template <Element T> Tile<i64> argmin(const Tile<T>& x, const Axis& a, Loc loc = Loc::here()) {
    return Tile<i64>(detail::arg_reduce(detail::OpCode::argmin, x.value(), a.id(), loc));
}
// Inclusive scan along one axis.
template <Element T, class Fn> Tile<T> scan(const Tile<T>& x, const Axis& a, Fn, Loc loc = Loc::here()) {
    return Tile<T>(detail::scan(detail::scan_code<Fn>(), x.value(), a.id(), loc));
}

// ---- positional forms: a dimension by its position (negative: from the end), for
// anonymous tiles (seed 000's rows and columns). The tile standard library is
// written with these and the forms above.
namespace detail {
inline int position(int rank, int dim, Loc loc, std::string_view op) {
    int d = dim < 0 ? dim + rank : dim;
    if (d < 0 || d >= rank) fail(loc, op, "dimension " + std::to_string(dim) + " of a rank-" + std::to_string(rank) + " tile");
    return d;
}
}  // namespace detail
// Folds dimension `dim` (the pinned order), keeping it with extent 1.
template <Element T, class Fn> Tile<T> reduce_dim(const Tile<T>& x, int dim, Fn, Loc loc = Loc::here()) {
    int d = detail::position(x.rank(), dim, loc, "reduce_dim");
    return Tile<T>(detail::reduce(detail::reduce_code<Fn>(), x.value(), {-(d + 1)}, true, loc));
}
// The position of axis `a` among x's dimensions.
template <Element T> int dim_of(const Tile<T>& x, const Axis& a, Loc loc = Loc::here()) {
    return detail::axis_position(x.type(), a.id(), loc, "dim_of");
}
// The sub-tile at `start` with `sizes` elements along each dimension.
template <Element T>
Tile<T> slice(const Tile<T>& x, std::vector<std::int64_t> start, std::vector<std::int64_t> sizes, Loc loc = Loc::here()) {
    return Tile<T>(detail::slice(x.value(), start, sizes, loc));
}
// x spread over like's dimensions (named axes by identity, extent-1 dimensions stretched).
template <Element T, Element U> Tile<T> broadcast_like(const Tile<T>& x, const Tile<U>& like, Loc loc = Loc::here()) {
    return Tile<T>(detail::broadcast_to(x.value(), like.type().dims, loc));
}
// Zeros of x's shape and kind.
template <Element T> Tile<T> zeros_like(const Tile<T>& x, Loc loc = Loc::here()) {
    return Tile<T>(detail::full(detail::lift_literal<T>(0), x.type().dims, loc));
}

// ---- contraction. Axes shared by a and b but absent from acc are contracted; the
// result has acc's shape and kind. Each output is acc, then + round(a*b) for each
// contraction point in order (the pinned order); allow_reassociation lets targets
// use tensor cores and trees (never reduced input precision; tf32 only if asked).
struct MmaOptions {
    bool allow_reassociation = true;
    bool allow_tf32 = false;
};
template <Element A, Element C>
Tile<C> mma(const Tile<A>& a, const Tile<A>& b, const Tile<C>& acc, MmaOptions o = {}, Loc loc = Loc::here()) {
    static_assert(std::is_same_v<A, C> || (std::is_same_v<C, f32> && (std::is_same_v<A, f16> || std::is_same_v<A, bf16>)) ||
                      (std::is_same_v<C, i32> && std::is_same_v<A, i8>),
                  "kiln: mma operand/accumulator kinds: same kind, f16|bf16 -> f32, or i8 -> i32");
    return Tile<C>(detail::mma(a.value(), b.value(), acc.value(), {o.allow_reassociation, o.allow_tf32}, loc));
}
template <Element A, Element B, Element C> requires(!std::is_same_v<A, B>)
Tile<C> mma(const Tile<A>&, const Tile<B>&, const Tile<C>&, MmaOptions = {}, Loc = Loc::here()) {
    static_assert(always_false<A>::value, "kiln: mma's operands have different element kinds; convert one with cast<T>()");
    return Tile<C>(detail::Value{});
}

// ---- data movement inside tiles
template <Element T> Tile<T> gather(const Tile<T>& x, const Tile<i64>& index, const Axis& a, Loc loc = Loc::here()) {
    return Tile<T>(detail::gather(x.value(), index.value(), a.id(), loc));
}
template <Element T, Element I> requires(!std::is_same_v<I, i64>)
Tile<T> gather(const Tile<T>&, const Tile<I>&, const Axis&, Loc = Loc::here()) {
    static_assert(always_false<I>::value, "kiln: gather's index is a Tile<i64>; convert it with cast<i64>()");
    return Tile<T>(detail::Value{});
}
template <Element T> struct Sorted {
    Tile<T> values;
    Tile<i64> indices;
};
template <Element T> Sorted<T> sort(const Tile<T>& x, const Axis& a, Loc loc = Loc::here()) {
    return {Tile<T>(detail::sort(x.value(), a.id(), false, loc)), Tile<i64>(detail::sort(x.value(), a.id(), true, loc))};
}
// The k largest along an axis, descending; ties keep the lower source index first.
template <Element T> Sorted<T> topk(const Tile<T>& x, const Axis& a, const Extent& k, Loc loc = Loc::here()) {
    std::int64_t kk = k.get();
    return {Tile<T>(detail::topk(x.value(), a.id(), kk, false, loc)), Tile<i64>(detail::topk(x.value(), a.id(), kk, true, loc))};
}

// ---- higher-order forms. The function sees Scalar values; over a narrow tile every
// float it binds (elements, captured numbers, literals, results) is rounded to that
// width, because every Scalar<T> operation rounds to T.
namespace detail {
template <class R> Value result_value(const R& r) {
    if constexpr (is_value_v<std::remove_cvref_t<R>>) return r.value();
    else return lift_literal<literal_kind_t<R>>(r);
}
template <class R> struct result_element { using type = literal_kind_t<R>; };
template <class T> struct result_element<Tile<T>> { using type = T; };
template <class T> struct result_element<Scalar<T>> { using type = T; };
}  // namespace detail
template <Element T, class F> auto map(const Tile<T>& x, F&& f, Loc loc = Loc::here()) {
    auto xv = x.value();
    auto r = f(Scalar<T>(xv));
    using U = typename detail::result_element<std::remove_cvref_t<decltype(r)>>::type;
    return Tile<U>(detail::broadcast_to(detail::result_value(r), xv.type.dims, loc));
}
template <Element T, Element U, class F> auto zip(const Tile<T>& x, const Tile<U>& y, F&& f, Loc loc = Loc::here()) {
    auto xv = x.value(), yv = y.value();
    if (xv.type.dims != yv.type.dims)
        fail(loc, "zip", "shape mismatch: " + detail::type_str(xv.type) + " vs " + detail::type_str(yv.type));
    auto r = f(Scalar<T>(xv), Scalar<U>(yv));
    using V = typename detail::result_element<std::remove_cvref_t<decltype(r)>>::type;
    return Tile<V>(detail::broadcast_to(detail::result_value(r), xv.type.dims, loc));
}
// reduce_rows(t, init, f): fold each row of a 2-D tile left to right into R x 1.
template <Element T, class I, class F> Tile<T> reduce_rows(const Tile<T>& t, const I& init, F&& f, Loc loc = Loc::here()) {
    auto v = t.value();
    if (v.type.rank() != 2) fail(loc, "reduce_rows", "needs a 2-D tile, got " + detail::type_str(v.type));
    auto rows = v.type.dims[0], cols = v.type.dims[1];
    Tile<T> acc(detail::full(detail::lift<T>(init), {rows, detail::Dim{1, 0}}, loc));
    for (std::int64_t j = 0; j < cols.extent; ++j) {
        Scalar<T> col(detail::slice(v, {0, j}, {rows.extent, 1}, loc));
        const auto before = acc.value();
        acc = Tile<T>(detail::result_value(f(Scalar<T>(before), col)));
        // A fold whose step is add, maximum or minimum is that reduction (detail::fold_as_reduction).
        if (j == 0)
            if (auto r = detail::fold_as_reduction(acc.value(), before, col.value(), v, 1, loc); !r.empty()) return Tile<T>(r);
    }
    return acc;
}
// reduce_cols(t, init, f): fold each column top to bottom into 1 x C.
template <Element T, class I, class F> Tile<T> reduce_cols(const Tile<T>& t, const I& init, F&& f, Loc loc = Loc::here()) {
    auto v = t.value();
    if (v.type.rank() != 2) fail(loc, "reduce_cols", "needs a 2-D tile, got " + detail::type_str(v.type));
    auto rows = v.type.dims[0], cols = v.type.dims[1];
    Tile<T> acc(detail::full(detail::lift<T>(init), {detail::Dim{1, 0}, cols}, loc));
    for (std::int64_t i = 0; i < rows.extent; ++i) {
        Scalar<T> row(detail::slice(v, {i, 0}, {1, cols.extent}, loc));
        const auto before = acc.value();
        acc = Tile<T>(detail::result_value(f(Scalar<T>(before), row)));
        if (i == 0)
            if (auto r = detail::fold_as_reduction(acc.value(), before, row.value(), v, 0, loc); !r.empty()) return Tile<T>(r);
    }
    return acc;
}
// broadcast_rows(t, v, f): f(t[i][j], v[i][0]) for an R x 1 tile v.
template <Element T, class F> Tile<T> broadcast_rows(const Tile<T>& t, const Tile<T>& v, F&& f, Loc loc = Loc::here()) {
    auto tv = t.value(), vv = v.value();
    if (tv.type.rank() != 2 || vv.type.rank() != 2 || vv.type.dims[1].extent != 1 || vv.type.dims[0].extent != tv.type.dims[0].extent)
        fail(loc, "broadcast_rows", "shape mismatch: " + detail::type_str(tv.type) + " vs " + detail::type_str(vv.type) +
                                        " (expected a " + std::to_string(tv.type.rank() == 2 ? tv.type.dims[0].extent : 0) + "x1 tile)");
    auto b = detail::broadcast_to(vv, tv.type.dims, loc);
    return Tile<T>(detail::broadcast_to(detail::result_value(f(Scalar<T>(tv), Scalar<T>(b))), tv.type.dims, loc));
}
// broadcast_cols(t, v, f): f(t[i][j], v[0][j]) for a 1 x C tile v.
template <Element T, class F> Tile<T> broadcast_cols(const Tile<T>& t, const Tile<T>& v, F&& f, Loc loc = Loc::here()) {
    auto tv = t.value(), vv = v.value();
    if (tv.type.rank() != 2 || vv.type.rank() != 2 || vv.type.dims[0].extent != 1 || vv.type.dims[1].extent != tv.type.dims[1].extent)
        fail(loc, "broadcast_cols", "shape mismatch: " + detail::type_str(tv.type) + " vs " + detail::type_str(vv.type) +
                                        " (expected a 1x" + std::to_string(tv.type.rank() == 2 ? tv.type.dims[1].extent : 0) + " tile)");
    auto b = detail::broadcast_to(vv, tv.type.dims, loc);
    return Tile<T>(detail::broadcast_to(detail::result_value(f(Scalar<T>(tv), Scalar<T>(b))), tv.type.dims, loc));
}

}  // namespace kiln
