#ifndef KILN_HD
#if defined(__CUDACC__)
#define KILN_HD __host__ __device__ __forceinline__
#else
#define KILN_HD inline
#endif
#endif
// kiln's rounding and integer-cast rules: one source for the interpreter, the
// generated C++ and the generated CUDA. This header is pasted verbatim into
// generated code (NVRTC has no standard headers), so it includes nothing and
// uses only built-in types. Every function is exact integer or IEEE-double
// arithmetic, so every engine computes the same bits.
//
// Narrow floats live as doubles holding an exactly representable value; an
// operation computes in f64 and rounds ONCE to the kind with the functions here.
// f16/bf16 rounding works on the double's bits directly: going through float
// first would round twice and could miss a tie (e.g. 1 + 2^-11 + 2^-40 -> f16).
#ifndef KILN_KROUND_H
#define KILN_KROUND_H

namespace kiln_rt {

// ---- bit casts -------------------------------------------------------------
KILN_HD unsigned long long bits_of(double x) {
#if defined(__CUDA_ARCH__)
    return (unsigned long long)__double_as_longlong(x);
#else
    return __builtin_bit_cast(unsigned long long, x);
#endif
}
KILN_HD double double_of(unsigned long long b) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)b);
#else
    return __builtin_bit_cast(double, b);
#endif
}
KILN_HD unsigned f32_bits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    return __builtin_bit_cast(unsigned, x);
#endif
}
KILN_HD float f32_of(unsigned b) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    return __builtin_bit_cast(float, b);
#endif
}

// 2^e for e in [-1022, 1023], built from bits (exact; no libm ldexp).
KILN_HD double pow2i(int e) { return double_of((unsigned long long)(e + 1023) << 52); }

// Two's-complement reinterpretation of a 64-bit pattern, written without the
// implementation-defined unsigned->signed conversion of pre-C++20 dialects.
KILN_HD long long i64_of_bits(unsigned long long u) {
    return u >> 63 ? -(long long)(~u) - 1 : (long long)u;
}

// ---- narrow float encoding -------------------------------------------------
// Round a double to a binary format with `mant` stored fraction bits and
// exponent field width `ebits` (bias 2^(ebits-1)-1), round-to-nearest-even,
// with gradual underflow and IEEE overflow, returning the format's bit pattern.
// One rounding of the exact double value: the significand is shifted right and
// the discarded bits decide the increment. The increment may carry out of the
// fraction into the exponent field; that carry is exactly the next binade
// (or infinity, or subnormal -> smallest normal), so no special case is needed.
KILN_HD unsigned narrow_bits_from_double(double x, int mant, int ebits) {
    const unsigned long long b = bits_of(x);
    const unsigned sign = (unsigned)(b >> 63) << (mant + ebits);
    const unsigned long long mag = b & 0x7fffffffffffffffULL;
    const unsigned emask = (1u << ebits) - 1u;           // all-ones exponent field
    const unsigned inf = emask << mant;
    if (mag >= 0x7ff0000000000000ULL) {
        if (mag > 0x7ff0000000000000ULL)                 // NaN: canonical quiet NaN, sign dropped
            return inf | (1u << (mant - 1));
        return sign | inf;
    }
    const int dexp = (int)(mag >> 52);                   // biased double exponent
    // Double subnormals (< 2^-1022) lie far below half the smallest f16/bf16
    // subnormal (2^-25, 2^-134), so they round to zero like underflow below.
    if (dexp == 0) return sign;
    const int bias = (int)(emask >> 1);
    const int e = dexp - 1023;                           // unbiased exponent
    const unsigned long long sig = (mag & 0x000fffffffffffffULL) | (1ULL << 52);
    const int emin = 1 - bias;
    // Bits to drop from the 53-bit significand: the fraction width difference,
    // plus the distance below emin for results in the subnormal range.
    int shift = 52 - mant + (e < emin ? emin - e : 0);
    if (shift > 54) return sign;                         // < half the smallest subnormal
    const unsigned long long q = sig >> shift;
    const unsigned long long rem = sig & ((1ULL << shift) - 1ULL);
    const unsigned long long half = 1ULL << (shift - 1);
    const unsigned long long qr = q + ((rem > half || (rem == half && (q & 1ULL))) ? 1ULL : 0ULL);
    unsigned long long out;
    if (e < emin) {
        out = qr;                                        // subnormal (may carry to min normal)
    } else {
        // (e + bias) << mant plus the fraction; q includes the implicit bit,
        // hence the -(1 << mant). A carry to 2^(mant+1) bumps the exponent.
        out = ((unsigned long long)(e + bias) << mant) + qr - (1ULL << mant);
        if (out >= inf) out = inf;
    }
    return sign | (unsigned)out;
}

// Exact widening of a narrow bit pattern to double.
KILN_HD double narrow_bits_to_double(unsigned h, int mant, int ebits) {
    const unsigned emask = (1u << ebits) - 1u;
    const int bias = (int)(emask >> 1);
    const unsigned long long sign = (unsigned long long)((h >> (mant + ebits)) & 1u) << 63;
    const unsigned ef = (h >> mant) & emask;
    const unsigned long long frac = h & ((1u << mant) - 1u);
    if (ef == emask)                                     // inf, or NaN keeping its payload (quieted)
        return double_of(sign | 0x7ff0000000000000ULL | (frac << (52 - mant)) |
                         (frac ? 0x0008000000000000ULL : 0ULL));
    if (ef == 0) {                                       // zero or subnormal: frac * 2^(1-bias-mant), exact
        const double v = (double)(long long)frac * pow2i(1 - bias - mant);
        return sign ? -v : v;
    }
    return double_of(sign | ((unsigned long long)((int)ef - bias + 1023) << 52) | (frac << (52 - mant)));
}

KILN_HD unsigned short f16_bits_from_double(double x) { return (unsigned short)narrow_bits_from_double(x, 10, 5); }
KILN_HD double f16_bits_to_double(unsigned short h) { return narrow_bits_to_double(h, 10, 5); }
KILN_HD unsigned short bf16_bits_from_double(double x) { return (unsigned short)narrow_bits_from_double(x, 7, 8); }
KILN_HD double bf16_bits_to_double(unsigned short h) { return narrow_bits_to_double(h, 7, 8); }

// The value an f16/bf16 element stores for the exact result x: one rounding.
// NaN becomes the canonical quiet NaN, so every engine stores the same bits.
KILN_HD double round_f16(double x) { return f16_bits_to_double(f16_bits_from_double(x)); }
KILN_HD double round_bf16(double x) { return bf16_bits_to_double(bf16_bits_from_double(x)); }

// f32: the hardware double->float conversion is round-to-nearest-even with
// IEEE overflow and subnormals on every target. NaN is canonicalised (float
// NaN payload handling differs between x86 and the GPU).
KILN_HD double round_f32(double x) {
    if (x != x) return double_of(0x7ff8000000000000ULL);
#if defined(__CUDA_ARCH__)
    return (double)__double2float_rn(x);
#else
    return (double)(float)x;
#endif
}

// ---- integer rules ---------------------------------------------------------
// Keep the low `bits` bits of v, read as two's complement (bits in 1..64).
KILN_HD long long wrap_bits(long long v, int bits) {
    if (bits >= 64) return v;
    const unsigned long long m = (1ULL << bits) - 1ULL;
    const unsigned long long u = (unsigned long long)v & m;
    return (u >> (bits - 1)) ? (long long)u - (long long)(1ULL << bits) : (long long)u;
}
KILN_HD long long wrap_i8(long long v) { return wrap_bits(v, 8); }
KILN_HD long long wrap_i32(long long v) { return wrap_bits(v, 32); }
KILN_HD long long int_min_of(int bits) { return i64_of_bits(0ULL - (1ULL << (bits - 1))); }
KILN_HD long long int_max_of(int bits) { return (long long)((1ULL << (bits - 1)) - 1ULL); }

// Float -> int cast: truncate toward zero, saturate to the kind's range, NaN -> 0.
// The comparisons use +-2^(bits-1), exact in double, so the boundary is exact:
// anything that truncates inside the range converts, everything else clamps.
KILN_HD long long f64_to_int_sat(double x, int bits) {
    if (x != x) return 0;
    const double lim = pow2i(bits - 1);
    if (x >= lim) return int_max_of(bits);
    if (x <= -lim) return int_min_of(bits);
    long long v = (long long)x;                          // in range: C truncation is exact
#if !defined(__CUDA_ARCH__) && !defined(__METAL_VERSION__) && (defined(__GNUC__) || defined(__clang__))
    // Opaque to the optimiser: without it GCC (-fno-trapping-math) folds a round trip
    // (double)(long long)x into trunc(x), which keeps a zero's sign (trunc(-0.5) is
    // -0.0) where the integer 0 converts to +0.0 (fuzz seed 50003803).
    __asm__("" : "+r"(v));
#endif
    return v;
}
KILN_HD long long f64_to_i64_sat(double x) { return f64_to_int_sat(x, 64); }

// Integer division at width `bits` (operands are values of that width): C
// truncation; x / 0 = 0 and x % 0 = x (defined instead of a trap, identically
// on every engine); MIN / -1 wraps to MIN and MIN % -1 = 0.
KILN_HD long long idiv(long long a, long long b, int bits) {
    if (b == 0) return 0;
    if (b == -1) return wrap_bits(i64_of_bits(0ULL - (unsigned long long)a), bits);
    return a / b;
}
KILN_HD long long imod(long long a, long long b, int bits) {
    (void)bits;                                          // a % b cannot overflow once b = -1 is excluded
    if (b == 0) return a;
    if (b == -1) return 0;
    return a % b;
}

}  // namespace kiln_rt

#endif  // KILN_KROUND_H
