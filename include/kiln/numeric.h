// kiln's numeric foundation on the C++ side: the f16/bf16 storage types, the
// rounding rules and deterministic math shared with generated code (the
// kiln_rt headers below are pasted verbatim into generated C++ and CUDA), and
// the float printing rule.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include <kiln/detail/kround.h>
#include <kiln/detail/kmath.h>

namespace kiln {

// IEEE binary16 storage. Construction from a number rounds once (nearest-even,
// directly from the double: no double rounding through float). There is no
// operator== on purpose: bit equality and value equality differ for NaN and
// +-0, so callers say which they mean (same_bits, or compare to_double()).
struct f16 {
    std::uint16_t bits = 0;

    constexpr f16() = default;
    explicit f16(double x) : bits(kiln_rt::f16_bits_from_double(x)) {}
    explicit f16(float x) : f16(static_cast<double>(x)) {}
    static constexpr f16 from_bits(std::uint16_t b) { f16 h; h.bits = b; return h; }

    double to_double() const { return kiln_rt::f16_bits_to_double(bits); }
    explicit operator double() const { return to_double(); }
    explicit operator float() const { return static_cast<float>(to_double()); }  // exact
    constexpr bool same_bits(f16 o) const { return bits == o.bits; }
};

// bfloat16 storage (8-bit exponent like f32, 7 fraction bits); same rules as f16.
struct bf16 {
    std::uint16_t bits = 0;

    constexpr bf16() = default;
    explicit bf16(double x) : bits(kiln_rt::bf16_bits_from_double(x)) {}
    explicit bf16(float x) : bf16(static_cast<double>(x)) {}
    static constexpr bf16 from_bits(std::uint16_t b) { bf16 h; h.bits = b; return h; }

    double to_double() const { return kiln_rt::bf16_bits_to_double(bits); }
    explicit operator double() const { return to_double(); }
    explicit operator float() const { return static_cast<float>(to_double()); }  // exact
    constexpr bool same_bits(bf16 o) const { return bits == o.bits; }
};

static_assert(sizeof(f16) == 2 && alignof(f16) == 2 && std::is_trivially_copyable_v<f16>);
static_assert(sizeof(bf16) == 2 && alignof(bf16) == 2 && std::is_trivially_copyable_v<bf16>);

// How kiln prints a float element: the shortest decimal that reads back as the
// same double, with ".0" added when that text is a bare integer ("12.0",
// "-0.0", "0.10000000149011612", "1e+30"); "inf", "-inf", "nan" for specials.
// Narrow kinds print their stored double, so an f32 0.1 shows its exact value.
std::string repr_float(double x);

}  // namespace kiln
