// C++ numbers that stand beside a Tile<T> in the generated programs (t * 2.5,
// 3 - t, ite(c, t, 0)): for floats a double (the DSL rounds it once to T), for
// integers an int64 (wrapped to T), for bools a bool. Edge values come up often.
#pragma once

#include <climits>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "fuzz/any_tile.h"
#include "fuzz/values.h"

namespace kiln::fuzz {

template <class T> auto literal(Rng& rng) {
    if constexpr (std::is_same_v<T, bool>) {
        return rng.chance(50);
    } else if constexpr (FloatElement<T>) {
        static const double plain[] = {0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 0.1, 1.0 / 3.0, 1e-3, 100.0};
        return rng.chance(60) ? plain[rng.below(11)] : special_value(rng, kind_of<T>);
    } else {
        return rng.chance(60) ? static_cast<std::int64_t>(rng.between(-3, 7)) : special_int(rng, kind_of<T>);
    }
}

// The lowest value of T: the identity of maximum.
template <class T> auto lowest() {
    if constexpr (FloatElement<T>) return -std::numeric_limits<double>::infinity();
    else if constexpr (std::is_same_v<T, i8>) return std::int64_t{-128};
    else if constexpr (std::is_same_v<T, i32>) return std::int64_t{INT32_MIN};
    else return std::int64_t{INT64_MIN};
}

// Operand and accumulator kinds mma accepts.
struct MmaKinds {
    Kind in, acc;
};
inline constexpr MmaKinds kMmaKinds[] = {{Kind::F32, Kind::F32}, {Kind::F64, Kind::F64}, {Kind::F16, Kind::F32}, {Kind::BF16, Kind::F32},
                                         {Kind::I8, Kind::I32},  {Kind::I32, Kind::I32}, {Kind::I64, Kind::I64}, {Kind::F16, Kind::F16},
                                         {Kind::BF16, Kind::BF16}, {Kind::I8, Kind::I8}};

}  // namespace kiln::fuzz
