// Tile<T> and Scalar<T>: immutable values with an element kind T and a static shape.
// Outside a kernel they evaluate eagerly; inside one they are traced into the Tile IR.
#pragma once

#include <iosfwd>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include <kiln/shape.h>

namespace kiln {

template <Element T> class Tile;
template <Element T> class Scalar;

namespace detail {
// Lifts a C++ number to a scalar of kind T (the narrow-mode rule rounds it once).
template <Element T, class L> Value lift_literal(L x) {
    constexpr Kind k = kind_of<T>;
    if constexpr (std::is_same_v<T, bool>) return literal_bool(static_cast<bool>(x));
    else if constexpr (FloatElement<T>) return literal_float(k, static_cast<double>(x));
    else return literal_int(k, static_cast<std::int64_t>(x));
}
template <class T> struct is_tile : std::false_type {};
template <class T> struct is_tile<Tile<T>> : std::true_type {};
template <class T> struct is_scalar : std::false_type {};
template <class T> struct is_scalar<Scalar<T>> : std::true_type {};
template <class X> inline constexpr bool is_value_v = is_tile<X>::value || is_scalar<X>::value;
}  // namespace detail

// Operator operands. Operators cannot take default arguments, so each operand
// converts through one of these, whose constructor records the caller's line.
namespace detail {
template <Element T> struct TileOperand {
    Value v; Loc loc;
    TileOperand(const Tile<T>& t, std::source_location s = std::source_location::current());
};
template <Element T> struct NonTileOperand {
    Value v; Loc loc;
    NonTileOperand(const Scalar<T>& x, std::source_location s = std::source_location::current());
    template <class L> requires LiteralFor<T, L>
    NonTileOperand(L x, std::source_location s = std::source_location::current()) : v(lift_literal<T>(x)), loc{s.file_name(), s.line()} {}
    NonTileOperand(const Extent& e, std::source_location s = std::source_location::current()) requires std::is_same_v<T, i64>
        : v(e.symbolic()), loc{s.file_name(), s.line()} {}
};
template <Element T> struct AnyOperand {
    Value v; Loc loc;
    AnyOperand(const Tile<T>& t, std::source_location s = std::source_location::current());
    AnyOperand(const Scalar<T>& x, std::source_location s = std::source_location::current());
    template <class L> requires LiteralFor<T, L>
    AnyOperand(L x, std::source_location s = std::source_location::current()) : v(lift_literal<T>(x)), loc{s.file_name(), s.line()} {}
    AnyOperand(const Extent& e, std::source_location s = std::source_location::current()) requires std::is_same_v<T, i64>
        : v(e.symbolic()), loc{s.file_name(), s.line()} {}
};
}  // namespace detail

#define KILN_TILE_BINARY(OP, CODE, R)                                                                 \
    friend R operator OP(detail::TileOperand<T> a, detail::AnyOperand<T> b) {                       \
        return R(detail::binary(detail::OpCode::CODE, a.v, b.v, a.loc));                             \
    }                                                                                                 \
    friend R operator OP(detail::NonTileOperand<T> a, detail::TileOperand<T> b) {                   \
        return R(detail::binary(detail::OpCode::CODE, a.v, b.v, a.loc));                             \
    }
#define KILN_SCALAR_BINARY(OP, CODE, R)                                                               \
    friend R operator OP(detail::NonTileOperand<T> a, detail::NonTileOperand<T> b) {                \
        return R(detail::binary(detail::OpCode::CODE, a.v, b.v, a.loc));                             \
    }

// The operator set shared by Tile and Scalar (W = the wrapper, Tile or Scalar).
#define KILN_OPERATORS(BIN, W)                                                                        \
    BIN(+, add, W<T>) BIN(-, sub, W<T>) BIN(*, mul, W<T>) BIN(/, div, W<T>)                            \
    BIN(==, eq, W<bool>) BIN(!=, ne, W<bool>) BIN(<, lt, W<bool>) BIN(<=, le, W<bool>)                  \
    BIN(>, gt, W<bool>) BIN(>=, ge, W<bool>)

template <Element T> class Tile {
public:
    using element_type = T;
    explicit Tile(detail::Value v) : var_(detail::new_var(std::move(v))) {}
    Tile(const Scalar<T>& s);  // NOLINT: a scalar is a rank-0 tile
    Tile(const Tile& o) : var_(detail::new_var(o.value())) {}
    Tile(Tile&& o) noexcept = default;
    Tile& operator=(const Tile& o) { detail::assign(var_, o.value()); return *this; }
    Tile& operator=(Tile&& o) { detail::assign(var_, o.value()); return *this; }

    detail::Value value() const { return detail::read(var_); }
    const detail::Type& type() const { return var_->value.type; }
    // Eager inspection (outside kernels).
    std::vector<std::int64_t> shape() const;
    int rank() const { return type().rank(); }
    std::vector<T> to_vector(Loc loc = Loc::here()) const;
    T at(std::initializer_list<std::int64_t> index, Loc loc = Loc::here()) const;

    Tile& operator+=(detail::AnyOperand<T> b) { return *this = Tile(detail::binary(detail::OpCode::add, value(), b.v, b.loc)); }
    Tile& operator-=(detail::AnyOperand<T> b) { return *this = Tile(detail::binary(detail::OpCode::sub, value(), b.v, b.loc)); }
    Tile& operator*=(detail::AnyOperand<T> b) { return *this = Tile(detail::binary(detail::OpCode::mul, value(), b.v, b.loc)); }
    Tile& operator/=(detail::AnyOperand<T> b) { return *this = Tile(detail::binary(detail::OpCode::div, value(), b.v, b.loc)); }

    KILN_OPERATORS(KILN_TILE_BINARY, Tile)
    friend Tile operator-(detail::TileOperand<T> a) { return Tile(detail::unary(detail::OpCode::neg, a.v, a.loc)); }
    friend Tile operator%(detail::TileOperand<T> a, detail::AnyOperand<T> b) requires IntElement<T> {
        return Tile(detail::binary(detail::OpCode::mod, a.v, b.v, a.loc));
    }
    friend Tile operator&&(detail::TileOperand<T> a, detail::AnyOperand<T> b) requires std::is_same_v<T, bool> {
        return Tile(detail::binary(detail::OpCode::logical_and, a.v, b.v, a.loc));
    }
    friend Tile operator&&(detail::NonTileOperand<T> a, detail::TileOperand<T> b) requires std::is_same_v<T, bool> {
        return Tile(detail::binary(detail::OpCode::logical_and, a.v, b.v, a.loc));
    }
    friend Tile operator||(detail::TileOperand<T> a, detail::AnyOperand<T> b) requires std::is_same_v<T, bool> {
        return Tile(detail::binary(detail::OpCode::logical_or, a.v, b.v, a.loc));
    }
    friend Tile operator||(detail::NonTileOperand<T> a, detail::TileOperand<T> b) requires std::is_same_v<T, bool> {
        return Tile(detail::binary(detail::OpCode::logical_or, a.v, b.v, a.loc));
    }
    friend Tile operator!(detail::TileOperand<T> a) requires std::is_same_v<T, bool> {
        return Tile(detail::unary(detail::OpCode::logical_not, a.v, a.loc));
    }

private:
    detail::VarPtr var_;
};

template <Element T> class Scalar {
public:
    using element_type = T;
    explicit Scalar(detail::Value v) : var_(detail::new_var(std::move(v))) {}
    template <class L> requires LiteralFor<T, L>
    Scalar(L x) : var_(detail::new_var(detail::lift_literal<T>(x))) {}  // NOLINT: numbers are scalars
    Scalar(const Scalar& o) : var_(detail::new_var(o.value())) {}
    Scalar(Scalar&& o) noexcept = default;
    Scalar& operator=(const Scalar& o) { detail::assign(var_, o.value()); return *this; }
    Scalar& operator=(Scalar&& o) { detail::assign(var_, o.value()); return *this; }

    detail::Value value() const { return detail::read(var_); }
    // The number itself (eager only).
    T get(Loc loc = Loc::here()) const;
    // Not for bool: `!s`, `s && t` and `s || t` convert their operands to bool
    // contextually, explicit conversions included, so an operator bool here made
    // them ambiguous (or, beside a bool literal, an eager read of a traced value).
    explicit operator T() const requires(!std::is_same_v<T, bool>) { return get(Loc{}); }

    Scalar& operator+=(detail::NonTileOperand<T> b) { return *this = Scalar(detail::binary(detail::OpCode::add, value(), b.v, b.loc)); }
    Scalar& operator-=(detail::NonTileOperand<T> b) { return *this = Scalar(detail::binary(detail::OpCode::sub, value(), b.v, b.loc)); }
    Scalar& operator*=(detail::NonTileOperand<T> b) { return *this = Scalar(detail::binary(detail::OpCode::mul, value(), b.v, b.loc)); }

    KILN_OPERATORS(KILN_SCALAR_BINARY, Scalar)
    friend Scalar operator-(detail::NonTileOperand<T> a) requires(!std::is_same_v<T, bool>) {
        return Scalar(detail::unary(detail::OpCode::neg, a.v, a.loc));
    }
    friend Scalar operator%(detail::NonTileOperand<T> a, detail::NonTileOperand<T> b) requires IntElement<T> {
        return Scalar(detail::binary(detail::OpCode::mod, a.v, b.v, a.loc));
    }
    friend Scalar operator&&(detail::NonTileOperand<T> a, detail::NonTileOperand<T> b) requires std::is_same_v<T, bool> {
        return Scalar(detail::binary(detail::OpCode::logical_and, a.v, b.v, a.loc));
    }
    friend Scalar operator||(detail::NonTileOperand<T> a, detail::NonTileOperand<T> b) requires std::is_same_v<T, bool> {
        return Scalar(detail::binary(detail::OpCode::logical_or, a.v, b.v, a.loc));
    }
    friend Scalar operator!(detail::NonTileOperand<T> a) requires std::is_same_v<T, bool> {
        return Scalar(detail::unary(detail::OpCode::logical_not, a.v, a.loc));
    }

private:
    detail::VarPtr var_;
};

#undef KILN_OPERATORS
#undef KILN_TILE_BINARY
#undef KILN_SCALAR_BINARY

template <Element T> Tile<T>::Tile(const Scalar<T>& s) : var_(detail::new_var(s.value())) {}

namespace detail {
template <Element T> TileOperand<T>::TileOperand(const Tile<T>& t, std::source_location s) : v(t.value()), loc{s.file_name(), s.line()} {}
template <Element T> NonTileOperand<T>::NonTileOperand(const Scalar<T>& x, std::source_location s) : v(x.value()), loc{s.file_name(), s.line()} {}
template <Element T> AnyOperand<T>::AnyOperand(const Tile<T>& t, std::source_location s) : v(t.value()), loc{s.file_name(), s.line()} {}
template <Element T> AnyOperand<T>::AnyOperand(const Scalar<T>& x, std::source_location s) : v(x.value()), loc{s.file_name(), s.line()} {}

// Friendlier messages than "no match for operator+" when kinds differ.
template <class A, class B> struct kinds_differ : std::false_type {};
template <template <class> class W1, template <class> class W2, class T, class U>
    requires(is_value_v<W1<T>> && is_value_v<W2<U>> && !std::is_same_v<T, U>)
struct kinds_differ<W1<T>, W2<U>> : std::true_type {};
}  // namespace detail

#define KILN_KIND_MISMATCH(OP)                                                                          \
    template <class A, class B> requires detail::kinds_differ<A, B>::value                              \
    void operator OP(const A&, const B&) {                                                              \
        static_assert(always_false<A>::value,                                                           \
                      "kiln: element kinds differ; kinds never mix implicitly, convert with cast<T>()"); \
    }
KILN_KIND_MISMATCH(+) KILN_KIND_MISMATCH(-) KILN_KIND_MISMATCH(*) KILN_KIND_MISMATCH(/)
KILN_KIND_MISMATCH(<) KILN_KIND_MISMATCH(<=) KILN_KIND_MISMATCH(>) KILN_KIND_MISMATCH(>=)
#undef KILN_KIND_MISMATCH

// A literal that cannot stand beside a tile of this kind (2.5 beside an i64 tile).
namespace detail {
template <class X> struct wrapped_kind { using type = void; };
template <template <class> class W, class T> requires is_value_v<W<T>> struct wrapped_kind<W<T>> { using type = T; };
template <class V, class L>
concept BadLiteral = is_value_v<V> && std::is_arithmetic_v<L> && !LiteralFor<typename wrapped_kind<V>::type, L>;
}  // namespace detail
#define KILN_BAD_LITERAL(OP)                                                                                          \
    template <class V, class L> requires detail::BadLiteral<V, L>                                                       \
    void operator OP(const V&, const L&) {                                                                             \
        static_assert(always_false<V>::value,                                                                          \
                      "kiln: this literal cannot stand beside a tile of this kind (a floating-point number beside an " \
                      "integer tile?); convert explicitly");                                                           \
    }                                                                                                                  \
    template <class L, class V> requires detail::BadLiteral<V, L>                                                       \
    void operator OP(const L&, const V&) {                                                                             \
        static_assert(always_false<V>::value,                                                                          \
                      "kiln: this literal cannot stand beside a tile of this kind (a floating-point number beside an " \
                      "integer tile?); convert explicitly");                                                           \
    }
KILN_BAD_LITERAL(+) KILN_BAD_LITERAL(-) KILN_BAD_LITERAL(*) KILN_BAD_LITERAL(/)
KILN_BAD_LITERAL(==) KILN_BAD_LITERAL(!=) KILN_BAD_LITERAL(<) KILN_BAD_LITERAL(<=) KILN_BAD_LITERAL(>) KILN_BAD_LITERAL(>=)
#undef KILN_BAD_LITERAL

// Operators a kind has no meaning for: the friendlier message instead of "no match
// for operator%" (floats), "operator&&" or "operator!" (numbers; the last would
// otherwise reach a Scalar's explicit conversion to its number and read it eagerly).
namespace detail {
template <class X> concept FloatKilnValue = is_value_v<X> && FloatElement<typename wrapped_kind<X>::type>;
template <class X> concept NumberKilnValue = is_value_v<X> && !std::is_same_v<typename wrapped_kind<X>::type, bool>;
}  // namespace detail
template <class A, class B> requires(detail::FloatKilnValue<A> || detail::FloatKilnValue<B>)
void operator%(const A&, const B&) {
    static_assert(always_false<A>::value, "kiln: % takes integer kinds (floats have no remainder operator here)");
}
#define KILN_BOOL_ONLY(OP)                                                                                      \
    template <class A, class B> requires(detail::NumberKilnValue<A> || detail::NumberKilnValue<B>)              \
    void operator OP(const A&, const B&) {                                                                        \
        static_assert(always_false<A>::value, "kiln: && || and ! take bool tiles and scalars; compare first (x > 0)"); \
    }
KILN_BOOL_ONLY(&&) KILN_BOOL_ONLY(||)
#undef KILN_BOOL_ONLY
template <class A> requires detail::NumberKilnValue<A> void operator!(const A&) {
    static_assert(always_false<A>::value, "kiln: && || and ! take bool tiles and scalars; compare first (x > 0)");
}

// Value traits used by the generic functions in ops.h.
namespace detail {
template <class X> struct value_kind { using type = void; };
template <class T> struct value_kind<Tile<T>> { using type = T; };
template <class T> struct value_kind<Scalar<T>> { using type = T; };
template <> struct value_kind<Extent> { using type = i64; };
template <class X> using value_kind_t = typename value_kind<std::remove_cvref_t<X>>::type;

// The common kind of two operands, at least one of them a kiln value.
template <class A, class B> struct common_kind {
    using KA = value_kind_t<A>;
    using KB = value_kind_t<B>;
    static_assert(!(std::is_void_v<KA> && std::is_void_v<KB>), "kiln: at least one operand must be a Tile or Scalar");
    static_assert(std::is_void_v<KA> || std::is_void_v<KB> || std::is_same_v<KA, KB>,
                  "kiln: element kinds differ; kinds never mix implicitly, convert with cast<T>()");
    using type = std::conditional_t<std::is_void_v<KA>, KB, KA>;
};
template <class A, class B> using common_kind_t = typename common_kind<A, B>::type;

template <class T, class X> Value lift(const X& x) {
    using R = std::remove_cvref_t<X>;
    if constexpr (is_value_v<R>) return x.value();
    else if constexpr (std::is_same_v<R, Extent>) return x.symbolic();
    else {
        static_assert(LiteralFor<T, R>, "kiln: this literal cannot stand beside a tile of this kind "
                                        "(a floating-point number beside an integer tile?)");
        return lift_literal<T>(x);
    }
}
template <class A, class B> inline constexpr bool any_tile = is_tile<std::remove_cvref_t<A>>::value || is_tile<std::remove_cvref_t<B>>::value;
template <class T, class A, class B> using result_of = std::conditional_t<any_tile<A, B>, Tile<T>, Scalar<T>>;
}  // namespace detail

// coord(...): a tile origin; i64 scalars, numbers or extents. It records the line
// where the access is written.
class Coord {
public:
    std::vector<detail::Value> values;
    Loc loc;
};
namespace detail {
inline Value coord_value(const Scalar<i64>& s) { return s.value(); }
inline Value coord_value(const Extent& e) { return e.symbolic(); }
template <class I> requires std::is_integral_v<I> Value coord_value(I n) { return literal_int(Kind::I64, static_cast<std::int64_t>(n)); }
template <class T> Value coord_value(const Tile<T>&) {
    static_assert(always_false<T>::value, "kiln: coord() takes scalars (i64), numbers or extents, not tiles");
    return {};
}
}  // namespace detail

// coord is a class template so that its constructor can record the caller's line
// after a parameter pack (class template argument deduction does the rest).
template <class... A> struct coord : Coord {
    coord(const A&... a, std::source_location s = std::source_location::current())
        : Coord{{detail::coord_value(a)...}, Loc{s.file_name(), s.line()}} {}
};
template <class... A> coord(const A&...) -> coord<A...>;


namespace detail {
template <Element T> T element_from(const EagerData& d, std::size_t k) {
    if constexpr (FloatElement<T>) return static_cast<T>(d.floats[k]);
    else return static_cast<T>(d.ints[k]);
}
}  // namespace detail
template <Element T> std::vector<std::int64_t> Tile<T>::shape() const {
    std::vector<std::int64_t> s;
    for (auto& d : type().dims) s.push_back(d.extent);
    return s;
}
template <Element T> std::vector<T> Tile<T>::to_vector(Loc loc) const {
    auto v = value();
    const auto& d = detail::eager_data(v, loc, "to_vector");
    std::vector<T> out;
    for (std::size_t k = 0; k < static_cast<std::size_t>(v.type.count()); ++k) out.push_back(detail::element_from<T>(d, k));
    return out;
}
template <Element T> T Tile<T>::at(std::initializer_list<std::int64_t> index, Loc loc) const {
    auto v = value();
    const auto& d = detail::eager_data(v, loc, "at");
    if (static_cast<int>(index.size()) != v.type.rank())
        fail(loc, "at", "an index of rank " + std::to_string(index.size()) + " for a tile of shape " + detail::type_str(v.type));
    std::int64_t pos = 0;
    std::size_t k = 0;
    for (auto i : index) {
        auto e = v.type.dims[k++].extent;
        if (i < 0 || i >= e) fail(loc, "at", "index " + std::to_string(i) + " outside extent " + std::to_string(e) + " (dimension " + std::to_string(k - 1) + ")");
        pos = pos * e + i;
    }
    return detail::element_from<T>(d, static_cast<std::size_t>(pos));
}
template <Element T> T Scalar<T>::get(Loc loc) const {
    auto v = value();
    const auto& d = detail::eager_data(v, loc, "get");
    if (v.type.count() != 1) fail(loc, "get", "not a single value: shape " + detail::type_str(v.type));
    return detail::element_from<T>(d, 0);
}

// An axis whose extent is computed inside the kernel (a loop trip count that depends
// on the program index, e.g. causal attention's key blocks up to the diagonal).
template <class S> requires std::is_same_v<S, Scalar<i64>>
Axis axis(std::string name, const S& extent, Loc loc = Loc::here()) {
    return Axis(std::move(name), Extent::runtime(extent.value()), loc);
}

std::ostream& operator<<(std::ostream& os, const detail::Value& v);
std::string to_string(const detail::Value& v);
template <Element T> std::ostream& operator<<(std::ostream& os, const Tile<T>& t) { return os << t.value(); }
template <Element T> std::ostream& operator<<(std::ostream& os, const Scalar<T>& s) { return os << s.value(); }
template <Element T> std::string to_string(const Tile<T>& t) { return to_string(t.value()); }
template <Element T> std::string to_string(const Scalar<T>& s) { return to_string(s.value()); }

}  // namespace kiln
