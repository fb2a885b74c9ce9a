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

namespace kc {
// ---- narrow floats: storage bits <-> the float holding the exact value
__device__ __forceinline__ float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short f2h(float x) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h; }
__device__ __forceinline__ float b2f(unsigned short b) { return __uint_as_float((unsigned)b << 16); }
__device__ __forceinline__ unsigned short f2b(float x) { unsigned short h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x)); return h; }
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
    unsigned char* const kiln_exchange0 = kiln_smem + 0;
    unsigned char* const kiln_exchange1 = kiln_smem + 32;
    const long long v0 = a0_e1;
    const long long v1 = a0_e0;
    const long long v2 = 0LL;
    const long long v3 = 0LL;
    // the parallel nest: one CTA per instance (grid-stride when the grid is capped)
    const long long g_total = v1;
    for (long long pid = blockIdx.x; pid < g_total; pid += gridDim.x) {
        long long rest4 = pid;
        const long long v5 = rest4;
        float v6[32];
        bool all_whole7 = true;
        #pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int e = (q) * 2048 + tid * 8;
            const long long c9 = v5 + 0;
            const long long c10 = v2 + ((e) % 8192);
            const bool whole11 = (unsigned long long)c9 < (unsigned long long)a0_e0 && c10 >= 0 && c10 + 8 <= a0_e1 && a0_s1 == 1;
            all_whole7 = all_whole7 && whole11 && ((unsigned long long)(a0 + (whole11 ? (kiln_idx)c9 * (kiln_idx)a0_s0 + (kiln_idx)c10 * (kiln_idx)a0_s1 : 0)) & 15) == 0;
        }
        if (all_whole7) {
            __align__(16) unsigned short raw8[32];
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int e = (q) * 2048 + tid * 8;
                const long long c12 = v5 + 0;
                const long long c13 = v2 + ((e) % 8192);
                reinterpret_cast<uint4*>(raw8)[q * 1 + 0] = reinterpret_cast<const uint4*>(a0 + ((kiln_idx)c12 * (kiln_idx)a0_s0 + (kiln_idx)c13 * (kiln_idx)a0_s1))[0];
            }
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                v6[q * 8 + 0] = kc::b2f(raw8[q * 8 + 0]);
                v6[q * 8 + 1] = kc::b2f(raw8[q * 8 + 1]);
                v6[q * 8 + 2] = kc::b2f(raw8[q * 8 + 2]);
                v6[q * 8 + 3] = kc::b2f(raw8[q * 8 + 3]);
                v6[q * 8 + 4] = kc::b2f(raw8[q * 8 + 4]);
                v6[q * 8 + 5] = kc::b2f(raw8[q * 8 + 5]);
                v6[q * 8 + 6] = kc::b2f(raw8[q * 8 + 6]);
                v6[q * 8 + 7] = kc::b2f(raw8[q * 8 + 7]);
            }
        } else {
            #pragma unroll
            for (int q = 0; q < 4; ++q) {
                const int e = (q) * 2048 + tid * 8;
                const long long c14 = v5 + 0;
                const long long c15 = v2 + ((e) % 8192);
                const bool whole16 = (unsigned long long)c14 < (unsigned long long)a0_e0 && c15 >= 0 && c15 + 8 <= a0_e1 && a0_s1 == 1;
                const unsigned short* const p17 = whole16 ? a0 + ((kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c15 * (kiln_idx)a0_s1) : a0;
                if (whole16 && ((unsigned long long)p17 & 15) == 0) {
                    __align__(16) unsigned short run18[8];
                    reinterpret_cast<uint4*>(run18)[0] = reinterpret_cast<const uint4*>(p17)[0];
                    v6[q * 8 + 0] = kc::b2f(run18[0]);
                    v6[q * 8 + 1] = kc::b2f(run18[1]);
                    v6[q * 8 + 2] = kc::b2f(run18[2]);
                    v6[q * 8 + 3] = kc::b2f(run18[3]);
                    v6[q * 8 + 4] = kc::b2f(run18[4]);
                    v6[q * 8 + 5] = kc::b2f(run18[5]);
                    v6[q * 8 + 6] = kc::b2f(run18[6]);
                    v6[q * 8 + 7] = kc::b2f(run18[7]);
                } else {
                    const long long c19 = c15 + 0;
                    v6[q * 8 + 0] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c19 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c19 * (kiln_idx)a0_s1]) : 0x0p+0f;
                    const long long c20 = c15 + 1;
                    v6[q * 8 + 1] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c20 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c20 * (kiln_idx)a0_s1]) : 0x0p+0f;
                    const long long c21 = c15 + 2;
                    v6[q * 8 + 2] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c21 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c21 * (kiln_idx)a0_s1]) : 0x0p+0f;
                    const long long c22 = c15 + 3;
                    v6[q * 8 + 3] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c22 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c22 * (kiln_idx)a0_s1]) : 0x0p+0f;
                    const long long c23 = c15 + 4;
                    v6[q * 8 + 4] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c23 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c23 * (kiln_idx)a0_s1]) : 0x0p+0f;
                    const long long c24 = c15 + 5;
                    v6[q * 8 + 5] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c24 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c24 * (kiln_idx)a0_s1]) : 0x0p+0f;
                    const long long c25 = c15 + 6;
                    v6[q * 8 + 6] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c25 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c25 * (kiln_idx)a0_s1]) : 0x0p+0f;
                    const long long c26 = c15 + 7;
                    v6[q * 8 + 7] = ((unsigned long long)c14 < (unsigned long long)a0_e0 && (unsigned long long)c26 < (unsigned long long)a0_e1) ? kc::b2f(a0[(kiln_idx)c14 * (kiln_idx)a0_s0 + (kiln_idx)c26 * (kiln_idx)a0_s1]) : 0x0p+0f;
                }
            }
        }
        float v27[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 * 2048 + tid * 8 + (j) % 8;
            v27[j] = v6[j];
        }
        float part28[1];
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            float acc29[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) acc29[i] = v27[p * 32 + i];
            #pragma unroll
            for (int i = 4; i < 32; ++i) acc29[i % 4] = kc::max_nan(acc29[i % 4], v27[p * 32 + i]);
            part28[p] = kc::max_nan(kc::max_nan(acc29[0], acc29[1]), kc::max_nan(acc29[2], acc29[3]));
            #pragma unroll
            for (int m = 16; m > 0; m >>= 1) part28[p] = kc::max_nan(part28[p], __shfl_xor_sync(0xffffffffu, part28[p], m));
        }
        __syncthreads();
        float* const x30 = reinterpret_cast<float*>(kiln_exchange0);
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            const int o = p * 1 + tid / 256;
            if (tid % 32 == 0) x30[o * 8 + tid % 256 / 32] = part28[p];
        }
        __syncthreads();
        float v31[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            float r32 = x30[tid % 8];
            #pragma unroll
            for (int m = 4; m > 0; m >>= 1) r32 = kc::max_nan(r32, __shfl_xor_sync(0xffffffffu, r32, m));
            v31[0] = r32;
        }
        float v33[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 * 2048 + tid * 8 + (j) % 8;
            v33[j] = v31[0];
        }
        float v34[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 * 2048 + tid * 8 + (j) % 8;
            v34[j] = (v27[j] - v33[j]);
        }
        float v35[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 * 2048 + tid * 8 + (j) % 8;
            v35[j] = expf(v34[j]);
        }
        float part36[1];
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            float acc37[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) acc37[i] = v35[p * 32 + i];
            #pragma unroll
            for (int i = 4; i < 32; ++i) acc37[i % 4] = (acc37[i % 4] + v35[p * 32 + i]);
            part36[p] = ((acc37[0] + acc37[1]) + (acc37[2] + acc37[3]));
            #pragma unroll
            for (int m = 16; m > 0; m >>= 1) part36[p] = (part36[p] + __shfl_xor_sync(0xffffffffu, part36[p], m));
        }
        float* const x38 = reinterpret_cast<float*>(kiln_exchange1);
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            const int o = p * 1 + tid / 256;
            if (tid % 32 == 0) x38[o * 8 + tid % 256 / 32] = part36[p];
        }
        __syncthreads();
        float v39[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            float r40 = x38[tid % 8];
            #pragma unroll
            for (int m = 4; m > 0; m >>= 1) r40 = (r40 + __shfl_xor_sync(0xffffffffu, r40, m));
            v39[0] = r40;
        }
        float v41[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 * 2048 + tid * 8 + (j) % 8;
            v41[j] = v39[0];
        }
        float v42[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 * 2048 + tid * 8 + (j) % 8;
            v42[j] = (v35[j] / v41[j]);
        }
        float v43[32];
        #pragma unroll
        for (int j = 0; j < 32; ++j) {
            [[maybe_unused]] const int e = (j) / 8 * 2048 + tid * 8 + (j) % 8;
            v43[j] = kc::rb16(v42[j]);
        }
        #pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int e = (q) * 2048 + tid * 8;
            const long long c44 = v5 + 0;
            const long long c45 = v3 + ((e) % 8192);
            const bool whole46 = (unsigned long long)c44 < (unsigned long long)a1_e0 && c45 >= 0 && c45 + 8 <= a1_e1 && a1_s1 == 1;
            unsigned short* const p47 = whole46 ? a1 + ((kiln_idx)c44 * (kiln_idx)a1_s0 + (kiln_idx)c45 * (kiln_idx)a1_s1) : a1;
            if (whole46 && ((unsigned long long)p47 & 15) == 0) {
                __align__(16) unsigned short run48[8];
                run48[0] = kc::f2b(v42[q * 8 + 0]);
                run48[1] = kc::f2b(v42[q * 8 + 1]);
                run48[2] = kc::f2b(v42[q * 8 + 2]);
                run48[3] = kc::f2b(v42[q * 8 + 3]);
                run48[4] = kc::f2b(v42[q * 8 + 4]);
                run48[5] = kc::f2b(v42[q * 8 + 5]);
                run48[6] = kc::f2b(v42[q * 8 + 6]);
                run48[7] = kc::f2b(v42[q * 8 + 7]);
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

