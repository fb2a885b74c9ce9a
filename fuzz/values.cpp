#include "fuzz/values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <kiln/numeric.h>

namespace kiln::fuzz {

namespace {

struct FloatFacts {
    double max_finite, min_normal, min_subnormal;
    int mantissa_bits;
};
FloatFacts facts(Kind k) {
    switch (k) {
        case Kind::F16: return {65504.0, 0x1p-14, 0x1p-24, 10};
        case Kind::BF16: return {0x1.fep127, 0x1p-126, 0x1p-133, 7};
        case Kind::F32: return {0x1.fffffep127, 0x1p-126, 0x1p-149, 23};
        default: return {std::numeric_limits<double>::max(), std::numeric_limits<double>::min(), std::numeric_limits<double>::denorm_min(), 52};
    }
}


// A random bit pattern of the kind's width: every class of float, NaN payloads included.
void random_bits(Rng& rng, Kind k, unsigned char* out) {
    std::uint64_t b = rng.next();
    std::memcpy(out, &b, static_cast<std::size_t>(kind_bytes(k)));  // little-endian: the low bytes
}

void store_float(Kind k, double v, unsigned char* out) {
    switch (k) {
        case Kind::F16: { f16 h(v); std::memcpy(out, &h.bits, 2); break; }
        case Kind::BF16: { bf16 h(v); std::memcpy(out, &h.bits, 2); break; }
        case Kind::F32: { float f = static_cast<float>(v); std::memcpy(out, &f, 4); break; }
        default: std::memcpy(out, &v, 8);
    }
}

void store_int(Kind k, std::int64_t v, unsigned char* out) {
    switch (k) {
        case Kind::Bool: out[0] = v != 0; break;  // only 0 and 1 are bools
        case Kind::I8: { auto x = static_cast<std::int8_t>(v); std::memcpy(out, &x, 1); break; }
        case Kind::I32: { auto x = static_cast<std::int32_t>(v); std::memcpy(out, &x, 4); break; }
        default: std::memcpy(out, &v, 8);
    }
}

}  // namespace

double special_value(Rng& rng, Kind k) {
    if (!is_float(k)) return static_cast<double>(special_int(rng, k));
    const FloatFacts f = facts(k);
    const double inf = std::numeric_limits<double>::infinity();
    const double sign = rng.chance(50) ? -1.0 : 1.0;
    switch (rng.below(12)) {
        case 0: return sign * 0.0;
        case 1: return sign * inf;
        case 2: return sign * std::numeric_limits<double>::quiet_NaN();
        case 3: return sign * f.max_finite;
        case 4: return sign * f.min_normal;
        case 5: return sign * f.min_subnormal * static_cast<double>(rng.between(1, 5));  // subnormal
        case 6: {  // large, maybe past f16/bf16 range
            const double m = 1.0 + rng.unit();
            return sign * std::ldexp(m, static_cast<int>(rng.between(8, 40)));
        }
        case 7: return sign * std::ldexp(1.0, static_cast<int>(rng.between(-30, -1)));             // small powers of two
        // A value halfway between two neighbours of the kind (a rounding tie), or just off one.
        case 8: return sign * (1.0 + std::ldexp(1.0, -f.mantissa_bits - 1) + (rng.chance(50) ? std::ldexp(1.0, -52) : 0.0));
        case 9: return sign * static_cast<double>(rng.between(0, 1 << 20));  // integers, some beyond f16's exact range
        case 10: return sign * (rng.chance(50) ? 1.0 : 0.5);
        default: return sign * rng.unit() * 1e-3;
    }
}

std::int64_t special_int(Rng& rng, Kind k) {
    if (k == Kind::Bool) return rng.below(2);
    const int bits = int_bits(k);
    const std::int64_t max = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
    const std::int64_t min = -max - 1;
    switch (rng.below(8)) {
        case 0: return min;
        case 1: return max;
        case 2: return -1;
        case 3: return 0;
        case 4: return 1;
        case 5: return min + 1;
        case 6: return max - rng.below(3);
        default: return static_cast<std::int64_t>(rng.next());  // wrapped to the width on store
    }
}

void fill_elements(Rng& rng, Kind k, Style style, unsigned char* bytes, std::int64_t count) {
    const std::int64_t w = kind_bytes(k);
    // Per buffer: a range for the ordinary values, so that some buffers hold small
    // integers (exact arithmetic, ties in argmax and sort) and some fractions.
    const bool integral = rng.chance(30);
    const double scale = integral ? static_cast<double>(rng.between(1, 9)) : std::ldexp(1.0, static_cast<int>(rng.between(-3, 6)));
    for (std::int64_t e = 0; e < count; ++e) {
        unsigned char* out = bytes + e * w;
        const bool edge = style == Style::wild && rng.chance(20);
        if (k == Kind::Bool) {
            store_int(k, rng.below(2), out);
        } else if (edge && rng.chance(25)) {
            random_bits(rng, k, out);
        } else if (is_float(k)) {
            double v = edge ? special_value(rng, k) : (rng.unit() * 2 - 1) * scale;
            if (integral && !edge) v = std::round(v);
            store_float(k, v, out);
        } else {
            const std::int64_t span = std::max<std::int64_t>(2, static_cast<std::int64_t>(scale) * 4);
            std::int64_t v = edge ? special_int(rng, k) : rng.between(-span, span);
            store_int(k, v, out);
        }
    }
}

double element_value(Kind k, const unsigned char* p) {
    switch (k) {
        case Kind::Bool: return p[0];
        case Kind::I8: return static_cast<std::int8_t>(p[0]);
        case Kind::I32: { std::int32_t x; std::memcpy(&x, p, 4); return x; }
        case Kind::I64: { std::int64_t x; std::memcpy(&x, p, 8); return static_cast<double>(x); }
        case Kind::F16: { std::uint16_t b; std::memcpy(&b, p, 2); return f16::from_bits(b).to_double(); }
        case Kind::BF16: { std::uint16_t b; std::memcpy(&b, p, 2); return bf16::from_bits(b).to_double(); }
        case Kind::F32: { float x; std::memcpy(&x, p, 4); return x; }
        case Kind::F64: break;
    }
    double x;
    std::memcpy(&x, p, 8);
    return x;
}

}  // namespace kiln::fuzz
