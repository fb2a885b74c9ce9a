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
