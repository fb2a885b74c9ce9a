// Element kinds. Kinds are C++ types, so mixing kinds is a C++ compile error:
// bool, i8, i32, i64, f16, bf16 (kiln storage types), f32 (= float), f64 (= double).
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include <kiln/numeric.h>

namespace kiln {

using i8 = std::int8_t;
using i32 = std::int32_t;
using i64 = std::int64_t;
using f32 = float;
using f64 = double;

enum class Kind : std::uint8_t { Bool, I8, I32, I64, F16, BF16, F32, F64 };

constexpr std::string_view kind_name(Kind k) {
    switch (k) {
        case Kind::Bool: return "bool";
        case Kind::I8: return "i8";
        case Kind::I32: return "i32";
        case Kind::I64: return "i64";
        case Kind::F16: return "f16";
        case Kind::BF16: return "bf16";
        case Kind::F32: return "f32";
        case Kind::F64: return "f64";
    }
    return "?";
}
constexpr bool is_float(Kind k) { return k == Kind::F16 || k == Kind::BF16 || k == Kind::F32 || k == Kind::F64; }
constexpr bool is_int(Kind k) { return k == Kind::I8 || k == Kind::I32 || k == Kind::I64; }
// Bits of storage per element (bool is stored as one byte).
constexpr int kind_bytes(Kind k) {
    switch (k) {
        case Kind::Bool: case Kind::I8: return 1;
        case Kind::F16: case Kind::BF16: return 2;
        case Kind::I32: case Kind::F32: return 4;
        default: return 8;
    }
}

// Width of an integer kind in bits (bool: 1; floats: 0). Integer arithmetic wraps
// at this width.
constexpr int int_bits(Kind k) {
    switch (k) {
        case Kind::Bool: return 1;
        case Kind::I8: return 8;
        case Kind::I32: return 32;
        case Kind::I64: return 64;
        case Kind::F16: case Kind::BF16: case Kind::F32: case Kind::F64: return 0;
    }
    return 0;
}

template <class T> struct always_false : std::false_type {};

// kind_of<T>: the kind of a C++ element type. An unsupported type (fp8, unsigned,
// long double ...) is a compile error with an explicit message.
template <class T> struct KindOf {
    static_assert(always_false<T>::value,
                  "kiln: unsupported element type; kinds are bool, i8, i32, i64, f16, bf16, f32, f64 "
                  "(fp8 is not implemented)");
};
template <> struct KindOf<bool> { static constexpr Kind value = Kind::Bool; };
template <> struct KindOf<i8> { static constexpr Kind value = Kind::I8; };
template <> struct KindOf<i32> { static constexpr Kind value = Kind::I32; };
template <> struct KindOf<i64> { static constexpr Kind value = Kind::I64; };
template <> struct KindOf<f16> { static constexpr Kind value = Kind::F16; };
template <> struct KindOf<bf16> { static constexpr Kind value = Kind::BF16; };
template <> struct KindOf<f32> { static constexpr Kind value = Kind::F32; };
template <> struct KindOf<f64> { static constexpr Kind value = Kind::F64; };
// fp8 storage types exist so that using them says so explicitly.
struct f8e4m3 { std::uint8_t bits = 0; };
struct f8e5m2 { std::uint8_t bits = 0; };
template <class T> requires(std::is_same_v<T, f8e4m3> || std::is_same_v<T, f8e5m2>) struct KindOf<T> {
    static_assert(always_false<T>::value, "kiln: fp8 kinds (f8e4m3, f8e5m2) are not implemented yet");
};
template <class T> inline constexpr Kind kind_of = KindOf<std::remove_cv_t<T>>::value;

template <class T> concept Element =
    std::is_same_v<T, bool> || std::is_same_v<T, i8> || std::is_same_v<T, i32> || std::is_same_v<T, i64> ||
    std::is_same_v<T, f16> || std::is_same_v<T, bf16> || std::is_same_v<T, f32> || std::is_same_v<T, f64>;
template <class T> concept FloatElement =
    std::is_same_v<T, f16> || std::is_same_v<T, bf16> || std::is_same_v<T, f32> || std::is_same_v<T, f64>;
template <class T> concept IntElement = std::is_same_v<T, i8> || std::is_same_v<T, i32> || std::is_same_v<T, i64>;

// A C++ literal may stand beside a tile of kind T: any number beside a float tile
// (rounded once to T, the narrow-mode rule), an f16 or bf16 value too (the number it
// holds: `x.load(bf16(0))`, `t * bf16(0.5f)`), an integer beside an integer tile, a
// bool beside a bool tile. A float literal beside an integer tile is refused.
template <class T, class L> concept LiteralFor =
    (std::is_arithmetic_v<L> &&
     ((FloatElement<T> && !std::is_same_v<L, bool>) ||
      (IntElement<T> && std::is_integral_v<L> && !std::is_same_v<L, bool>) ||
      (std::is_same_v<T, bool> && std::is_same_v<L, bool>))) ||
    (FloatElement<T> && (std::is_same_v<L, f16> || std::is_same_v<L, bf16>));

// The kind a lone literal takes (ite(c, 1.0f, 0.0f), filled(r, c, 7)).
template <class L> struct LiteralKind { using type = std::conditional_t<std::is_same_v<L, bool>, bool,
    std::conditional_t<std::is_floating_point_v<L>, std::conditional_t<std::is_same_v<L, float>, f32, f64>, i64>>; };
template <class L> using literal_kind_t = typename LiteralKind<std::remove_cvref_t<L>>::type;

}  // namespace kiln
