// Helpers every generated Metal kernel uses, pasted after kf64 and kiln's
// rounding and math (kround.h, kmath.h in kiln's MSL dialect: doubles as kf64).
// Each reproduces the interpreter's definition (src/interp) on the types the
// kernels hold their tiles in:
//   bool -> bool, i8 -> char, i32 -> int, i64 -> long, f64 -> kf64,
//   f32 -> float, f16 and bf16 -> float holding the exact value.
// f16 and bf16 live in device memory as their bits (ushort) and are converted
// here with integer code, so results depend neither on the device's half
// conversions nor on a bfloat type (MSL has bfloat only from version 3.1).
// f32 + - * / run as float operations (correctly rounded without fast math),
// which is the interpreter's f64 result rounded once; f16 and bf16 ones run
// in float and round once more to their kind, which is the same value
// (24 >= 2p + 2 bits for p = 11 and 8: the double rounding is innocuous).
// Everything else that the interpreter computes in f64 (math functions,
// rsqrt, conversions from integers) goes through kf64 here.
#ifndef KILN_METAL_HELPERS_H
#define KILN_METAL_HELPERS_H

// ---- narrow floats: RNE from float to f16 / bf16 bits, exact widening back.
// `mant` stored fraction bits and `ebits` exponent bits of the narrow format.
inline uint kiln_narrow_from_float(float x, int mant, int ebits) {
    const uint b = as_type<uint>(x);
    const uint sign = (b >> 31) << (mant + ebits);
    const uint mag = b & 0x7fffffffu;
    const uint emask = (1u << ebits) - 1u, inf = emask << mant;
    if (mag >= 0x7f800000u) return mag > 0x7f800000u ? inf | (1u << (mant - 1)) : sign | inf;  // NaN: canonical quiet
    const int bias = (int)(emask >> 1), emin = 1 - bias;
    const int fe = (int)(mag >> 23);
    uint sig;
    int e;
    if (fe == 0) {  // float subnormal: frac * 2^-149
        if (mag == 0) return sign;
        sig = mag;
        e = -126;   // sig * 2^(e - 23)
    } else {
        sig = (mag & 0x7fffffu) | 0x800000u;
        e = fe - 127;
    }
    const int shift = 23 - mant + (e < emin ? emin - e : 0);
    if (shift > 25) return sign;  // below half the smallest subnormal
    uint q = sig >> shift;
    const uint rest = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1u) != 0)) q += 1;
    uint out = e < emin ? q : ((uint)(e + bias) << mant) + q - (1u << mant);
    if (e >= emin && out >= inf) out = inf;
    return sign | out;
}
inline float kiln_narrow_to_float(uint h, int mant, int ebits) {
    const uint emask = (1u << ebits) - 1u;
    const int bias = (int)(emask >> 1);
    const uint sign = ((h >> (mant + ebits)) & 1u) << 31;
    const uint ef = (h >> mant) & emask, frac = h & ((1u << mant) - 1u);
    if (ef == emask) return as_type<float>(sign | 0x7f800000u | (frac << (23 - mant)) | (frac != 0 ? 0x400000u : 0u));
    if (ef == 0) {  // frac 2^-mant 2^(1 - bias), each step exact in float (2^(1 - bias) is normal)
        if (frac == 0) return as_type<float>(sign);
        const float v = ((float)(int)frac * as_type<float>((uint)(127 - mant) << 23)) * as_type<float>((uint)(127 + 1 - bias) << 23);
        return sign != 0 ? -v : v;
    }
    return as_type<float>(sign | ((uint)((int)ef - bias + 127) << 23) | (frac << (23 - mant)));
}
inline ushort kiln_f16_bits(float x) { return (ushort)kiln_narrow_from_float(x, 10, 5); }
inline ushort kiln_bf16_bits(float x) { return (ushort)kiln_narrow_from_float(x, 7, 8); }
inline float kiln_f16_value(ushort h) { return kiln_narrow_to_float((uint)h, 10, 5); }
inline float kiln_bf16_value(ushort h) { return kiln_narrow_to_float((uint)h, 7, 8); }
inline float kiln_r16(float x) { return kiln_f16_value(kiln_f16_bits(x)); }
inline float kiln_rbf16(float x) { return kiln_bf16_value(kiln_bf16_bits(x)); }
// An f64 result (kf64) rounded once to a narrow kind: the interpreter's round_*.
inline float kiln_r32d(kf64 x) { return (float)x; }
inline float kiln_r16d(kf64 x) { return kiln_f16_value(kiln_rt::f16_bits_from_double(x)); }
inline float kiln_rbf16d(kf64 x) { return kiln_bf16_value(kiln_rt::bf16_bits_from_double(x)); }

// ---- element values as tiles hold them, from and to their device storage.
inline kf64 kiln_load_f64(ulong b) { return kf64_from_bits(b); }
inline ulong kiln_store_f64(kf64 x) { return x.bits; }

// ---- float ops with the interpreter's definitions.
inline bool kiln_signbit(float x) { return (as_type<uint>(x) >> 31) != 0; }
// |x|: -0 -> +0, NaN unchanged.
inline float kiln_abs(float x) { return x < 0.0f || (x == 0.0f && kiln_signbit(x)) ? -x : x; }
// The same on kf64: the sign bit cleared, except for a NaN (unchanged).
inline kf64 kiln_abs64(kf64 x) {
    const ulong magnitude = x.bits & 0x7fffffffffffffffUL;
    return magnitude > 0x7ff0000000000000UL ? x : kf64_from_bits(magnitude);
}
// maximum/minimum: NaN propagates, max(-0, +0) = +0, min(-0, +0) = -0 (kiln_rt::k_max).
inline float kiln_max(float a, float b) {
    if (a != a || b != b) return a + b;
    if (a == b) return kiln_signbit(a) ? b : a;
    return a > b ? a : b;
}
inline float kiln_min(float a, float b) {
    if (a != a || b != b) return a + b;
    if (a == b) return kiln_signbit(a) ? a : b;
    return a < b ? a : b;
}
// float -> integer: truncate toward zero, saturate to `bits`, NaN -> 0
// (kiln_rt::f64_to_int_sat on the exact value).
inline long kiln_f32_to_int(float x, int bits) {
    if (x != x) return 0;
    const float lim = as_type<float>((uint)(127 + bits - 1) << 23);  // 2^(bits-1), exact
    if (x >= lim) return (long)((1UL << (bits - 1)) - 1UL);
    if (x <= -lim) return (long)(0UL - (1UL << (bits - 1)));
    return (long)x;  // in range: truncation is exact
}
// integer -> f32 in one rounding to nearest even (the interpreter's cast).
// (Not through kf64: a double in between would round twice above 2^53.)
inline float kiln_i64_to_f32(long v) {
    const uint sign = v < 0 ? 0x80000000u : 0u;
    ulong u = v < 0 ? 0UL - (ulong)v : (ulong)v;
    if (u == 0) return 0.0f;
    const int s = (int)clz(u);
    u <<= s;  // leading bit at 63: the value is u * 2^-s
    ulong q = u >> 40;
    const ulong rest = u & 0xffffffffffUL, half = 1UL << 39;
    if (rest > half || (rest == half && (q & 1UL) != 0)) q += 1;
    // q in [2^23, 2^24]: the float (q / 2^23) 2^(63 - s); a carry to 2^24 is the next binade.
    return as_type<float>(sign | (((uint)(63 - s + 126) << 23) + (uint)q));
}

// ---- integers: two's-complement wrap at the kind's width.
inline char kiln_wrap_i8(long v) { return (char)(uchar)(ulong)v; }
inline int kiln_wrap_i32(long v) { return (int)(uint)(ulong)v; }

// ---- stable order of one line (sort, top-k): bottom-up merge sort of indices,
// NaN above +inf, ties in source order (std::stable_sort's unique result).
inline bool kiln_less_nan_last(float a, float b) { return (!(a != a) && b != b) || a < b; }
inline bool kiln_less_nan_last(kf64 a, kf64 b) { return (!(a != a) && b != b) || a < b; }
template <class T> inline bool kiln_less_nan_last(T a, T b) { return a < b; }
template <class T> inline void kiln_sort_line(thread const T* x, thread int* order, thread int* scratch, int n, bool descending) {
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            const int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                // The right run goes first only when strictly before: stability.
                const bool right = descending ? kiln_less_nan_last(x[order[a]], x[order[b]]) : kiln_less_nan_last(x[order[b]], x[order[a]]);
                scratch[k++] = right ? order[b++] : order[a++];
            }
            while (a < mid) scratch[k++] = order[a++];
            while (b < hi) scratch[k++] = order[b++];
        }
        for (int i = 0; i < n; ++i) order[i] = scratch[i];
    }
}

#endif  // KILN_METAL_HELPERS_H
