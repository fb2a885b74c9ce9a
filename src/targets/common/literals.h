// Exact literals of kiln's kinds in generated C++ (hex floats; bit patterns where
// C++ has no literal: infinities and NaNs), for every target's dialect.
#pragma once

#include <cstdint>
#include <string>

#include <kiln/kind.h>

namespace kiln::targets {

// How a target's C++ dialect spells what standard literals cannot.
struct LiteralDialect {
    const char* float_from_bits;   // a float from its bits, "%s" standing for a 0x...u literal
    const char* double_from_bits;  // a double from its bits, "%s" for a 0x...ULL literal
    const char* true_word;         // bool literals
    const char* false_word;
    bool narrow_in_float;          // f16/bf16 values are held in float (else in double)
    const char* i64_suffix = "LL";   // of 64-bit integer literals
    const char* u64_suffix = "ULL";  // of the 0x... bit patterns of doubles
    bool hex_floats = true;          // finite floats as hex literals (else as 9 significant digits)
    bool f64_as_bits = false;        // every double from its bits (a dialect without double literals)
};
extern const LiteralDialect kHostDialect;   // g++/clang++: __builtin_bit_cast; bools as 1 / 0
extern const LiteralDialect kCudaDialect;   // NVRTC: __uint_as_float / __longlong_as_double; true / false
extern const LiteralDialect kMetalDialect;  // MSL: as_type; f16/bf16 in float; doubles as kf64 from their bits

// The exact literal of a value of kind k (f for floats, i for integers and bools),
// in the register type of its kind (f32 float, f64 double, f16/bf16 as the dialect
// holds them).
std::string literal(Kind k, double f, std::int64_t i, const LiteralDialect& d);

}  // namespace kiln::targets
