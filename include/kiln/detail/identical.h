// What "bit-exact" means when two engines' outputs are compared (kiln compare, the
// differential fuzzer, the cross-target tests): the same bytes, element by element,
// except that any two f32/f64 NaNs count as identical.
//
// Why NaNs are the exception: IEEE 754 leaves a NaN result's sign and payload open,
// and hardware differs. x86 returns the first operand's NaN when both operands are
// NaNs, so which NaN an a + b yields depends on the operand order the compiler
// picked for a commutative operation (the interpreter built at -O0 and the cpu
// target's -O2 code differ there); GPUs return one canonical NaN. Narrow floats
// (f16, bf16) are written through kiln's own rounding, which canonicalises NaNs,
// so they compare byte for byte like every other kind.
#pragma once

#include <cstring>

#include "kiln/kind.h"

namespace kiln::detail {

inline bool is_nan_bits(Kind k, const void* p) {
    if (k == Kind::F32) {
        unsigned bits;
        std::memcpy(&bits, p, 4);
        return (bits & 0x7fffffffu) > 0x7f800000u;
    }
    if (k == Kind::F64) {
        unsigned long long bits;
        std::memcpy(&bits, p, 8);
        return (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    }
    return false;
}

// Whether two stored elements of kind k are identical under the exact contract.
inline bool identical_elements(Kind k, const void* a, const void* b) {
    const auto width = static_cast<std::size_t>(kind_bytes(k));
    if (std::memcmp(a, b, width) == 0) return true;
    return is_nan_bits(k, a) && is_nan_bits(k, b);
}

// The first element of two same-sized buffers of kind k that is not identical, or
// -1 when every element is.
inline long long first_non_identical(Kind k, const void* a_data, const void* b_data, std::size_t bytes) {
    if (bytes == 0 || std::memcmp(a_data, b_data, bytes) == 0) return -1;  // (memcmp of null, 0 is undefined)
    const auto* a = static_cast<const unsigned char*>(a_data);
    const auto* b = static_cast<const unsigned char*>(b_data);
    const auto width = static_cast<std::size_t>(kind_bytes(k));
    for (std::size_t e = 0; e * width < bytes; ++e)
        if (!identical_elements(k, a + e * width, b + e * width)) return static_cast<long long>(e);
    return -1;
}

}  // namespace kiln::detail
