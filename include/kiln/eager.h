// Seed 000's vocabulary: 2-D tiles built and combined as plain C++ values, and the
// 1-D buffer windows (load, store, load_or, store_clipped, load_rows, store_rows)
// over host vectors. Inside a kernel the same functions trace.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include <kiln/detail/ir_enums.h>
#include <kiln/ops.h>

namespace kiln {

namespace detail {
Value eager_arange(std::int64_t rows, std::int64_t cols, Loc loc);
Value eager_from(Kind k, std::int64_t rows, std::int64_t cols, const std::vector<double>* f, const std::vector<std::int64_t>* i, Loc loc);
template <class T> Value from_values(const std::vector<T>& v, std::int64_t rows, std::int64_t cols, Loc loc) {
    if constexpr (FloatElement<T>) {
        std::vector<double> f;
        f.reserve(v.size());
        for (auto& x : v) f.push_back(static_cast<double>(x));
        return eager_from(kind_of<T>, rows, cols, &f, nullptr, loc);
    } else {
        std::vector<std::int64_t> i;
        i.reserve(v.size());
        for (auto& x : v) i.push_back(static_cast<std::int64_t>(x));
        return eager_from(kind_of<T>, rows, cols, nullptr, &i, loc);
    }
}
// The host-vector element type a seed-000 literal buffer maps to.
template <class T> using buffer_kind_t = std::conditional_t<std::is_same_v<T, int>, i64, T>;
void check_window(std::int64_t size, std::int64_t off, std::int64_t count, std::int64_t stride, std::int64_t rows,
                  std::int64_t cols, const char* op, Loc loc);

// Inside a closure that run_metal traces (target.h Closure) the windows below are
// recorded as accesses of the vectors, each vector a 1-D view parameter of the
// kernel, instead of reading or writing them now. `data`/`size`/`kind` name the
// vector; the result is a rows x cols tile of kind `result` (a vector<int> loads
// as i64, as from_vec makes it).
bool closure_tracing();
Value closure_load(const void* data, std::int64_t size, Kind kind, Kind result, const Value& off, std::int64_t stride, std::int64_t rows,
                   std::int64_t cols, const Value* fallback, const char* op, Loc loc);
void closure_store(const void* data, std::int64_t size, Kind kind, const Value& off, std::int64_t stride, const Value& value, bounds::Policy policy,
                   const char* op, Loc loc);
// The strict forms raise on the host; a device kernel cannot (seed 000's contract).
[[noreturn]] void closure_strict(const char* op, const char* masked, Loc loc);
template <class T> constexpr Kind vector_kind() { return kind_of<T>; }
}  // namespace detail

// arange(r, c): the r x c row-major iota (i64).
inline Tile<i64> arange(std::int64_t rows, std::int64_t cols, Loc loc = Loc::here()) { return Tile<i64>(detail::eager_arange(rows, cols, loc)); }
// filled(r, c, x): kind from x (integers -> i64, double -> f64, float -> f32).
template <class X> requires std::is_arithmetic_v<X> auto filled(std::int64_t rows, std::int64_t cols, X x, Loc loc = Loc::here()) {
    using T = literal_kind_t<X>;
    return Tile<T>(detail::full(detail::lift_literal<T>(x), {detail::Dim{rows, 0}, detail::Dim{cols, 0}}, loc));
}
template <Element T = f64> Tile<T> zeros(std::int64_t rows, std::int64_t cols, Loc loc = Loc::here()) {
    return Tile<T>(detail::full(detail::lift_literal<T>(0), {detail::Dim{rows, 0}, detail::Dim{cols, 0}}, loc));
}
template <Element T> Tile<T> from_vec(const std::vector<T>& v, std::int64_t rows, std::int64_t cols, Loc loc = Loc::here()) {
    return Tile<T>(detail::from_values(v, rows, cols, loc));
}
// Seed 000's int buffers are i64 tiles (buffer_kind_t); the data is widened so that
// the Tile<i64> really holds i64 elements. from_vec<i32>(v, ...) keeps them i32.
inline Tile<i64> from_vec(const std::vector<int>& v, std::int64_t rows, std::int64_t cols, Loc loc = Loc::here()) {
    return Tile<i64>(detail::from_values(std::vector<i64>(v.begin(), v.end()), rows, cols, loc));
}

// dot(a, b): the 2-D product; each product rounded, accumulated in the pinned order,
// result kind = operand kind.
template <Element T> Tile<T> dot(const Tile<T>& a, const Tile<T>& b, Loc loc = Loc::here()) {
    return Tile<T>(detail::dot(a.value(), b.value(), loc));
}
// sum(t): every element, folded row-major.
template <Element T> Scalar<T> sum(const Tile<T>& t, Loc loc = Loc::here()) {
    auto v = t.value();
    std::vector<int> all;
    for (int d = 0; d < v.type.rank(); ++d) all.push_back(-(d + 1));
    return Scalar<T>(detail::reduce(detail::OpCode::reduce_add, v, all, false, loc));
}
template <Element T, class X> Tile<T> scale(const Tile<T>& t, const X& x, Loc loc = Loc::here()) { return mul(t, x, loc); }

// ---- 1-D buffer windows over host vectors (seed 000's Vec).
// load: r*c elements from off; raises on an out-of-range window.
template <class T> auto load(const std::vector<T>& v, std::int64_t off, std::int64_t rows, std::int64_t cols, Loc loc = Loc::here()) {
    if (detail::closure_tracing()) detail::closure_strict("load", "load_or", loc);
    detail::check_window(static_cast<std::int64_t>(v.size()), off, rows * cols, cols, rows, cols, "load", loc);
    std::vector<T> w(v.begin() + off, v.begin() + off + rows * cols);
    return from_vec(w, rows, cols, loc);
}
// load_or: like load, past the end (or before the start) reads `fallback`.
template <class T, class F> auto load_or(const std::vector<T>& v, std::int64_t off, std::int64_t rows, std::int64_t cols, F fallback,
                                         Loc loc = Loc::here()) {
    if (detail::closure_tracing()) return load_or(v, Scalar<i64>(detail::literal_int(Kind::I64, off)), rows, cols, fallback, loc);
    std::vector<T> w(static_cast<std::size_t>(rows * cols));
    for (std::int64_t k = 0; k < rows * cols; ++k) {
        std::int64_t p = off + k;
        w[static_cast<std::size_t>(k)] = (p >= 0 && p < static_cast<std::int64_t>(v.size())) ? v[static_cast<std::size_t>(p)] : static_cast<T>(fallback);
    }
    return from_vec(w, rows, cols, loc);
}
// load_rows: an r x c tile from a row-major matrix with row stride `stride` at off;
// with a fallback, out-of-range elements read it, without one they raise.
template <class T> auto load_rows(const std::vector<T>& v, std::int64_t off, std::int64_t stride, std::int64_t rows, std::int64_t cols,
                                  Loc loc = Loc::here()) {
    if (detail::closure_tracing()) detail::closure_strict("load_rows", "load_rows with a fallback", loc);
    detail::check_window(static_cast<std::int64_t>(v.size()), off, rows * cols, stride, rows, cols, "load_rows", loc);
    std::vector<T> w;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) w.push_back(v[static_cast<std::size_t>(off + r * stride + c)]);
    return from_vec(w, rows, cols, loc);
}
template <class T, class F> requires std::is_arithmetic_v<F>
auto load_rows(const std::vector<T>& v, std::int64_t off, std::int64_t stride, std::int64_t rows, std::int64_t cols, F fallback,
               Loc loc = Loc::here()) {
    if (detail::closure_tracing()) return load_rows(v, Scalar<i64>(detail::literal_int(Kind::I64, off)), stride, rows, cols, fallback, loc);
    std::vector<T> w;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) {
            std::int64_t p = off + r * stride + c;
            bool ok = c < stride && p >= 0 && p < static_cast<std::int64_t>(v.size());
            w.push_back(ok ? v[static_cast<std::size_t>(p)] : static_cast<T>(fallback));
        }
    return from_vec(w, rows, cols, loc);
}
namespace detail {
template <class T, class U> void write_back(std::vector<T>& v, std::int64_t p, const std::vector<U>& src, std::size_t k) {
    v[static_cast<std::size_t>(p)] = static_cast<T>(src[k]);
}
}  // namespace detail
// store: writes t's elements from off; raises on an out-of-range window.
template <class T, class U> void store(std::vector<T>& v, std::int64_t off, const Tile<U>& t, Loc loc = Loc::here()) {
    if (detail::closure_tracing()) detail::closure_strict("store", "store_clipped", loc);
    auto vals = t.to_vector(loc);
    detail::check_window(static_cast<std::int64_t>(v.size()), off, static_cast<std::int64_t>(vals.size()), static_cast<std::int64_t>(vals.size()), 1,
                         static_cast<std::int64_t>(vals.size()), "store", loc);
    for (std::size_t k = 0; k < vals.size(); ++k) detail::write_back(v, off + static_cast<std::int64_t>(k), vals, k);
}
// store_clipped: drops the writes that fall outside the vector.
template <class T, class U> void store_clipped(std::vector<T>& v, std::int64_t off, const Tile<U>& t, Loc loc = Loc::here()) {
    if (detail::closure_tracing()) return store_clipped(v, Scalar<i64>(detail::literal_int(Kind::I64, off)), t, loc);
    auto vals = t.to_vector(loc);
    for (std::size_t k = 0; k < vals.size(); ++k) {
        std::int64_t p = off + static_cast<std::int64_t>(k);
        if (p >= 0 && p < static_cast<std::int64_t>(v.size())) detail::write_back(v, p, vals, k);
    }
}
// store_rows: writes an r x c tile into a row-major matrix with row stride `stride`.
template <class T, class U> void store_rows(std::vector<T>& v, std::int64_t off, std::int64_t stride, const Tile<U>& t, Loc loc = Loc::here()) {
    if (detail::closure_tracing()) return store_rows(v, Scalar<i64>(detail::literal_int(Kind::I64, off)), stride, t, loc);
    auto shape = t.shape();
    if (shape.size() != 2) fail(loc, "store_rows", "needs a 2-D tile");
    detail::check_window(static_cast<std::int64_t>(v.size()), off, shape[0] * shape[1], stride, shape[0], shape[1], "store_rows", loc);
    auto vals = t.to_vector(loc);
    for (std::int64_t r = 0; r < shape[0]; ++r)
        for (std::int64_t c = 0; c < shape[1]; ++c)
            detail::write_back(v, off + r * stride + c, vals, static_cast<std::size_t>(r * shape[1] + c));
}

// ---- the windows with a traced offset: the instance id of a closure run_metal
// traces is a Scalar<i64>, and so is every offset computed from it.
template <class T, class F> requires std::is_arithmetic_v<F>
Tile<detail::buffer_kind_t<T>> load_or(const std::vector<T>& v, const Scalar<i64>& off, std::int64_t rows, std::int64_t cols, F fallback,
                                        Loc loc = Loc::here()) {
    const detail::Value fb = detail::lift_literal<T>(fallback);
    return Tile<detail::buffer_kind_t<T>>(detail::closure_load(v.data(), static_cast<std::int64_t>(v.size()), kind_of<T>,
                                                               kind_of<detail::buffer_kind_t<T>>, off.value(), cols, rows, cols, &fb, "load_or", loc));
}
template <class T, class F> requires std::is_arithmetic_v<F>
Tile<detail::buffer_kind_t<T>> load_rows(const std::vector<T>& v, const Scalar<i64>& off, std::int64_t stride, std::int64_t rows,
                                          std::int64_t cols, F fallback, Loc loc = Loc::here()) {
    const detail::Value fb = detail::lift_literal<T>(fallback);
    return Tile<detail::buffer_kind_t<T>>(detail::closure_load(v.data(), static_cast<std::int64_t>(v.size()), kind_of<T>,
                                                               kind_of<detail::buffer_kind_t<T>>, off.value(), stride, rows, cols, &fb, "load_rows", loc));
}
template <class T> auto load(const std::vector<T>& v, const Scalar<i64>&, std::int64_t, std::int64_t, Loc loc = Loc::here()) {
    detail::closure_strict("load", "load_or", loc);
    return load_or(v, Scalar<i64>(detail::literal_int(Kind::I64, 0)), 1, 1, 0, loc);  // not reached
}
template <class T> auto load_rows(const std::vector<T>& v, const Scalar<i64>&, std::int64_t, std::int64_t, std::int64_t, Loc loc = Loc::here()) {
    detail::closure_strict("load_rows", "load_rows with a fallback", loc);
    return load_or(v, Scalar<i64>(detail::literal_int(Kind::I64, 0)), 1, 1, 0, loc);  // not reached
}
template <class T, class U> void store_clipped(std::vector<T>& v, const Scalar<i64>& off, const Tile<U>& t, Loc loc = Loc::here()) {
    detail::closure_store(v.data(), static_cast<std::int64_t>(v.size()), kind_of<T>, off.value(), 0, t.value(), bounds::zero, "store_clipped", loc);
}
// Seed 000 has no masked row-strided store; its matrix-unit kernel stores with
// store_rows on the device. There it is a store the caller promises in range
// (bounds::assume: the device masks it, the host form raises).
template <class T, class U> void store_rows(std::vector<T>& v, const Scalar<i64>& off, std::int64_t stride, const Tile<U>& t, Loc loc = Loc::here()) {
    detail::closure_store(v.data(), static_cast<std::int64_t>(v.size()), kind_of<T>, off.value(), stride, t.value(), bounds::assume, "store_rows", loc);
}
template <class T, class U> void store(std::vector<T>&, const Scalar<i64>&, const Tile<U>&, Loc loc = Loc::here()) {
    detail::closure_strict("store", "store_clipped", loc);
}
// filled(r, c, x) with a traced x (pid * pid in a closure).
template <Element T> Tile<T> filled(std::int64_t rows, std::int64_t cols, const Scalar<T>& x, Loc loc = Loc::here()) {
    return Tile<T>(detail::full(x.value(), {detail::Dim{rows, 0}, detail::Dim{cols, 0}}, loc));
}

// repr(x): a number as kiln prints it (floats: shortest round-trip, at least one
// fractional digit: 12.0, 0.10000000149011612).
std::string repr(double x);
std::string repr(std::int64_t x);
inline std::string repr(int x) { return repr(static_cast<std::int64_t>(x)); }

}  // namespace kiln
