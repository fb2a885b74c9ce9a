// kiln metal kernel 'softmax_norm': generated Metal Shading Language (kiln/src/targets/metal).
// metal lowering: per-thread (one instance per thread); not simdgroup: no contraction to run on simdgroup matrices; standard precision; 32-bit element offsets.
// Buffers: the views by parameter number, then the launch block (64-bit words: instances, each view's extents and
// strides, each scalar). Threadgroups of 64 threads.
#include <metal_stdlib>
using namespace metal;

// Bit-exact float arithmetic: no fast math, no contraction of a * b + c.
#if defined(__METAL_VERSION__) && __METAL_VERSION__ >= 320
#pragma METAL fp math_mode(safe)
#pragma METAL fp contract(off)
#endif

#ifndef KILN_METAL_PRELUDE
#define KILN_METAL_PRELUDE
// ---- kiln_kf64.h
// kf64: IEEE binary64 in software, for Metal Shading Language. Apple GPUs have
// no double (MSL rejects the type), yet kiln's semantics computes every float
// op in f64 and rounds once, and kiln's math (kmath.h) is double arithmetic.
// This type gives the generated MSL exactly those doubles: + - * / and sqrt
// correctly rounded (round to nearest, ties to even), gradual underflow,
// overflow to infinity, IEEE comparisons, and exact conversions to and from
// the integer kinds and float (float rounding to nearest even). NaN results
// are a quiet NaN; their payload is not part of kiln's contract.
//
// Written in the C++ subset MSL accepts (no double, no long long, no
// recursion, no pointers without an address space, no static locals) and
// compiled, unchanged, as C++ by kiln's shim on Linux (shim/metal_stdlib),
// where metal_kf64_test checks it against the host's hardware doubles.
//
// Representation of intermediate results: a significand m (ulong) whose
// leading bit is bit 63, and a biased exponent e, standing for
// m * 2^(e - 1086) (1086 = 1023 + 63); kf64_pack rounds that to a double.
#ifndef KILN_KF64_H
#define KILN_KF64_H

struct kf64 {
    ulong bits;
    kf64() = default;
    constexpr kf64(ulong b, bool) : bits(b) {}  // the double with these bits (kf64_from_bits)
    kf64(int x);
    kf64(uint x);
    kf64(long x);
    kf64(ulong x);
    kf64(float x);
    explicit operator long() const;   // truncation toward zero (the value must fit)
    explicit operator int() const;
    explicit operator float() const;  // rounded to nearest even, gradual underflow, overflow to inf
};

constexpr kf64 kf64_from_bits(ulong b) { return kf64(b, true); }
inline ulong kf64_bits(kf64 x) { return x.bits; }

constant constexpr ulong KF64_SIGN = 0x8000000000000000UL;
constant constexpr ulong KF64_ABS = 0x7fffffffffffffffUL;
constant constexpr ulong KF64_INF = 0x7ff0000000000000UL;
constant constexpr ulong KF64_QNAN = 0x7ff8000000000000UL;
constant constexpr ulong KF64_FRAC = 0x000fffffffffffffUL;
constant constexpr ulong KF64_ONE = 0x0010000000000000UL;  // the implicit bit

inline bool kf64_isnan(kf64 x) { return (x.bits & KF64_ABS) > KF64_INF; }
inline kf64 kf64_quiet(kf64 x) { return kf64_from_bits(x.bits | 0x0008000000000000UL); }

// Leading zeros of a non-zero ulong (MSL's clz, the shim's builtin).
inline int kf64_clz(ulong x) { return (int)clz(x); }

// x >> s with every bit shifted out ORed into bit 0 (the sticky bit), s >= 0.
inline ulong kf64_shift_sticky(ulong x, int s) {
    if (s == 0) return x;
    if (s >= 64) return x != 0 ? 1UL : 0UL;
    return (x >> s) | ((x << (64 - s)) != 0 ? 1UL : 0UL);
}

// sign | the double nearest m * 2^(e - 1086): m's leading bit is bit 63 unless the
// value is below the normal range (then e <= 1 and m is whatever is left).
inline kf64 kf64_pack(ulong sign, int e, ulong m) {
    if (e < 1) {  // below the normal range: the subnormal grid, the same spacing as e = 1
        m = kf64_shift_sticky(m, 1 - e);
        e = 1;
    }
    ulong q = m >> 11;  // 53 bits (fewer when subnormal)
    const ulong rest = m & 0x7ffUL;
    if (rest > 0x400UL || (rest == 0x400UL && (q & 1UL) != 0)) q += 1;
    if (e >= 0x7ff) return kf64_from_bits(sign | KF64_INF);
    // (e - 1) << 52 plus q with its implicit bit is the encoding; a carry out of
    // the significand is exactly the next binade, a subnormal's carry the smallest
    // normal.
    const ulong enc = ((ulong)(e - 1) << 52) + q;
    if (enc >= KF64_INF) return kf64_from_bits(sign | KF64_INF);
    return kf64_from_bits(sign | enc);
}

// A finite non-zero magnitude as a 53-bit significand with its implicit bit (at
// bit 52) and an unbiased exponent: |x| = m * 2^(E - 52). Subnormals are normalised.
inline void kf64_unpack(ulong mag, thread ulong& m, thread int& E) {
    const int ef = (int)(mag >> 52);
    if (ef == 0) {
        const int s = kf64_clz(mag) - 11;  // brings the leading bit to bit 52
        m = mag << s;
        E = -1022 - s;
    } else {
        m = (mag & KF64_FRAC) | KF64_ONE;
        E = ef - 1023;
    }
}

inline kf64 kf64_from_unsigned(ulong sign, ulong u) {
    if (u == 0) return kf64_from_bits(sign);
    const int s = kf64_clz(u);
    return kf64_pack(sign, 1086 - s, u << s);
}

inline kf64::kf64(ulong x) : bits(kf64_from_unsigned(0, x).bits) {}
inline kf64::kf64(uint x) : bits(kf64_from_unsigned(0, (ulong)x).bits) {}
inline kf64::kf64(long x) : bits(x < 0 ? kf64_from_unsigned(KF64_SIGN, 0UL - (ulong)x).bits : kf64_from_unsigned(0, (ulong)x).bits) {}
inline kf64::kf64(int x) : bits(kf64((long)x).bits) {}

inline kf64::kf64(float x) {
    const uint b = as_type<uint>(x);
    const ulong sign = (ulong)(b >> 31) << 63;
    const uint ef = (b >> 23) & 0xffu;
    const ulong frac = (ulong)(b & 0x7fffffu);
    if (ef == 0xffu) {
        bits = sign | KF64_INF | (frac << 29) | (frac != 0 ? 0x0008000000000000UL : 0UL);
    } else if (ef == 0) {
        bits = frac == 0 ? sign : kf64_from_unsigned(sign, frac).bits - ((ulong)149 << 52);  // frac * 2^-149, exact
    } else {
        bits = sign | ((ulong)(ef + 896) << 52) | (frac << 29);
    }
}

inline kf64::operator long() const {
    const ulong mag = bits & KF64_ABS;
    const int ef = (int)(mag >> 52);
    if (ef < 1023) return 0;
    const int E = ef - 1023;
    if (E > 62) return (long)KF64_SIGN;  // out of range: the caller's contract
    const ulong m = (mag & KF64_FRAC) | KF64_ONE;
    const ulong u = E >= 52 ? m << (E - 52) : m >> (52 - E);
    return (bits & KF64_SIGN) != 0 ? (long)(0UL - u) : (long)u;
}
inline kf64::operator int() const { return (int)(long)*this; }

inline kf64::operator float() const {
    const ulong mag = bits & KF64_ABS;
    const uint sign = (uint)(bits >> 63) << 31;
    if (mag > KF64_INF) return as_type<float>(0x7fc00000u);
    if (mag == KF64_INF) return as_type<float>(sign | 0x7f800000u);
    const int ef = (int)(mag >> 52);
    if (ef == 0) return as_type<float>(sign);  // double subnormals are far below float's
    const int e = ef - 1023 + 127;             // the float's biased exponent
    const ulong m = (mag & KF64_FRAC) | KF64_ONE;
    const int shift = 29 + (e < 1 ? 1 - e : 0);
    if (shift > 54) return as_type<float>(sign);
    ulong q = m >> shift;
    const ulong rest = m & ((1UL << shift) - 1UL), half = 1UL << (shift - 1);
    if (rest > half || (rest == half && (q & 1UL) != 0)) q += 1;
    ulong enc = e < 1 ? q : ((ulong)(e - 1) << 23) + q;
    if (enc >= 0x7f800000UL) enc = 0x7f800000UL;
    return as_type<float>(sign | (uint)enc);
}

// ---- arithmetic

inline kf64 operator-(kf64 a) { return kf64_from_bits(a.bits ^ KF64_SIGN); }

inline kf64 kf64_add(kf64 a, kf64 b) {
    if (kf64_isnan(a)) return kf64_quiet(a);
    if (kf64_isnan(b)) return kf64_quiet(b);
    ulong ma = a.bits & KF64_ABS, mb = b.bits & KF64_ABS;
    const ulong sa = a.bits & KF64_SIGN, sb = b.bits & KF64_SIGN;
    if (ma == KF64_INF) return (mb == KF64_INF && sa != sb) ? kf64_from_bits(KF64_QNAN) : a;
    if (mb == KF64_INF) return b;
    if (ma == 0 && mb == 0) return kf64_from_bits(sa & sb);  // -0 only when both are
    // |a| >= |b| (the encodings order the magnitudes).
    ulong sign = sa;
    if (mb > ma) {
        const ulong t = ma; ma = mb; mb = t;
        sign = sb;
    }
    const bool same = sa == sb;
    const int ea = (int)(ma >> 52), eb = (int)(mb >> 52);
    // Significands with the implicit bit at 62 (bit 63 takes a carry), exponents of subnormals 1.
    ulong xa = ((ma & KF64_FRAC) | (ea != 0 ? KF64_ONE : 0UL)) << 10;
    ulong xb = ((mb & KF64_FRAC) | (eb != 0 ? KF64_ONE : 0UL)) << 10;
    const int ea1 = ea != 0 ? ea : 1, eb1 = eb != 0 ? eb : 1;
    xb = kf64_shift_sticky(xb, ea1 - eb1);
    ulong m = same ? xa + xb : xa - xb;
    if (m == 0) return kf64_from_bits(0);  // x - x = +0 in round to nearest
    int e = ea1 + 1;
    const int s = kf64_clz(m);
    const int up = s < e - 1 ? s : e - 1;
    m <<= up;
    e -= up;
    return kf64_pack(sign, e, m);
}

inline kf64 operator+(kf64 a, kf64 b) { return kf64_add(a, b); }
inline kf64 operator-(kf64 a, kf64 b) { return kf64_add(a, -b); }

// The high and low 64 bits of a * b, from 32-bit halves.
inline void kf64_mul64(ulong a, ulong b, thread ulong& hi, thread ulong& lo) {
    const ulong a0 = a & 0xffffffffUL, a1 = a >> 32, b0 = b & 0xffffffffUL, b1 = b >> 32;
    const ulong p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
    const ulong mid = (p00 >> 32) + (p01 & 0xffffffffUL) + (p10 & 0xffffffffUL);
    lo = (mid << 32) | (p00 & 0xffffffffUL);
    hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

inline kf64 operator*(kf64 a, kf64 b) {
    if (kf64_isnan(a)) return kf64_quiet(a);
    if (kf64_isnan(b)) return kf64_quiet(b);
    const ulong sign = (a.bits ^ b.bits) & KF64_SIGN;
    const ulong ma = a.bits & KF64_ABS, mb = b.bits & KF64_ABS;
    if (ma == KF64_INF || mb == KF64_INF) return (ma == 0 || mb == 0) ? kf64_from_bits(KF64_QNAN) : kf64_from_bits(sign | KF64_INF);
    if (ma == 0 || mb == 0) return kf64_from_bits(sign);
    ulong xa, xb;
    int Ea, Eb;
    kf64_unpack(ma, xa, Ea);
    kf64_unpack(mb, xb, Eb);
    ulong hi, lo;
    kf64_mul64(xa, xb, hi, lo);  // in [2^104, 2^106)
    // The product's leading bit to bit 63 of m, the rest sticky.
    ulong m;
    int e = Ea + Eb + 1023;
    if ((hi >> 41) != 0) {
        m = (hi << 22) | (lo >> 42) | ((lo & ((1UL << 42) - 1UL)) != 0 ? 1UL : 0UL);
        e += 1;
    } else {
        m = (hi << 23) | (lo >> 41) | ((lo & ((1UL << 41) - 1UL)) != 0 ? 1UL : 0UL);
    }
    return kf64_pack(sign, e, m);
}

inline kf64 operator/(kf64 a, kf64 b) {
    if (kf64_isnan(a)) return kf64_quiet(a);
    if (kf64_isnan(b)) return kf64_quiet(b);
    const ulong sign = (a.bits ^ b.bits) & KF64_SIGN;
    const ulong ma = a.bits & KF64_ABS, mb = b.bits & KF64_ABS;
    if (ma == KF64_INF) return mb == KF64_INF ? kf64_from_bits(KF64_QNAN) : kf64_from_bits(sign | KF64_INF);
    if (mb == KF64_INF) return kf64_from_bits(sign);
    if (mb == 0) return ma == 0 ? kf64_from_bits(KF64_QNAN) : kf64_from_bits(sign | KF64_INF);
    if (ma == 0) return kf64_from_bits(sign);
    ulong xa, xb;
    int Ea, Eb;
    kf64_unpack(ma, xa, Ea);
    kf64_unpack(mb, xb, Eb);
    int e = Ea - Eb + 1023;
    if (xa < xb) {
        xa <<= 1;
        e -= 1;
    }
    // Long division: 64 quotient bits of xa / xb in [1, 2), leading bit 63, then sticky.
    ulong r = xa, q = 0;
    for (int i = 0; i < 64; ++i) {
        q <<= 1;
        if (r >= xb) {
            r -= xb;
            q |= 1UL;
        }
        r <<= 1;
    }
    if (r != 0) q |= 1UL;
    return kf64_pack(sign, e, q);
}

inline kf64 kf64_sqrt(kf64 a) {
    if (kf64_isnan(a)) return kf64_quiet(a);
    const ulong mag = a.bits & KF64_ABS;
    if (mag == 0) return a;                                         // +-0
    if ((a.bits & KF64_SIGN) != 0) return kf64_from_bits(KF64_QNAN);
    if (mag == KF64_INF) return a;
    ulong m;
    int E;
    kf64_unpack(mag, m, E);
    int k = E - 52;  // a = m * 2^k
    if ((k & 1) != 0) {
        m <<= 1;
        k -= 1;
    }
    // sqrt(m * 2^56) digit by digit: 55 root bits, two radicand bits per step
    // (m < 2^54, so the radicand m 2^56 is 110 bits; its low 56 are zero).
    ulong root = 0, rem = 0;
    for (int i = 54; i >= 0; --i) {
        const int at = 2 * i - 56;  // the radicand's bits (at + 1, at) come from m
        const ulong two = at >= 0 ? (m >> at) & 3UL : 0UL;
        rem = (rem << 2) | two;
        const ulong trial = (root << 2) | 1UL;
        if (rem >= trial) {
            rem -= trial;
            root = (root << 1) | 1UL;
        } else {
            root <<= 1;
        }
    }
    const ulong q = (root << 9) | (rem != 0 ? 1UL : 0UL);
    return kf64_pack(0, k / 2 + 1049, q);
}

// ---- comparisons (IEEE: NaN is unordered, -0 == +0)

inline bool operator==(kf64 a, kf64 b) {
    if (kf64_isnan(a) || kf64_isnan(b)) return false;
    return a.bits == b.bits || ((a.bits | b.bits) & KF64_ABS) == 0;
}
inline bool operator!=(kf64 a, kf64 b) { return !(a == b); }
inline bool operator<(kf64 a, kf64 b) {
    if (kf64_isnan(a) || kf64_isnan(b)) return false;
    if (((a.bits | b.bits) & KF64_ABS) == 0) return false;
    const bool na = (a.bits & KF64_SIGN) != 0, nb = (b.bits & KF64_SIGN) != 0;
    if (na != nb) return na;
    return na ? a.bits > b.bits : a.bits < b.bits;
}
inline bool operator>(kf64 a, kf64 b) { return b < a; }
inline bool operator<=(kf64 a, kf64 b) { return a < b || a == b; }
inline bool operator>=(kf64 a, kf64 b) { return b < a || a == b; }

// __builtin_bit_cast in kiln's MSL dialect (msl_dialect.h): as_type, and kf64's bits.
template <class T, class U> inline T kiln_bit_cast(U x) { return as_type<T>(x); }
template <> inline ulong kiln_bit_cast<ulong, kf64>(kf64 x) { return x.bits; }
template <> inline kf64 kiln_bit_cast<kf64, ulong>(ulong b) { return kf64_from_bits(b); }

#endif  // KILN_KF64_H
// ---- kround.h, in kiln's MSL dialect (doubles are kf64)
#define KILN_HD inline
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
KILN_HD ulong bits_of(kf64 x) {
#if defined(__CUDA_ARCH__)
    return (ulong)__double_as_longlong(x);
#else
    return kiln_bit_cast<ulong>( x);
#endif
}
KILN_HD kf64 double_of(ulong b) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long)b);
#else
    return kiln_bit_cast<kf64>( b);
#endif
}
KILN_HD unsigned f32_bits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    return kiln_bit_cast<unsigned>( x);
#endif
}
KILN_HD float f32_of(unsigned b) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    return kiln_bit_cast<float>( b);
#endif
}

// 2^e for e in [-1022, 1023], built from bits (exact; no libm ldexp).
KILN_HD kf64 pow2i(int e) { return double_of((ulong)(e + 1023) << 52); }

// Two's-complement reinterpretation of a 64-bit pattern, written without the
// implementation-defined unsigned->signed conversion of pre-C++20 dialects.
KILN_HD long i64_of_bits(ulong u) {
    return u >> 63 ? -(long)(~u) - 1 : (long)u;
}

// ---- narrow float encoding -------------------------------------------------
// Round a double to a binary format with `mant` stored fraction bits and
// exponent field width `ebits` (bias 2^(ebits-1)-1), round-to-nearest-even,
// with gradual underflow and IEEE overflow, returning the format's bit pattern.
// One rounding of the exact double value: the significand is shifted right and
// the discarded bits decide the increment. The increment may carry out of the
// fraction into the exponent field; that carry is exactly the next binade
// (or infinity, or subnormal -> smallest normal), so no special case is needed.
KILN_HD unsigned narrow_bits_from_double(kf64 x, int mant, int ebits) {
    const ulong b = bits_of(x);
    const unsigned sign = (unsigned)(b >> 63) << (mant + ebits);
    const ulong mag = b & 0x7fffffffffffffffUL;
    const unsigned emask = (1u << ebits) - 1u;           // all-ones exponent field
    const unsigned inf = emask << mant;
    if (mag >= 0x7ff0000000000000UL) {
        if (mag > 0x7ff0000000000000UL)                 // NaN: canonical quiet NaN, sign dropped
            return inf | (1u << (mant - 1));
        return sign | inf;
    }
    const int dexp = (int)(mag >> 52);                   // biased double exponent
    // Double subnormals (< 2^-1022) lie far below half the smallest f16/bf16
    // subnormal (2^-25, 2^-134), so they round to zero like underflow below.
    if (dexp == 0) return sign;
    const int bias = (int)(emask >> 1);
    const int e = dexp - 1023;                           // unbiased exponent
    const ulong sig = (mag & 0x000fffffffffffffUL) | (1UL << 52);
    const int emin = 1 - bias;
    // Bits to drop from the 53-bit significand: the fraction width difference,
    // plus the distance below emin for results in the subnormal range.
    int shift = 52 - mant + (e < emin ? emin - e : 0);
    if (shift > 54) return sign;                         // < half the smallest subnormal
    const ulong q = sig >> shift;
    const ulong rem = sig & ((1UL << shift) - 1UL);
    const ulong half = 1UL << (shift - 1);
    const ulong qr = q + ((rem > half || (rem == half && (q & 1UL))) ? 1UL : 0UL);
    ulong out;
    if (e < emin) {
        out = qr;                                        // subnormal (may carry to min normal)
    } else {
        // (e + bias) << mant plus the fraction; q includes the implicit bit,
        // hence the -(1 << mant). A carry to 2^(mant+1) bumps the exponent.
        out = ((ulong)(e + bias) << mant) + qr - (1UL << mant);
        if (out >= inf) out = inf;
    }
    return sign | (unsigned)out;
}

// Exact widening of a narrow bit pattern to double.
KILN_HD kf64 narrow_bits_to_double(unsigned h, int mant, int ebits) {
    const unsigned emask = (1u << ebits) - 1u;
    const int bias = (int)(emask >> 1);
    const ulong sign = (ulong)((h >> (mant + ebits)) & 1u) << 63;
    const unsigned ef = (h >> mant) & emask;
    const ulong frac = h & ((1u << mant) - 1u);
    if (ef == emask)                                     // inf, or NaN keeping its payload (quieted)
        return double_of(sign | 0x7ff0000000000000UL | (frac << (52 - mant)) |
                         (frac ? 0x0008000000000000UL : 0UL));
    if (ef == 0) {                                       // zero or subnormal: frac * 2^(1-bias-mant), exact
        const kf64 v = (kf64)(long)frac * pow2i(1 - bias - mant);
        return sign ? -v : v;
    }
    return double_of(sign | ((ulong)((int)ef - bias + 1023) << 52) | (frac << (52 - mant)));
}

KILN_HD unsigned short f16_bits_from_double(kf64 x) { return (unsigned short)narrow_bits_from_double(x, 10, 5); }
KILN_HD kf64 f16_bits_to_double(unsigned short h) { return narrow_bits_to_double(h, 10, 5); }
KILN_HD unsigned short bf16_bits_from_double(kf64 x) { return (unsigned short)narrow_bits_from_double(x, 7, 8); }
KILN_HD kf64 bf16_bits_to_double(unsigned short h) { return narrow_bits_to_double(h, 7, 8); }

// The value an f16/bf16 element stores for the exact result x: one rounding.
// NaN becomes the canonical quiet NaN, so every engine stores the same bits.
KILN_HD kf64 round_f16(kf64 x) { return f16_bits_to_double(f16_bits_from_double(x)); }
KILN_HD kf64 round_bf16(kf64 x) { return bf16_bits_to_double(bf16_bits_from_double(x)); }

// f32: the hardware double->float conversion is round-to-nearest-even with
// IEEE overflow and subnormals on every target. NaN is canonicalised (float
// NaN payload handling differs between x86 and the GPU).
KILN_HD kf64 round_f32(kf64 x) {
    if (x != x) return double_of(0x7ff8000000000000UL);
#if defined(__CUDA_ARCH__)
    return (kf64)__double2float_rn(x);
#else
    return (kf64)(float)x;
#endif
}

// ---- integer rules ---------------------------------------------------------
// Keep the low `bits` bits of v, read as two's complement (bits in 1..64).
KILN_HD long wrap_bits(long v, int bits) {
    if (bits >= 64) return v;
    const ulong m = (1UL << bits) - 1UL;
    const ulong u = (ulong)v & m;
    return (u >> (bits - 1)) ? (long)u - (long)(1UL << bits) : (long)u;
}
KILN_HD long wrap_i8(long v) { return wrap_bits(v, 8); }
KILN_HD long wrap_i32(long v) { return wrap_bits(v, 32); }
KILN_HD long int_min_of(int bits) { return i64_of_bits(0UL - (1UL << (bits - 1))); }
KILN_HD long int_max_of(int bits) { return (long)((1UL << (bits - 1)) - 1UL); }

// Float -> int cast: truncate toward zero, saturate to the kind's range, NaN -> 0.
// The comparisons use +-2^(bits-1), exact in double, so the boundary is exact:
// anything that truncates inside the range converts, everything else clamps.
KILN_HD long f64_to_int_sat(kf64 x, int bits) {
    if (x != x) return 0;
    const kf64 lim = pow2i(bits - 1);
    if (x >= lim) return int_max_of(bits);
    if (x <= -lim) return int_min_of(bits);
    long v = (long)x;                          // in range: C truncation is exact
#if !defined(__CUDA_ARCH__) && !defined(__METAL_VERSION__) && (defined(__GNUC__) || defined(__clang__))
    // Opaque to the optimiser: without it GCC (-fno-trapping-math) folds a round trip
    // (double)(long long)x into trunc(x), which keeps a zero's sign (trunc(-0.5) is
    // -0.0) where the integer 0 converts to +0.0 (fuzz seed 50003803).
    __asm__("" : "+r"(v));
#endif
    return v;
}
KILN_HD long f64_to_i64_sat(kf64 x) { return f64_to_int_sat(x, 64); }

// Integer division at width `bits` (operands are values of that width): C
// truncation; x / 0 = 0 and x % 0 = x (defined instead of a trap, identically
// on every engine); MIN / -1 wraps to MIN and MIN % -1 = 0.
KILN_HD long idiv(long a, long b, int bits) {
    if (b == 0) return 0;
    if (b == -1) return wrap_bits(i64_of_bits(0UL - (ulong)a), bits);
    return a / b;
}
KILN_HD long imod(long a, long b, int bits) {
    (void)bits;                                          // a % b cannot overflow once b = -1 is excluded
    if (b == 0) return a;
    if (b == -1) return 0;
    return a % b;
}

}  // namespace kiln_rt

#endif  // KILN_KROUND_H
// ---- kmath.h, in kiln's MSL dialect
#ifndef KILN_HD
#if defined(__CUDACC__)
#define KILN_HD __host__ __device__ __forceinline__
#else
#define KILN_HD inline
#endif
#endif
// kiln's deterministic f64 math: the same source on every engine, so exact mode
// agrees bit for bit everywhere. Pasted verbatim after kround.h into generated
// C++ and NVRTC-compiled CUDA, so it includes no standard header.
//
// Building blocks are only correctly rounded IEEE + - * / and sqrt, comparisons
// and exact bit manipulation. No FMA: on the GPU every operation is an explicit
// __d*_rn intrinsic, which the compiler never contracts even with fmad=true;
// host code relies on -ffp-contract=off (kiln compiles everything with it).
// Accuracy target <= 2 ulp; the designs below measure <= 1 ulp (see kmath_test).
// Where a plain-double formula would lose bits to cancellation or to a
// long chain of roundings, the code carries a double-double (hi + lo, Dekker/
// Knuth error-free transforms, Veltkamp splitting because there is no FMA).
// Polynomial coefficients are Chebyshev fits made with mpmath for kiln, written
// as hex literals so every compiler reads the same bits.
// NaN results are some quiet NaN; payload bits are not part of the contract.
#ifndef KILN_KMATH_H
#define KILN_KMATH_H

#ifndef KILN_KROUND_H
// Generated code pastes kround.h just before this file, so this is skipped
// there; a C++ file that includes kmath.h on its own gets kround.h here.
#include "kround.h"
#endif

namespace kiln_rt {
namespace kd {  // implementation details

#if defined(__CUDA_ARCH__)
KILN_HD kf64 add(kf64 a, kf64 b) { return __dadd_rn(a, b); }
KILN_HD kf64 sub(kf64 a, kf64 b) { return __dsub_rn(a, b); }
KILN_HD kf64 mul(kf64 a, kf64 b) { return __dmul_rn(a, b); }
KILN_HD kf64 div(kf64 a, kf64 b) { return __ddiv_rn(a, b); }
KILN_HD kf64 sqrt_rn(kf64 a) { return __dsqrt_rn(a); }
#else
KILN_HD kf64 add(kf64 a, kf64 b) { return a + b; }
KILN_HD kf64 sub(kf64 a, kf64 b) { return a - b; }
KILN_HD kf64 mul(kf64 a, kf64 b) { return a * b; }
KILN_HD kf64 div(kf64 a, kf64 b) { return a / b; }
KILN_HD kf64 sqrt_rn(kf64 a) { return kf64_sqrt(a); }
#endif

KILN_HD kf64 inf() { return double_of(0x7ff0000000000000UL); }
KILN_HD kf64 qnan() { return double_of(0x7ff8000000000000UL); }
KILN_HD bool sign_bit(kf64 x) { return (bits_of(x) >> 63) != 0; }
KILN_HD kf64 fabs_(kf64 x) { return double_of(bits_of(x) & 0x7fffffffffffffffUL); }

// Horner: c0 + x*(c1 + x*(c2 + ...)), each step two roundings, never fused.
KILN_HD kf64 poly(kf64, kf64 c0) { return c0; }
template <class... C>
KILN_HD kf64 poly(kf64 x, kf64 c0, C... c) { return add(c0, mul(x, poly(x, c...))); }

// ---- double-double ----------------------------------------------------------
struct dd { kf64 hi, lo; };
// Exact a + b = hi + lo, valid when |a| >= |b| (or a == 0).
KILN_HD dd fast_two_sum(kf64 a, kf64 b) { const kf64 s = add(a, b); return {s, add(sub(a, s), b)}; }
// Exact a + b = hi + lo for any a, b (Knuth).
KILN_HD dd two_sum(kf64 a, kf64 b) {
    const kf64 s = add(a, b), bb = sub(s, a);
    return {s, add(sub(a, sub(s, bb)), sub(b, bb))};
}
// Exact a * b = hi + lo without FMA (Dekker): Veltkamp splits each factor into
// 26-bit halves whose partial products are exact. Needs |a|,|b| < 2^995.
KILN_HD dd split(kf64 a) {
    const kf64 c = mul(kf64_from_bits(0x41a0000002000000UL), a);  // 2^27 + 1
    const kf64 h = sub(c, sub(c, a));
    return {h, sub(a, h)};
}
KILN_HD dd two_prod(kf64 a, kf64 b) {
    const kf64 p = mul(a, b);
    const dd x = split(a), y = split(b);
    const kf64 e = add(add(add(sub(mul(x.hi, y.hi), p), mul(x.hi, y.lo)), mul(x.lo, y.hi)), mul(x.lo, y.lo));
    return {p, e};
}
KILN_HD dd dd_add(dd a, dd b) {
    const dd s = two_sum(a.hi, b.hi);
    return fast_two_sum(s.hi, add(s.lo, add(a.lo, b.lo)));
}
KILN_HD dd dd_mul(dd a, dd b) {
    const dd p = two_prod(a.hi, b.hi);
    return fast_two_sum(p.hi, add(p.lo, add(mul(a.hi, b.lo), mul(a.lo, b.hi))));
}
// a / b: one Newton correction from the exact remainder a - q*b.
KILN_HD dd dd_div(dd a, dd b) {
    const kf64 q = div(a.hi, b.hi);
    const dd p = two_prod(q, b.hi);
    const kf64 rem = sub(add(sub(sub(a.hi, p.hi), p.lo), a.lo), mul(q, b.lo));
    return fast_two_sum(q, div(rem, b.hi));
}

// y * 2^k for k in about [-2000, 2000] with a single rounding of the final
// product (intermediate factors keep y in the normal range; y near 1 here).
KILN_HD kf64 scale2(kf64 y, int k) {
    if (k > 1023) {
        y = mul(y, kf64_from_bits(0x7fe0000000000000UL)); k -= 1023;
        if (k > 1023) { y = mul(y, kf64_from_bits(0x7fe0000000000000UL)); k -= 1023; if (k > 1023) k = 1023; }
    } else if (k < -1022) {
        y = mul(y, kf64_from_bits(0x0360000000000000UL)); k += 969;  // 2^(-1022+53): still exact for y >= 1
        if (k < -1022) { y = mul(y, kf64_from_bits(0x0360000000000000UL)); k += 969; if (k < -1022) k = -1022; }
    }
    return mul(y, pow2i(k));
}

// (y.hi + y.lo) * 2^k rounded once, also when the result is subnormal. There
// the rounding is done by adding 1: on [1, 2) doubles are spaced 2^-52, which
// scaled by 2^-1022 is exactly the subnormal spacing 2^-1074, so the sum
// rounds to the right grid and the rest is exact.
KILN_HD kf64 scale_dd(dd y, int k) {
    if (k > -1022 || (k == -1022 && y.hi >= kf64_from_bits(0x3ff0000000000000UL))) return scale2(y.hi, k);
    const kf64 p = pow2i(k + 1022);                  // k >= -1077 from the callers
    const dd h = fast_two_sum(kf64_from_bits(0x3ff0000000000000UL), mul(y.hi, p));
    const kf64 r = add(h.hi, add(h.lo, mul(y.lo, p)));
    return mul(sub(r, kf64_from_bits(0x3ff0000000000000UL)), kf64_from_bits(0x0010000000000000UL));
}

// ln2 = L2HI + L2LO to 2^-101; L2HI has 42 significant bits so k*L2HI is exact
// for every |k| < 2^11 that exp and log produce.
inline kf64 L2HI() { return kf64_from_bits(0x3fe62e42fefa3800UL); }
inline kf64 L2LO() { return kf64_from_bits(0x3d2ef35793c76730UL); }

// exp(x + xl) = 2^k (1 + hi + lo), with hi + lo = e^r - 1 in [-0.30, 0.42]
// to a relative error ~2^-60; |x| <= ~750, |xl| small against x.
// Why: k = nearest(x / ln2) (Cody-Waite), r = x - k ln2 exactly as a
// double-double (k*L2HI and the subtraction are exact), then
// e^r - 1 = r + r^2/2 + r^3 P(r) on |r| <= ln2/2, where r + r^2/2 is summed
// exactly (r^2 by two_prod) so only the small r^3 term carries rounding error.
// Returning e^r - 1 rather than e^r lets expm1 avoid cancelling against 1.
KILN_HD dd expm1_core(kf64 x, kf64 xl, thread int& k) {
    const kf64 t = mul(x, kf64_from_bits(0x3ff71547652b82feUL));  // x / ln2
    const kf64 fk = (kf64)(long)add(t, t < 0 ? -kf64_from_bits(0x3fe0000000000000UL) : kf64_from_bits(0x3fe0000000000000UL));
    k = (int)fk;
    const kf64 hi = sub(x, mul(fk, L2HI()));
    const dd r = two_sum(hi, sub(xl, mul(fk, L2LO())));
    const kf64 p = poly(r.hi,
        kf64_from_bits(0x3fc5555555555557UL), kf64_from_bits(0x3fa5555555555556UL), kf64_from_bits(0x3f8111111110ff8bUL), kf64_from_bits(0x3f56c16c16c16214UL),
        kf64_from_bits(0x3f2a01a01ac9de9eUL), kf64_from_bits(0x3efa01a01a74077aUL), kf64_from_bits(0x3ec71ddfff6573d6UL), kf64_from_bits(0x3e927e4da1e12fb1UL),
        kf64_from_bits(0x3e5af5282aacdb2eUL), kf64_from_bits(0x3e21f75a3caadff5UL));
    const dd z = two_prod(r.hi, r.hi);
    const dd h = two_sum(r.hi, mul(kf64_from_bits(0x3fe0000000000000UL), z.hi));
    // e^(r.hi + r.lo) - 1 ~= (e^r.hi - 1) + r.lo (1 + r.hi).
    const kf64 tail = add(add(h.lo, mul(kf64_from_bits(0x3fe0000000000000UL), z.lo)),
                            add(mul(mul(r.hi, z.hi), p), add(r.lo, mul(r.lo, r.hi))));
    return fast_two_sum(h.hi, tail);
}
// exp(x + xl) = (hi + lo) * 2^k, hi + lo in [0.70, 1.42].
KILN_HD dd exp_core(kf64 x, kf64 xl, thread int& k) {
    const dd m = expm1_core(x, xl, k);
    const dd s = fast_two_sum(kf64_from_bits(0x3ff0000000000000UL), m.hi);
    return fast_two_sum(s.hi, add(s.lo, m.lo));
}

// log(x) as a double-double with relative error ~2^-64, for finite x > 0
// (what pow needs: y*log(x) up to 745 must be good to 2^-55 absolute).
// Why: x = 2^k m with m in [sqrt(1/2), sqrt(2)), so log m = 2 atanh(s) with
// s = (m-1)/(m+1), |s| <= 0.1716, = 2s + s^3 (2/3 + z U(z)), z = s^2. s, s^3,
// 2/3 and the products are double-double; only z U(z), which is 2^-12 of the
// total, is plain double.
KILN_HD dd log_dd(kf64 x) {
    int k = 0;
    if (x < kf64_from_bits(0x0010000000000000UL)) { x = mul(x, kf64_from_bits(0x4350000000000000UL)); k = -54; }  // subnormal: normalise
    const ulong b = bits_of(x);
    k += (int)(b >> 52) - 1023;
    const ulong mb = b & 0x000fffffffffffffUL;
    kf64 m;
    if (mb > 0x6a09e667f3bcdUL) { m = double_of(mb | 0x3fe0000000000000UL); k += 1; }  // > sqrt(2): halve
    else m = double_of(mb | 0x3ff0000000000000UL);
    const kf64 f = sub(m, kf64_from_bits(0x3ff0000000000000UL));                    // exact (Sterbenz)
    const dd s = dd_div(dd{f, kf64_from_bits(0x0000000000000000UL)}, fast_two_sum(kf64_from_bits(0x4000000000000000UL), f));
    const dd s3 = dd_mul(dd_mul(s, s), s);
    const kf64 z = mul(s.hi, s.hi);
    const kf64 u = poly(z,
        kf64_from_bits(0x3fd999999999999aUL), kf64_from_bits(0x3fd2492492492524UL), kf64_from_bits(0x3fcc71c71c6ea01fUL), kf64_from_bits(0x3fc745d177b22bcfUL),
        kf64_from_bits(0x3fc3b1395976d2f0UL), kf64_from_bits(0x3fc1118d458653bcUL), kf64_from_bits(0x3fbdf7a2eafecf14UL), kf64_from_bits(0x3fbe0499f72e39b9UL));
    const dd two3 = {kf64_from_bits(0x3fe5555555555555UL), kf64_from_bits(0x3c85555555555555UL)};  // 2/3
    const dd v = dd_add(two3, dd{mul(z, u), kf64_from_bits(0x0000000000000000UL)});
    const dd lm = dd_add(dd{mul(kf64_from_bits(0x4000000000000000UL), s.hi), mul(kf64_from_bits(0x4000000000000000UL), s.lo)}, dd_mul(s3, v));
    const kf64 fk = (kf64)k;
    return dd_add(fast_two_sum(mul(fk, L2HI()), mul(fk, L2LO())), lm);
}

// Exact truncation / floor through the bits (no conversion range limits).
KILN_HD kf64 trunc_(kf64 x) {
    const ulong b = bits_of(x);
    const int e = (int)((b >> 52) & 0x7ff) - 1023;
    if (e >= 52) return x;                             // integral, inf or NaN
    if (e < 0) return double_of(b & 0x8000000000000000UL);
    return double_of(b & ~(0x000fffffffffffffUL >> e));
}
KILN_HD kf64 floor_(kf64 x) { const kf64 t = trunc_(x); return t > x ? sub(t, kf64_from_bits(0x3ff0000000000000UL)) : t; }

// 0: y is not an integer, 1: odd integer, 2: even integer (y finite).
KILN_HD int int_kind(kf64 y) {
    const ulong b = bits_of(y);
    const int e = (int)((b >> 52) & 0x7ff) - 1023;
    if (e >= 53) return 2;
    if (e < 0) return y == 0 ? 2 : 0;
    const ulong sig = (b & 0x000fffffffffffffUL) | (1UL << 52);
    const int fb = 52 - e;                             // number of fraction bits
    if (sig & ((1UL << fb) - 1UL)) return 0;
    return ((sig >> fb) & 1UL) ? 1 : 2;
}

// Low and high 64 bits of a * b, from 32-bit halves (portable, exact).
KILN_HD void mul64(ulong a, ulong b, thread ulong& hi, thread ulong& lo) {
    const ulong a0 = a & 0xffffffffUL, a1 = a >> 32, b0 = b & 0xffffffffUL, b1 = b >> 32;
    const ulong p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
    const ulong mid = (p00 >> 32) + (p01 & 0xffffffffUL) + (p10 & 0xffffffffUL);
    lo = (mid << 32) | (p00 & 0xffffffffUL);
    hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

// Reduction x = n pi/2 + (hi + lo), |hi| <= pi/4 (and a hair), q = n mod 4.
struct reduced { kf64 hi, lo; int q; };

// Payne-Hanek, for |x| >= 1.6e6 up to DBL_MAX, in integer arithmetic: with
// x = M 2^E (M a 53-bit integer), the bits of 2/pi that would multiply x into
// a multiple of 4 are skipped, and the next 192 bits W give x 2/pi mod 4 as
// (M W mod 2^192) 2^-190 exactly up to 2^-138; no double comes closer than
// 2^-62 to a multiple of pi/2, so > 70 bits survive. Table word i >= 1 holds
// bits 64(i-1)+1 .. 64i of 2/pi; word 0 is the zero integer part.
KILN_HD reduced reduce_pio2_large(kf64 x) {
    const ulong two_over_pi[20] = {
        0x0000000000000000UL, 0xa2f9836e4e441529UL, 0xfc2757d1f534ddc0UL, 0xdb6295993c439041UL,
        0xfe5163abdebbc561UL, 0xb7246e3a424dd2e0UL, 0x06492eea09d1921cUL, 0xfe1deb1cb129a73eUL,
        0xe88235f52ebb4484UL, 0xe99c7026b45f7e41UL, 0x3991d639835339f4UL, 0x9c845f8bbdf9283bUL,
        0x1ff897ffde05980fUL, 0xef2f118b5a0a6d1fUL, 0x6d367ecf27cb09b7UL, 0x4f463f669e5fea2dUL,
        0x7527bac7ebe5f17bUL, 0x3d0739f78a5292eaUL, 0x6bfb5fb11f8d5d08UL, 0x56033046fc7b6babUL};
    const ulong b = bits_of(x);
    const int E = (int)((b >> 52) & 0x7ff) - 1075;      // >= -32 here
    const ulong M = (b & 0x000fffffffffffffUL) | (1UL << 52);
    const int g = E + 62;                                // table bit index of 2/pi bit E-1
    const int w = g >> 6, sh = g & 63;
    ulong W[3];
    for (int i = 0; i < 3; ++i)
        W[i] = sh ? (two_over_pi[w + i] << sh) | (two_over_pi[w + i + 1] >> (64 - sh)) : two_over_pi[w + i];
    ulong h0, p0, h1, l1;
    mul64(M, W[2], h0, p0);
    mul64(M, W[1], h1, l1);
    const ulong p1 = h0 + l1;
    const ulong p2 = h1 + M * W[0] + (p1 < h0 ? 1UL : 0UL);
    // Quadrant = top two bits; the 190-bit fraction rounds to nearest: a
    // fraction >= 1/2 means n + 1 and fraction - 1 (a negative top word).
    int q = (int)(p2 >> 62);
    long top = (long)(p2 & 0x3fffffffffffffffUL);
    if (top >= (1L << 61)) { top -= (1L << 62); q += 1; }
    // Sum the fraction's 32-bit pieces (each exact in a double) as a double-double.
    const kf64 pieces[5] = {mul((kf64)(top >> 32), kf64_from_bits(0x3e10000000000000UL)), mul((kf64)(top & 0xffffffffL), kf64_from_bits(0x3c10000000000000UL)),
                              mul((kf64)(p1 >> 32), kf64_from_bits(0x3a10000000000000UL)), mul((kf64)(p1 & 0xffffffffUL), kf64_from_bits(0x3810000000000000UL)),
                              mul((kf64)(p0 >> 32), kf64_from_bits(0x3610000000000000UL))};
    dd f = {pieces[0], kf64_from_bits(0x0000000000000000UL)};
    for (int i = 1; i < 5; ++i) {
        const dd t = two_sum(f.hi, pieces[i]);
        f = fast_two_sum(t.hi, add(t.lo, f.lo));
    }
    const dd r = dd_mul(f, dd{kf64_from_bits(0x3ff921fb54442d18UL), kf64_from_bits(0x3c91a62633145c07UL)});  // * pi/2
    if (sign_bit(x)) return {-r.hi, -r.lo, (4 - (q & 3)) & 3};
    return {r.hi, r.lo, q & 3};
}

// Cody-Waite below 1.6e6: pi/2 split in three 33-bit pieces and a 53-bit tail
// (~2^-160 total); for n < 2^20 each n * piece is exact and the cancellation
// against x (never closer than ~2^-60 to a multiple of pi/2 in this range)
// leaves > 90 good bits.
KILN_HD reduced reduce_pio2(kf64 x) {
    if (fabs_(x) <= kf64_from_bits(0x3fe921fb54442d18UL)) return {x, kf64_from_bits(0x0000000000000000UL), 0};
    if (fabs_(x) >= kf64_from_bits(0x41386a0000000000UL)) return reduce_pio2_large(x);
    const kf64 t = mul(x, kf64_from_bits(0x3fe45f306dc9c883UL));  // x * 2/pi, |t| < 2^20
    const kf64 fn = trunc_(add(t, t < 0 ? -kf64_from_bits(0x3fe0000000000000UL) : kf64_from_bits(0x3fe0000000000000UL)));
    const kf64 r1 = sub(x, mul(fn, kf64_from_bits(0x3ff921fb54400000UL)));
    const dd a = two_sum(r1, -mul(fn, kf64_from_bits(0x3dd0b4611a600000UL)));
    const dd b = two_sum(a.hi, -mul(fn, kf64_from_bits(0x3ba3198a2e000000UL)));
    const kf64 low = sub(add(a.lo, b.lo), mul(fn, kf64_from_bits(0x397b839a252049c1UL)));
    const dd r = two_sum(b.hi, low);
    const kf64 q = sub(fn, mul(kf64_from_bits(0x4010000000000000UL), floor_(mul(fn, kf64_from_bits(0x3fd0000000000000UL)))));  // exact, in {0,1,2,3}
    return {r.hi, r.lo, (int)q};
}
// sin(r + rr) ~= sin r + rr (1 - r^2/2), with sin r = r + r^3 S(r^2) on |r| <= pi/4.
KILN_HD kf64 sin_kernel(kf64 r, kf64 rr) {
    const kf64 z = mul(r, r);
    const kf64 s = poly(z,
        -kf64_from_bits(0x3fc5555555555555UL), kf64_from_bits(0x3f81111111111110UL), -kf64_from_bits(0x3f2a01a01a01990aUL), kf64_from_bits(0x3ec71de3a545b148UL),
        -kf64_from_bits(0x3e5ae6454093c147UL), kf64_from_bits(0x3de61217781a8ccdUL), -kf64_from_bits(0x3d6ab13654fd392aUL));
    return add(r, add(mul(mul(r, z), s), mul(rr, sub(kf64_from_bits(0x3ff0000000000000UL), mul(kf64_from_bits(0x3fe0000000000000UL), z)))));
}
// cos(r + rr) ~= cos r - r rr, cos r = 1 - r^2/2 + r^4 C(r^2). r^2 is exact
// (two_prod) and 1 - r^2/2 is split exactly, so the result rounds once.
KILN_HD kf64 cos_kernel(kf64 r, kf64 rr) {
    const dd z = two_prod(r, r);
    const dd w = fast_two_sum(kf64_from_bits(0x3ff0000000000000UL), -mul(kf64_from_bits(0x3fe0000000000000UL), z.hi));
    const kf64 c = poly(z.hi,
        kf64_from_bits(0x3fa5555555555555UL), -kf64_from_bits(0x3f56c16c16c16955UL), kf64_from_bits(0x3efa01a019f4a826UL), -kf64_from_bits(0x3e927e4fa1272706UL),
        kf64_from_bits(0x3e21eeb634b132cdUL), -kf64_from_bits(0x3da907999e6897e2UL));
    const kf64 tail = sub(add(sub(w.lo, mul(kf64_from_bits(0x3fe0000000000000UL), z.lo)), mul(mul(z.hi, z.hi), c)), mul(r, rr));
    return add(w.hi, tail);
}

}  // namespace kd

// ---- public functions ----------------------------------------------------------
KILN_HD kf64 k_abs(kf64 x) { return kd::fabs_(x); }
KILN_HD kf64 k_floor(kf64 x) { return kd::floor_(x); }
KILN_HD kf64 k_trunc(kf64 x) { return kd::trunc_(x); }
KILN_HD kf64 k_sqrt(kf64 x) { return kd::sqrt_rn(x); }
KILN_HD kf64 k_rsqrt(kf64 x) { return kd::div(kf64_from_bits(0x3ff0000000000000UL), kd::sqrt_rn(x)); }

// NaN in either argument gives NaN; -0 < +0 for the choice.
KILN_HD kf64 k_max(kf64 a, kf64 b) {
    if (a != a || b != b) return kd::add(a, b);
    if (a == b) return kd::sign_bit(a) ? b : a;
    return a > b ? a : b;
}
KILN_HD kf64 k_min(kf64 a, kf64 b) {
    if (a != a || b != b) return kd::add(a, b);
    if (a == b) return kd::sign_bit(a) ? a : b;
    return a < b ? a : b;
}

KILN_HD kf64 k_exp(kf64 x) {
    if (x != x) return kd::add(x, x);
    if (x > kf64_from_bits(0x4086300000000000UL)) return kd::inf();
    if (x < -kf64_from_bits(0x4087500000000000UL)) return kf64_from_bits(0x0000000000000000UL);
    int k;
    const kd::dd y = kd::exp_core(x, kf64_from_bits(0x0000000000000000UL), k);
    return kd::scale_dd(y, k);
}

// exp(x) - 1 without cancellation: e^r - 1 comes from the core directly, and
// for k != 0 the scaled 2^k e^r minus 1 is summed exactly before rounding.
KILN_HD kf64 k_expm1(kf64 x) {
    if (x != x) return kd::add(x, x);
    if (x > kf64_from_bits(0x4086300000000000UL)) return kd::inf();
    if (x < -kf64_from_bits(0x4044000000000000UL)) return -kf64_from_bits(0x3ff0000000000000UL);                       // e^x < 2^-57: rounds to -1
    if (kd::fabs_(x) < kf64_from_bits(0x3c90000000000000UL)) return x;             // x + x^2/2 rounds to x (keeps -0)
    int k;
    const kd::dd m = kd::expm1_core(x, kf64_from_bits(0x0000000000000000UL), k);
    if (k == 0) return m.hi;
    const kd::dd y = kd::fast_two_sum(kf64_from_bits(0x3ff0000000000000UL), m.hi);    // 2^k (y.hi + y.lo + m.lo) - 1
    if (k > 1000) return kd::scale2(kd::add(y.hi, kd::add(y.lo, m.lo)), k);
    const kf64 p = pow2i(k);
    const kd::dd s = kd::two_sum(kd::mul(y.hi, p), -kf64_from_bits(0x3ff0000000000000UL));
    return kd::add(s.hi, kd::add(s.lo, kd::mul(kd::add(y.lo, m.lo), p)));
}

KILN_HD kf64 k_log(kf64 x) {
    if (x != x) return kd::add(x, x);
    if (x == 0) return -kd::inf();
    if (x < 0) return kd::qnan();
    if (x == kd::inf()) return x;
    return kd::log_dd(x).hi;
}

// log(1 + x): 1 + x = u.hi + u.lo exactly, log(u.hi + u.lo) ~= log(u.hi) + u.lo/u.hi.
KILN_HD kf64 k_log1p(kf64 x) {
    if (x != x) return kd::add(x, x);
    if (x == -kf64_from_bits(0x3ff0000000000000UL)) return -kd::inf();
    if (x < -kf64_from_bits(0x3ff0000000000000UL)) return kd::qnan();
    if (x == kd::inf()) return x;
    if (kd::fabs_(x) < kf64_from_bits(0x3c90000000000000UL)) return x;
    const kd::dd u = kd::two_sum(kf64_from_bits(0x3ff0000000000000UL), x);
    const kd::dd l = kd::log_dd(u.hi);
    return kd::add(l.hi, kd::add(l.lo, kd::div(u.lo, u.hi)));
}

// tanh: 1 - 2/(e^2|x| + 1) carried in double-double so only the last step
// rounds; below 0.3, where that cancels too much, the odd Taylor-like
// polynomial x + x^3 T(x^2), whose correction is under 3% of x.
KILN_HD kf64 k_tanh(kf64 x) {
    if (x != x) return kd::add(x, x);
    const kf64 a = kd::fabs_(x);
    if (a < kf64_from_bits(0x3e40000000000000UL)) return x;                        // x - x^3/3 rounds to x
    if (a < kf64_from_bits(0x3fd3333333333333UL)) {
        const kf64 z = kd::mul(x, x);
        const kf64 t = kd::poly(z,
            -kf64_from_bits(0x3fd5555555555555UL), kf64_from_bits(0x3fc1111111110b9fUL), -kf64_from_bits(0x3faba1ba1b8dd76fUL), kf64_from_bits(0x3f9664f47a52e33eUL),
            -kf64_from_bits(0x3f8226de973098b5UL), kf64_from_bits(0x3f6d6b77a084310dUL), -kf64_from_bits(0x3f57ab0c8b40a0eeUL), kf64_from_bits(0x3f40bdf304f99aafUL));
        return kd::add(x, kd::mul(kd::mul(x, z), t));
    }
    if (a > kf64_from_bits(0x4036000000000000UL)) return x > 0 ? kf64_from_bits(0x3ff0000000000000UL) : -kf64_from_bits(0x3ff0000000000000UL);          // 1 - 2e^-44 rounds to 1
    int k;
    const kd::dd e = kd::exp_core(kd::mul(kf64_from_bits(0x4000000000000000UL), a), kf64_from_bits(0x0000000000000000UL), k);
    const kf64 p = pow2i(k);
    const kd::dd d = kd::dd_add(kd::dd{kd::mul(e.hi, p), kd::mul(e.lo, p)}, kd::dd{kf64_from_bits(0x3ff0000000000000UL), kf64_from_bits(0x0000000000000000UL)});
    const kd::dd q = kd::dd_div(kd::dd{kf64_from_bits(0x4000000000000000UL), kf64_from_bits(0x0000000000000000UL)}, d);
    const kd::dd s = kd::two_sum(kf64_from_bits(0x3ff0000000000000UL), -q.hi);
    const kf64 r = kd::add(s.hi, kd::sub(s.lo, q.lo));
    return x > 0 ? r : -r;
}

// 1 / (1 + e^-x), from e = e^-|x| <= 1 so nothing overflows: x >= 0 gives
// 1/(1+e), x < 0 gives e/(1+e), each a double-double quotient rounded once.
KILN_HD kf64 k_sigmoid(kf64 x) {
    if (x != x) return kd::add(x, x);
    if (x > kf64_from_bits(0x4044000000000000UL)) return kf64_from_bits(0x3ff0000000000000UL);                          // 1 - e^-40 rounds to 1
    if (x < -kf64_from_bits(0x4044000000000000UL)) return k_exp(x);                    // e/(1+e) = e (1 - e), e < 2^-57
    int k;
    const kd::dd e0 = kd::exp_core(-kd::fabs_(x), kf64_from_bits(0x0000000000000000UL), k);
    const kf64 p = pow2i(k);
    const kd::dd e = {kd::mul(e0.hi, p), kd::mul(e0.lo, p)};
    const kd::dd d = kd::dd_add(e, kd::dd{kf64_from_bits(0x3ff0000000000000UL), kf64_from_bits(0x0000000000000000UL)});
    return kd::dd_div(x >= 0 ? kd::dd{kf64_from_bits(0x3ff0000000000000UL), kf64_from_bits(0x0000000000000000UL)} : e, d).hi;
}

// erf: x + x E(x^2) for |x| < 0.84375; above, 1 - e^-x^2 G(x) where G = erfcx
// is fitted on four intervals to the accuracy that keeps the erfc term's error
// under a tenth of an ulp of erf (erfc/erf <= 0.3 there and falls fast); x^2
// goes to exp exactly as a double-double, and 1 - erfc rounds once.
KILN_HD kf64 k_erf(kf64 x) {
    if (x != x) return kd::add(x, x);
    const kf64 a = kd::fabs_(x);
    if (a < kf64_from_bits(0x07b0000000000000UL)) {                               // avoid subnormal intermediates
        const kf64 y = kd::mul(x, kf64_from_bits(0x43f0000000000000UL));
        return kd::mul(kd::add(y, kd::mul(y, kf64_from_bits(0x3fc06eba8214db69UL))), kf64_from_bits(0x3bf0000000000000UL));
    }
    if (a < kf64_from_bits(0x3feb000000000000UL)) {
        const kf64 z = kd::mul(x, x);
        const kf64 e = kd::poly(z,
            kf64_from_bits(0x3fc06eba8214db69UL), -kf64_from_bits(0x3fd812746b0379e6UL), kf64_from_bits(0x3fbce2f21a042acfUL), -kf64_from_bits(0x3f9b82ce31281a71UL),
            kf64_from_bits(0x3f7565bcd0ceb1d7UL), -kf64_from_bits(0x3f4c02db3a033205UL), kf64_from_bits(0x3f1f9a317b0dcb87UL), -kf64_from_bits(0x3eef4d0c17daf57fUL),
            kf64_from_bits(0x3ebb9c9ed1d47fd5UL), -kf64_from_bits(0x3e85e1b368bdf09eUL), kf64_from_bits(0x3e4e819bbd6706feUL), -kf64_from_bits(0x3e0e82ab4a2799adUL));
        return kd::add(x, kd::mul(x, e));
    }
    if (a >= kf64_from_bits(0x4018000000000000UL)) return x > 0 ? kf64_from_bits(0x3ff0000000000000UL) : -kf64_from_bits(0x3ff0000000000000UL);          // erfc(6) < 2^-54
    kf64 g;                                         // erfcx(a), t = a - centre exactly
    if (a < kf64_from_bits(0x3ff8000000000000UL)) {
        g = kd::poly(kd::sub(a, kf64_from_bits(0x3ff2c00000000000UL)),
            kf64_from_bits(0x3fd8a0c9d6c1656dUL), -kf64_from_bits(0x3fccfd08636a4ffbUL), kf64_from_bits(0x3fbe921bb204669cUL), -kf64_from_bits(0x3fad89206d9f427dUL),
            kf64_from_bits(0x3f9a8785639aa26eUL), -kf64_from_bits(0x3f8662c06edde176UL), kf64_from_bits(0x3f71e23626d04c7fUL), -kf64_from_bits(0x3f5b3753d2707f2fUL),
            kf64_from_bits(0x3f43d2074f76112cUL), -kf64_from_bits(0x3f2bbcf74e88d693UL), kf64_from_bits(0x3f12b342b11c2731UL), -kf64_from_bits(0x3ef86362fe7c1450UL),
            kf64_from_bits(0x3edfea4d80c8fce7UL), -kf64_from_bits(0x3ec38af3ff12e24cUL));
    } else if (a < kf64_from_bits(0x4002000000000000UL)) {
        g = kd::poly(kd::sub(a, kf64_from_bits(0x3ffe000000000000UL)),
            kf64_from_bits(0x3fd13e5743b60481UL), -kf64_from_bits(0x3fbe36580c7f734aUL), kf64_from_bits(0x3fa8a6efeed231a7UL), -kf64_from_bits(0x3f92ef92f6f1068dUL),
            kf64_from_bits(0x3f7b99589d4821bfUL), -kf64_from_bits(0x3f633237c3f25dbbUL), kf64_from_bits(0x3f499b60da9b79d1UL), -kf64_from_bits(0x3f3070e0c6738f19UL),
            kf64_from_bits(0x3f1463225c3d0d0fUL), -kf64_from_bits(0x3ef87a681fe4ddebUL), kf64_from_bits(0x3edc81a3181bf301UL), -kf64_from_bits(0x3ec0265cc11a5f61UL),
            kf64_from_bits(0x3ea2771127a44f43UL), -kf64_from_bits(0x3e83d93a895dc51dUL));
    } else if (a < kf64_from_bits(0x400a000000000000UL)) {
        g = kd::poly(kd::sub(a, kf64_from_bits(0x4006000000000000UL)),
            kf64_from_bits(0x3fc8c9eb68ff27d7UL), -kf64_from_bits(0x3fb030578132fef6UL), kf64_from_bits(0x3f943b98bac836a8UL), -kf64_from_bits(0x3f784e9ab319dd43UL),
            kf64_from_bits(0x3f5c2c72fd7cd025UL), -kf64_from_bits(0x3f3f99e407ec7ae9UL), kf64_from_bits(0x3f2131bb0bbb4c06UL), -kf64_from_bits(0x3f023134ed706f92UL),
            kf64_from_bits(0x3ee2bfbe893b36a9UL), -kf64_from_bits(0x3ec2d6235e68b209UL), kf64_from_bits(0x3ea281c3b947d155UL), -kf64_from_bits(0x3e829b2226e135a3UL),
            kf64_from_bits(0x3e617be345724383UL));
    } else {
        g = kd::poly(kd::sub(a, kf64_from_bits(0x4012800000000000UL)),
            kf64_from_bits(0x3fbe8b725e91150cUL), -kf64_from_bits(0x3f994e4c65b290e5UL), kf64_from_bits(0x3f748ea08f56ef66UL), -kf64_from_bits(0x3f50641d50b920faUL),
            kf64_from_bits(0x3f29adeaf84ee922UL), -kf64_from_bits(0x3f03c748d0702587UL), kf64_from_bits(0x3eddfa7a75430431UL), -kf64_from_bits(0x3eb65efaa0a597beUL),
            kf64_from_bits(0x3e9075f89ac1d2c2UL), -kf64_from_bits(0x3e67dc58a7e00d34UL), kf64_from_bits(0x3e40bd77485a24a1UL), -kf64_from_bits(0x3e17a463efaac47dUL),
            kf64_from_bits(0x3df4638385af3f4aUL), -kf64_from_bits(0x3dcbec2ea573ea87UL));
    }
    const kd::dd a2 = kd::two_prod(a, a);
    int k;
    const kd::dd e = kd::exp_core(-a2.hi, -a2.lo, k);
    const kf64 p = pow2i(k);                        // exact scaling: k >= -53
    const kd::dd q = kd::two_prod(kd::mul(e.hi, p), g);   // erfc(a), 1 - q rounds once
    const kd::dd s = kd::two_sum(kf64_from_bits(0x3ff0000000000000UL), -q.hi);
    const kf64 r = kd::add(s.hi, kd::sub(s.lo, kd::add(q.lo, kd::mul(kd::mul(e.lo, p), g))));
    return x > 0 ? r : -r;
}

KILN_HD kf64 k_sin(kf64 x) {
    if (kd::fabs_(x) < kf64_from_bits(0x3e40000000000000UL)) return x;             // x - x^3/6 rounds to x (keeps -0)
    if (kd::fabs_(x) == kd::inf() || x != x) return kd::sub(x, x);  // NaN
    const kd::reduced r = kd::reduce_pio2(x);
    switch (r.q) {
        case 0: return kd::sin_kernel(r.hi, r.lo);
        case 1: return kd::cos_kernel(r.hi, r.lo);
        case 2: return -kd::sin_kernel(r.hi, r.lo);
        default: return -kd::cos_kernel(r.hi, r.lo);
    }
}
KILN_HD kf64 k_cos(kf64 x) {
    if (kd::fabs_(x) < kf64_from_bits(0x3e40000000000000UL)) return kf64_from_bits(0x3ff0000000000000UL);
    if (kd::fabs_(x) == kd::inf() || x != x) return kd::sub(x, x);
    const kd::reduced r = kd::reduce_pio2(x);
    switch (r.q) {
        case 0: return kd::cos_kernel(r.hi, r.lo);
        case 1: return -kd::sin_kernel(r.hi, r.lo);
        case 2: return -kd::cos_kernel(r.hi, r.lo);
        default: return kd::sin_kernel(r.hi, r.lo);
    }
}

// pow as C99 Annex F specifies the special cases; otherwise
// exp(y log|x|) with y log|x| carried as a double-double (log_dd's 2^-64 keeps
// the product good to 2^-55 absolute even at |y log x| ~ 745), sign from odd y.
KILN_HD kf64 k_pow(kf64 x, kf64 y) {
    if (y == 0) return kf64_from_bits(0x3ff0000000000000UL);                           // even for NaN x
    if (x == kf64_from_bits(0x3ff0000000000000UL)) return kf64_from_bits(0x3ff0000000000000UL);                         // even for NaN y
    if (x != x || y != y) return kd::add(x, y);
    const kf64 ax = kd::fabs_(x), ay = kd::fabs_(y);
    if (ay == kd::inf()) {
        if (ax == kf64_from_bits(0x3ff0000000000000UL)) return kf64_from_bits(0x3ff0000000000000UL);                    // (-1)^+-inf
        return (ax < kf64_from_bits(0x3ff0000000000000UL)) == (y > 0) ? kf64_from_bits(0x0000000000000000UL) : kd::inf();
    }
    const int yk = kd::int_kind(y);
    if (x < 0 && ax != kd::inf() && yk == 0) return kd::qnan();
    const bool neg = kd::sign_bit(x) && yk == 1;
    kf64 r;
    if (ax == 0) r = y < 0 ? kd::inf() : kf64_from_bits(0x0000000000000000UL);
    else if (ax == kd::inf()) r = y < 0 ? kf64_from_bits(0x0000000000000000UL) : kd::inf();
    else if (y == kf64_from_bits(0x3ff0000000000000UL)) r = ax;
    else if (y == kf64_from_bits(0x4000000000000000UL)) r = kd::mul(ax, ax);
    else if (y == -kf64_from_bits(0x3ff0000000000000UL)) r = kd::div(kf64_from_bits(0x3ff0000000000000UL), ax);
    else {
        const kd::dd l = kd::log_dd(ax);
        const kf64 t0 = kd::mul(y, l.hi);
        if (t0 > kf64_from_bits(0x4086300000000000UL)) r = kd::inf();
        else if (t0 < -kf64_from_bits(0x4087500000000000UL)) r = kf64_from_bits(0x0000000000000000UL);
        else {
            // |y| <= 746 / |log ax| < 2^63 here, safe for Veltkamp splitting.
            const kd::dd t = kd::two_prod(y, l.hi);
            int k;
            const kd::dd e = kd::exp_core(t.hi, kd::add(t.lo, kd::mul(y, l.lo)), k);
            r = kd::scale_dd(e, k);
        }
    }
    return neg ? -r : r;
}

}  // namespace kiln_rt

#endif  // KILN_KMATH_H
// ---- kiln_metal.h
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
#endif  // KILN_METAL_PRELUDE

// ---- kernel
kernel void kiln_softmax_norm(
    device const float* a0 [[buffer(0)]],
    device float* a1 [[buffer(1)]],
    device float* a2 [[buffer(2)]],
    device float* a3 [[buffer(3)]],
    constant long* kiln_launch [[buffer(4)]],
    uint kiln_group [[threadgroup_position_in_grid]],
    uint kiln_groups [[threadgroups_per_grid]],
    uint kiln_lane [[thread_position_in_threadgroup]]) {
    typedef int kiln_index;  // element offsets in views
    const long v0 = kiln_launch[1];
    const long v2 = 0L;
    const float v3 = 7.00000000e+00f;
    const float v4 = 7.00000000e+00f;
    const float v5 = 0.00000000e+00f;
    const long v6 = 0L;
    const float v7 = 9.99999975e-06f;
    const long v8 = 0L;
    const float v9 = 9.99999975e-06f;
    const long v10 = 0L;
    // %11: loop parallel (the grid): one instance per thread
    for (long pid = (long)kiln_group * 64 + (long)kiln_lane; pid < kiln_launch[0]; pid += (long)kiln_groups * 64) {
        const long l11_i0 = pid;
        // %13 = load arg0 bounds=zero : f32[1x7 (local_row, column)]
        float v13[7];
        {
            const long o0 = l11_i0;
            const long x0 = kiln_launch[1], s0 = kiln_launch[3];
            const long o1 = v2;
            const long x1 = kiln_launch[2], s1 = kiln_launch[4];
            for (int e = 0; e < 7; ++e) {
                const long c0 = o0 + (e / 7);
                const long c1 = o1 + ((e) % 7);
                v13[e] = (c0 >= 0 && c0 < x0 && c1 >= 0 && c1 < x1) ? a0[(kiln_index)c0 * (kiln_index)s0 + (kiln_index)c1 * (kiln_index)s1] : 0.0f;
            }
        }
        // %14 = reduce_max : f32[1 (local_row)]
        float v14[1];
        {
            for (int e = 0; e < 1; ++e) {
                const int base = (e) * 7;
                float acc = v13[base + (0)];
                for (int r = 1; r < 7; ++r) acc = kiln_max(acc, v13[base + (r)]);
                v14[0] = acc;
            }
        }
        // %15 = broadcast : f32[1x7 (local_row, column)]
        float v15[7];
        {
            for (int e = 0; e < 7; ++e) {
                v15[e] = v14[0];
            }
        }
        // %16 = sub : f32[1x7 (local_row, column)]
        float v16[7];
        for (int e = 0; e < 7; ++e) {
            v16[e] = ((v13[e]) - (v15[e]));
        }
        // %17 = exp : f32[1x7 (local_row, column)]
        float v17[7];
        for (int e = 0; e < 7; ++e) {
            v17[e] = kiln_r32d(kiln_rt::k_exp(kf64(v16[e])));
        }
        // %18 = reduce_add : f32[1 (local_row)]
        float v18[1];
        {
            for (int e = 0; e < 1; ++e) {
                const int base = (e) * 7;
                float acc = v13[base + (0)];
                for (int r = 1; r < 7; ++r) acc = ((acc) + (v13[base + (r)]));
                v18[0] = acc;
            }
        }
        // %19 = div : f32[1 (local_row)]
        float v19[1];
        for (int e = 0; e < 1; ++e) {
            v19[0] = ((v18[0]) / (v3));
        }
        // %20 = mul : f32[1x7 (local_row, column)]
        float v20[7];
        for (int e = 0; e < 7; ++e) {
            v20[e] = ((v13[e]) * (v13[e]));
        }
        // %21 = reduce_add : f32[1 (local_row)]
        float v21[1];
        {
            for (int e = 0; e < 1; ++e) {
                const int base = (e) * 7;
                float acc = v20[base + (0)];
                for (int r = 1; r < 7; ++r) acc = ((acc) + (v20[base + (r)]));
                v21[0] = acc;
            }
        }
        // %22 = div : f32[1 (local_row)]
        float v22[1];
        for (int e = 0; e < 1; ++e) {
            v22[0] = ((v21[0]) / (v4));
        }
        // %23 = mul : f32[1 (local_row)]
        float v23[1];
        for (int e = 0; e < 1; ++e) {
            v23[0] = ((v19[0]) * (v19[0]));
        }
        // %24 = sub : f32[1 (local_row)]
        float v24[1];
        for (int e = 0; e < 1; ++e) {
            v24[0] = ((v22[0]) - (v23[0]));
        }
        // %25 = maximum : f32[1 (local_row)]
        float v25[1];
        for (int e = 0; e < 1; ++e) {
            v25[0] = kiln_max(v24[0], v5);
        }
        // %26 = reduce_add : f32[1 (local_row)]
        float v26[1];
        {
            for (int e = 0; e < 1; ++e) {
                const int base = (e) * 7;
                float acc = v17[base + (0)];
                for (int r = 1; r < 7; ++r) acc = ((acc) + (v17[base + (r)]));
                v26[0] = acc;
            }
        }
        // %27 = broadcast : f32[1x7 (local_row, column)]
        float v27[7];
        {
            for (int e = 0; e < 7; ++e) {
                v27[e] = v26[0];
            }
        }
        // %28 = div : f32[1x7 (local_row, column)]
        float v28[7];
        for (int e = 0; e < 7; ++e) {
            v28[e] = ((v17[e]) / (v27[e]));
        }
        // store arg1 bounds=zero : f32[1x7 (local_row, column)]
        {
            const long o0 = l11_i0;
            const long x0 = kiln_launch[5], s0 = kiln_launch[7];
            const long o1 = v6;
            const long x1 = kiln_launch[6], s1 = kiln_launch[8];
            for (int e = 0; e < 7; ++e) {
                const long c0 = o0 + (e / 7);
                const long c1 = o1 + ((e) % 7);
                if (c0 >= 0 && c0 < x0 && c1 >= 0 && c1 < x1) a1[(kiln_index)c0 * (kiln_index)s0 + (kiln_index)c1 * (kiln_index)s1] = v28[e];
            }
        }
        // %29 = add : f32[1 (local_row)]
        float v29[1];
        for (int e = 0; e < 1; ++e) {
            v29[0] = ((v25[0]) + (v7));
        }
        // %30 = sqrt : f32[1 (local_row)]
        float v30[1];
        for (int e = 0; e < 1; ++e) {
            v30[0] = kiln_r32d(kiln_rt::k_sqrt(kf64(v29[0])));
        }
        // %31 = broadcast : f32[1x7 (local_row, column)]
        float v31[7];
        {
            for (int e = 0; e < 7; ++e) {
                v31[e] = v19[0];
            }
        }
        // %32 = sub : f32[1x7 (local_row, column)]
        float v32[7];
        for (int e = 0; e < 7; ++e) {
            v32[e] = ((v13[e]) - (v31[e]));
        }
        // %33 = broadcast : f32[1x7 (local_row, column)]
        float v33[7];
        {
            for (int e = 0; e < 7; ++e) {
                v33[e] = v30[0];
            }
        }
        // %34 = div : f32[1x7 (local_row, column)]
        float v34[7];
        for (int e = 0; e < 7; ++e) {
            v34[e] = ((v32[e]) / (v33[e]));
        }
        // store arg2 bounds=zero : f32[1x7 (local_row, column)]
        {
            const long o0 = l11_i0;
            const long x0 = kiln_launch[9], s0 = kiln_launch[11];
            const long o1 = v8;
            const long x1 = kiln_launch[10], s1 = kiln_launch[12];
            for (int e = 0; e < 7; ++e) {
                const long c0 = o0 + (e / 7);
                const long c1 = o1 + ((e) % 7);
                if (c0 >= 0 && c0 < x0 && c1 >= 0 && c1 < x1) a2[(kiln_index)c0 * (kiln_index)s0 + (kiln_index)c1 * (kiln_index)s1] = v34[e];
            }
        }
        // %35 = add : f32[1 (local_row)]
        float v35[1];
        for (int e = 0; e < 1; ++e) {
            v35[0] = ((v22[0]) + (v9));
        }
        // %36 = sqrt : f32[1 (local_row)]
        float v36[1];
        for (int e = 0; e < 1; ++e) {
            v36[0] = kiln_r32d(kiln_rt::k_sqrt(kf64(v35[0])));
        }
        // %37 = broadcast : f32[1x7 (local_row, column)]
        float v37[7];
        {
            for (int e = 0; e < 7; ++e) {
                v37[e] = v36[0];
            }
        }
        // %38 = div : f32[1x7 (local_row, column)]
        float v38[7];
        for (int e = 0; e < 7; ++e) {
            v38[e] = ((v13[e]) / (v37[e]));
        }
        // store arg3 bounds=zero : f32[1x7 (local_row, column)]
        {
            const long o0 = l11_i0;
            const long x0 = kiln_launch[13], s0 = kiln_launch[15];
            const long o1 = v10;
            const long x1 = kiln_launch[14], s1 = kiln_launch[16];
            for (int e = 0; e < 7; ++e) {
                const long c0 = o0 + (e / 7);
                const long c1 = o1 + ((e) % 7);
                if (c0 >= 0 && c0 < x0 && c1 >= 0 && c1 < x1) a3[(kiln_index)c0 * (kiln_index)s0 + (kiln_index)c1 * (kiln_index)s1] = v38[e];
            }
        }
    }
}
