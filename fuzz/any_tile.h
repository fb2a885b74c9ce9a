// Tiles and scalars whose element kind is chosen at run time. The generator
// decides kinds from a seed, but kiln's kinds are C++ types; these variants hold
// one Tile<T> (or Scalar<T>) of any kind, and with_kind turns a run-time Kind
// back into a type so that generic code calls the typed DSL as a user would.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <kiln/kiln.h>

#include "fuzz/values.h"

namespace kiln::fuzz {

// Alternatives in Kind's order, so that index() is the kind.
using AnyTile = std::variant<Tile<bool>, Tile<i8>, Tile<i32>, Tile<i64>, Tile<f16>, Tile<bf16>, Tile<f32>, Tile<f64>>;
using AnyScalar = std::variant<Scalar<bool>, Scalar<i8>, Scalar<i32>, Scalar<i64>, Scalar<f16>, Scalar<bf16>, Scalar<f32>, Scalar<f64>>;
static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(Kind::F16), AnyTile>, Tile<f16>>);
static_assert(std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(Kind::F64), AnyTile>, Tile<f64>>);

// Calls f(std::type_identity<T>{}) for the element type T of kind k.
template <class F> decltype(auto) with_kind(Kind k, F&& f) {
    switch (k) {
        case Kind::Bool: return f(std::type_identity<bool>{});
        case Kind::I8: return f(std::type_identity<i8>{});
        case Kind::I32: return f(std::type_identity<i32>{});
        case Kind::I64: return f(std::type_identity<i64>{});
        case Kind::F16: return f(std::type_identity<f16>{});
        case Kind::BF16: return f(std::type_identity<bf16>{});
        case Kind::F32: return f(std::type_identity<f32>{});
        case Kind::F64: break;
    }
    return f(std::type_identity<f64>{});
}

inline Kind kind_of_tile(const AnyTile& t) { return static_cast<Kind>(t.index()); }
inline const std::vector<detail::Dim>& dims_of(const AnyTile& t) {
    return std::visit([](const auto& x) -> const std::vector<detail::Dim>& { return x.type().dims; }, t);
}
inline std::int64_t count_of(const AnyTile& t) { return std::visit([](const auto& x) { return x.type().count(); }, t); }

// The Tile<T> inside, for a caller that already knows T.
template <class T> const Tile<T>& as(const AnyTile& t) { return std::get<Tile<T>>(t); }

}  // namespace kiln::fuzz
