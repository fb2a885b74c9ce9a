// Random element values for the fuzzer's inputs, literals and scalar arguments,
// weighted toward the values where engines disagree: +-0, +-inf, NaN (with
// payloads and either sign), subnormals of each kind, the largest finite values
// and the integers at the edges of each width.
#pragma once

#include <cstdint>
#include <vector>

#include <kiln/kind.h>

#include "fuzz/rng.h"

namespace kiln::fuzz {

inline constexpr Kind kAllKinds[] = {Kind::Bool, Kind::I8, Kind::I32, Kind::I64, Kind::F16, Kind::BF16, Kind::F32, Kind::F64};

// One edge value, as the double (floats) or integer (ints, bools) it stands for.
double special_value(Rng& rng, Kind k);
std::int64_t special_int(Rng& rng, Kind k);

// How wild a buffer's contents are.
enum class Style : std::uint8_t {
    tame,     // small numbers only: the arithmetic stays meaningful
    wild,     // about one element in five is an edge value or a random bit pattern
};

// Fills `count` elements of kind k at `bytes` (storage layout of the kind).
void fill_elements(Rng& rng, Kind k, Style style, unsigned char* bytes, std::int64_t count);

// The element of kind k stored at p, as a double (integers exactly up to 2^53).
double element_value(Kind k, const unsigned char* p);

}  // namespace kiln::fuzz
