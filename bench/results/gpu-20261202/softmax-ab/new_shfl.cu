// kiln: kernel 'bench_softmax_bf16' for the cuda target (standard precision, 32-bit offsets, sm_90)
// kiln CUDA prelude: kiln/detail/kround.h, device helpers
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
    return (long long)x;                                 // in range: C truncation is exact
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
#ifndef KILN_HD
#if defined(__CUDACC__)
#define KILN_HD __host__ __device__ __forceinline__
#else
#define KILN_HD inline
#endif
#endif
// Correctly rounded f32 division by a divisor shared by many quotients (a row's sum
// in softmax, a norm's scale): the division's reciprocal work done once per divisor,
// three operations per quotient. Pasted into the cuda target's generated source
// after kround.h (it uses kround.h's bit casts); the unit tests compile it on the
// host against a / b.
//
// With y = RN(1/b), q = RN(a y) and the exact residual r = a - b q (one FMA),
// RN(q + r y) is the correctly rounded a / b (Markstein's theorem: y within half an
// ulp of 1/b and q within an ulp of a/b) provided nothing over- or underflows: b
// and y normal, |a| >= 2^-102 so that r is exact, and the quotient well inside the
// normal range. Quotients outside that window (zeros, infinities, NaNs, subnormals,
// near overflow) take the IEEE division itself. tests/unit/divide_by_test.cpp checks
// it against a / b on 8 million random pairs and on the window's edges.
#ifndef KILN_DIVIDE_BY_H
#define KILN_DIVIDE_BY_H

namespace kiln_rt {

struct Divisor {
    float b, y;    // the divisor and its correctly rounded reciprocal
    float lo, hi;  // dividends a with lo <= |a| < hi take the fast path (lo > hi: none)
};

KILN_HD float fmaf_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return __builtin_fmaf(a, b, c);
#endif
}

KILN_HD Divisor divisor(float b) {
#if defined(__CUDA_ARCH__)
    const float y = __frcp_rn(b);
#else
    const float y = 1.0f / b;
#endif
    Divisor d{b, y, 1.0f, 0.0f};
    const int e = (int)((f32_bits(b) >> 23) & 0xffu);  // biased exponent
    if (e >= 1 && e <= 252) {
        // The quotient's biased exponent is e_a - e + 127 (+-1): keep it within [3, 251]
        // and e_a >= 25.
        const int lo = e - 124 > 25 ? e - 124 : 25, hi = e + 124 < 253 ? e + 124 : 253;
        d.lo = f32_of((unsigned)lo << 23);
        d.hi = f32_of((unsigned)hi << 23);
    }
    return d;
}

KILN_HD float divide(float a, Divisor d) {
    const float m = a < 0 ? -a : a;
    if (!(m >= d.lo && m < d.hi)) {
#if defined(__CUDA_ARCH__)
        return __fdiv_rn(a, d.b);
#else
        return a / d.b;
#endif
    }
#if defined(__CUDA_ARCH__)
    const float q = __fmul_rn(a, d.y);
#else
    const float q = a * d.y;
#endif
    const float r = fmaf_rn(-q, d.b, a);
    return fmaf_rn(r, d.y, q);
}

}  // namespace kiln_rt

#endif

namespace kc {
// ---- narrow floats: storage bits <-> the float holding the exact value
__device__ __forceinline__ float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
// A NaN is stored as the canonical quiet NaN of the kind, sign dropped (0x7e00,
// 0x7fc0), as kround.h does on the host: cvt alone would give 0x7fff.
__device__ __forceinline__ unsigned short f2h(float x) {
    unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x)); return x != x ? (unsigned short)0x7e00 : h;
}
__device__ __forceinline__ float b2f(unsigned short b) { return __uint_as_float((unsigned)b << 16); }
__device__ __forceinline__ unsigned short f2b(float x) {
    unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x)); return x != x ? (unsigned short)0x7fc0 : h;
}
// Two at once, lo in the low half (one instruction for the pair): what f2h / f2b give for each.
__device__ __forceinline__ unsigned nan_pair(unsigned r, float lo, float hi, unsigned nan) {
    if (lo != lo) r = (r & 0xffff0000u) | nan;
    if (hi != hi) r = (r & 0x0000ffffu) | nan << 16;
    return r;
}
__device__ __forceinline__ unsigned f2h2(float lo, float hi) {
    unsigned r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return nan_pair(r, lo, hi, 0x7e00u);
}
__device__ __forceinline__ unsigned f2b2(float lo, float hi) {
    unsigned r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return nan_pair(r, lo, hi, 0x7fc0u);
}
// One rounding of a float result to f16 / bf16. For + - * / sqrt the float
// result rounded again equals the f64 result rounded once (24 >= 2p + 2 bits),
// which is the contract's rule.
__device__ __forceinline__ float r16(float x) { return h2f(f2h(x)); }
__device__ __forceinline__ float rb16(float x) { return b2f(f2b(x)); }
// One rounding of a double (math results; casts from f64 and integers).
__device__ __forceinline__ float d2f32(double x) { return __double2float_rn(x); }
__device__ __forceinline__ float d2f16(double x) { unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(x)); return h2f(h); }
__device__ __forceinline__ float d2bf16(double x) { return (float)kiln_rt::round_bf16(x); }

// ---- maximum / minimum: NaN propagates; max(-0, +0) = +0, min(-0, +0) = -0
__device__ __forceinline__ float kmax(float a, float b) {
    if (a != a || b != b) return a + b;
    if (a == b) return (__float_as_uint(a) >> 31) ? b : a;
    return a > b ? a : b;
}
__device__ __forceinline__ float kmin(float a, float b) {
    if (a != a || b != b) return a + b;
    if (a == b) return (__float_as_uint(a) >> 31) ? a : b;
    return a < b ? a : b;
}
// sm_80+ max.NaN.f32: any NaN operand gives the canonical NaN, and max(-0, +0) =
// max(+0, -0) = +0 (checked on an H200: bench/results/gpu-20261130-c/README.md) -- the
// contract's maximum in one instruction, for float-held kinds.
__device__ __forceinline__ float max_nan(float a, float b) {
    float d;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
}
__device__ __forceinline__ double kmax(double a, double b) {
    if (a != a || b != b) return a + b;
    if (a == b) return __double_as_longlong(a) < 0 ? b : a;
    return a > b ? a : b;
}
__device__ __forceinline__ double kmin(double a, double b) {
    if (a != a || b != b) return a + b;
    if (a == b) return __double_as_longlong(a) < 0 ? a : b;
    return a < b ? a : b;
}
// A barrier among the `count` threads of one instance when a CTA runs several (id 0
// is __syncthreads).
__device__ __forceinline__ void bar_sync(int id, int count) { asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(count) : "memory"); }
template <class T> __device__ __forceinline__ T imax(T a, T b) { return a > b ? a : b; }
template <class T> __device__ __forceinline__ T imin(T a, T b) { return a < b ? a : b; }

// ---- integers: two's-complement wrap at the kind's width
__device__ __forceinline__ int w8(long long x) { return (int)kiln_rt::wrap_i8(x); }
__device__ __forceinline__ int add32(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int sub32(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int mul32(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ long long add64(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
__device__ __forceinline__ long long sub64(long long a, long long b) { return (long long)((unsigned long long)a - (unsigned long long)b); }
__device__ __forceinline__ long long mul64(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }

// ---- float order for sort / topk: NaN above everything, -0 == +0
__device__ __forceinline__ bool less_nan_last(double a, double b) { return (a == a && b != b) || a < b; }

// ---- tensor cores: D += A B on one 16x8 tile (fragments in the PTX ISA's layouts)
__device__ __forceinline__ void mma_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// s8 x s8 -> s32 without .satfinite: the accumulation wraps on overflow, as the
// contract's i32 sums do.
__device__ __forceinline__ void mma_s8(int (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ unsigned tf32(float x) { unsigned r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); return r; }
}  // namespace kc
typedef int kiln_idx;  // element offsets in views

extern "C" __global__ void __launch_bounds__(256, 4) kiln_bench_softmax_bf16(const unsigned short* a0, long long a0_e0, long long a0_e1, long long a0_s0, long long a0_s1, unsigned short* a1, long long a1_e0, long long a1_e1, long long a1_s0, long long a1_s1) {
    extern __shared__ __align__(16) unsigned char kiln_smem[];
    const int tid = threadIdx.x;
    [[maybe_unused]] unsigned char* const kiln_shared = kiln_smem;
    unsigned char* const kiln_exchange0 = kiln_shared + 0;
    unsigned char* const kiln_exchange1 = kiln_shared + 32;
    const long long v0 = a0_e0;
    const long long v1 = 0LL;
    const long long v2 = 0LL;
    const long long g_total = v0;
    // the parallel nest: one CTA per instance (grid-stride when the grid is capped)
    for (long long pid = blockIdx.x; pid < g_total; pid += gridDim.x) {
        long long rest3 = pid;
        const long long v4 = rest3;
        float v5[32];
        bool all_whole6 = true;
        #pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int e = (q * 8) / 8 % 4 * 2048 + tid * 8 + (q * 8) % 8;
            const long long c8 = v4 + 0;
            const long long c9 = v1 + ((e) % 8192);
            const bool whole10 = (unsigned long long)c8 < (unsigned long long)a0_e0 && c9 >= 0 && c9 + 8 <= a0_e1 && a0_s1 == 1;
            all_whole6 = all_whole6 && whole10 && ((unsigned long long)(a0 + (whole10 ? (kiln_idx)c8 * (kiln_idx)a0_s0 + (kiln_idx)c9 * (kiln_idx)a0_s1 : 0)) & 15) == 0;
        }
        if (all_whole6) {
            __align__(16) unsigned short raw7[32];
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int e = (q * 8) / 8 % 4 * 2048 + tid * 8 + (q * 8) % 8;
                const long long c11 = v4 + 0;
                const long long c12 = v1 + ((e) % 8192);
                reinterpret_cast<uint4*>(raw7)[q * 1 + 0] = reinterpret_cast<const uint4*>(a0 + ((kiln_idx)c11 * (kiln_idx)a0_s0 + (kiln_idx)c12 * (kiln_idx)a0_s1))[0];
            }
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                v5[q * 8 + 0] = kc::b2f(raw7[q * 8 + 0]);
                v5[q * 8 + 1] = kc::b2f(raw7[q * 8 + 1]);
                v5[q * 8 + 2] = kc::b2f(raw7[q * 8 + 2]);
                v5[q * 8 + 3] = kc::b2f(raw7[q * 8 + 3]);
                v5[q * 8 + 4] = kc::b2f(raw7[q * 8 + 4]);
                v5[q * 8 + 5] = kc::b2f(raw7[q * 8 + 5]);
                v5[q * 8 + 6] = kc::b2f(raw7[q * 8 + 6]);
                v5[q * 8 + 7] = kc::b2f(raw7[q * 8 + 7]);
            }
        } else {
            __align__(16) unsigned short raw13[32];
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int e = (q * 8) / 8 % 4 * 2048 + tid * 8 + (q * 8) % 8;
                const long long c14 = v4 + 0;
                const long long c15 = v1 + ((e) % 8192);
                const bool whole16 = (unsigned long long)c14 < (unsigned long long)a0_e0 && c15 >= 0 && c15 + 8 <= a0_e1 && a0_s1 == 1;
                const unsigned short* const p17 = whole16 ? a0 + ((kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c15 * (kiln_idx)a0_s1) : a0;
                if (whole16 && ((unsigned long long)p17 & 15) == 0) {
                    reinterpret_cast<uint4*>(raw13 + q * 8)[0] = reinterpret_cast<const uint4*>(p17)[0];
                } else {
                    const long long c18 = c15 + 0;
                    raw13[q * 8 + 0] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c18 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c18 * (kiln_idx)a0_s1] : (unsigned short)0;
                    const long long c19 = c15 + 1;
                    raw13[q * 8 + 1] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c19 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c19 * (kiln_idx)a0_s1] : (unsigned short)0;
                    const long long c20 = c15 + 2;
                    raw13[q * 8 + 2] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c20 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c20 * (kiln_idx)a0_s1] : (unsigned short)0;
                    const long long c21 = c15 + 3;
                    raw13[q * 8 + 3] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c21 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c21 * (kiln_idx)a0_s1] : (unsigned short)0;
                    const long long c22 = c15 + 4;
                    raw13[q * 8 + 4] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c22 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c22 * (kiln_idx)a0_s1] : (unsigned short)0;
                    const long long c23 = c15 + 5;
                    raw13[q * 8 + 5] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c23 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c23 * (kiln_idx)a0_s1] : (unsigned short)0;
                    const long long c24 = c15 + 6;
                    raw13[q * 8 + 6] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c24 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c24 * (kiln_idx)a0_s1] : (unsigned short)0;
                    const long long c25 = c15 + 7;
                    raw13[q * 8 + 7] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c25 < (unsigned long long)a0_e1) ? a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c25 * (kiln_idx)a0_s1] : (unsigned short)0;
                }
            }
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                v5[q * 8 + 0] = kc::b2f(raw13[q * 8 + 0]);
                v5[q * 8 + 1] = kc::b2f(raw13[q * 8 + 1]);
                v5[q * 8 + 2] = kc::b2f(raw13[q * 8 + 2]);
                v5[q * 8 + 3] = kc::b2f(raw13[q * 8 + 3]);
                v5[q * 8 + 4] = kc::b2f(raw13[q * 8 + 4]);
                v5[q * 8 + 5] = kc::b2f(raw13[q * 8 + 5]);
                v5[q * 8 + 6] = kc::b2f(raw13[q * 8 + 6]);
                v5[q * 8 + 7] = kc::b2f(raw13[q * 8 + 7]);
            }
        }
        float v26[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 % 4 * 2048 + tid * 8 + (j) % 8;
            v26[j] = v5[j];
        }
        float part27[1];
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            float acc28[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) acc28[i] = v26[p * 32 + i];
            #pragma unroll
            for (int i = 4; i < 32; ++i) acc28[i % 4] = kc::max_nan(acc28[i % 4], v26[p * 32 + i]);
            part27[p] = kc::max_nan(kc::max_nan(acc28[0], acc28[1]), kc::max_nan(acc28[2], acc28[3]));
            #pragma unroll
            for (int m = 16; m > 0; m >>= 1) part27[p] = kc::max_nan(part27[p], __shfl_xor_sync(0xffffffffu, part27[p], m));
        }
        __syncthreads();
        float* const x29 = reinterpret_cast<float*>(kiln_exchange0);
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            const int row = 0;
            if (tid % 32 == 0) x29[row * 8 + tid % 256 / 32] = part27[p];
        }
        __syncthreads();
        float v30[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            float r31 = x29[tid % 8];
            #pragma unroll
            for (int m = 4; m > 0; m >>= 1) r31 = kc::max_nan(r31, __shfl_xor_sync(0xffffffffu, r31, m));
            v30[0] = r31;
        }
        float v32[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 % 4 * 2048 + tid * 8 + (j) % 8;
            v32[j] = v30[0];
        }
        float v33[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 % 4 * 2048 + tid * 8 + (j) % 8;
            v33[j] = (v26[j] - v32[j]);
        }
        float v34[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 % 4 * 2048 + tid * 8 + (j) % 8;
            v34[j] = expf(v33[j]);
        }
        float part35[1];
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            float acc36[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) acc36[i] = v34[p * 32 + i];
            #pragma unroll
            for (int i = 4; i < 32; ++i) acc36[i % 4] = (acc36[i % 4] + v34[p * 32 + i]);
            part35[p] = ((acc36[0] + acc36[1]) + (acc36[2] + acc36[3]));
            #pragma unroll
            for (int m = 16; m > 0; m >>= 1) part35[p] = (part35[p] + __shfl_xor_sync(0xffffffffu, part35[p], m));
        }
        float* const x37 = reinterpret_cast<float*>(kiln_exchange1);
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            const int row = 0;
            if (tid % 32 == 0) x37[row * 8 + tid % 256 / 32] = part35[p];
        }
        __syncthreads();
        float v38[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            float r39 = x37[tid % 8];
            #pragma unroll
            for (int m = 4; m > 0; m >>= 1) r39 = (r39 + __shfl_xor_sync(0xffffffffu, r39, m));
            v38[0] = r39;
        }
        float v40[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 % 4 * 2048 + tid * 8 + (j) % 8;
            v40[j] = v38[0];
        }
        kiln_rt::Divisor divisor41[1];
        #pragma unroll
        for (int p = 0; p < 1; ++p) divisor41[p] = kiln_rt::divisor(v38[0]);
        float v42[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 % 4 * 2048 + tid * 8 + (j) % 8;
            v42[j] = kiln_rt::divide(v34[j], divisor41[0]);
        }
        float v43[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 % 4 * 2048 + tid * 8 + (j) % 8;
            v43[j] = kc::rb16(v42[j]);
        }
        #pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int e = (q * 8) / 8 % 4 * 2048 + tid * 8 + (q * 8) % 8;
            const long long c44 = v4 + 0;
            const long long c45 = v2 + ((e) % 8192);
            const bool whole46 = (unsigned long long)c44 < (unsigned long long)a1_e0 && c45 >= 0 && c45 + 8 <= a1_e1 && a1_s1 == 1;
            unsigned short* const p47 = whole46 ? a1 + ((kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c45 * (kiln_idx)a1_s1) : a1;
            if (whole46 && ((unsigned long long)p47 & 15) == 0) {
                __align__(16) unsigned short run48[8];
                reinterpret_cast<unsigned*>(run48)[0] = kc::f2b2(v42[q * 8 + 0], v42[q * 8 + 1]);
                reinterpret_cast<unsigned*>(run48)[1] = kc::f2b2(v42[q * 8 + 2], v42[q * 8 + 3]);
                reinterpret_cast<unsigned*>(run48)[2] = kc::f2b2(v42[q * 8 + 4], v42[q * 8 + 5]);
                reinterpret_cast<unsigned*>(run48)[3] = kc::f2b2(v42[q * 8 + 6], v42[q * 8 + 7]);
                reinterpret_cast<uint4*>(p47)[0] = reinterpret_cast<const uint4*>(run48)[0];
            } else {
                const long long c49 = c45 + 0;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c49 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c49 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 0]);
                const long long c50 = c45 + 1;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c50 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c50 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 1]);
                const long long c51 = c45 + 2;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c51 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c51 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 2]);
                const long long c52 = c45 + 3;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c52 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c52 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 3]);
                const long long c53 = c45 + 4;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c53 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c53 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 4]);
                const long long c54 = c45 + 5;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c54 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c54 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 5]);
                const long long c55 = c45 + 6;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c55 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c55 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 6]);
                const long long c56 = c45 + 7;
                if ((unsigned long long)c44 < (unsigned long long)a1_e0 && (unsigned long long)c56 < (unsigned long long)a1_e1) a1[(kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c56 * (kiln_idx)a1_s1] = kc::f2b(v42[q * 8 + 7]);
            }
        }
    }
}

