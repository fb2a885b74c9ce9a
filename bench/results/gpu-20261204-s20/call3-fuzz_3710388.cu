// kiln: kernel 'fuzz_3710388' for the cuda target (exact precision, 32-bit offsets, sm_90)
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
// The same, NaNs canonicalised by sm_90's 16-bit minimum (emit.h: nan_by_minimum):
// cvt's NaN, 0x7fff, is the one positive pattern it gives above either canonical
// NaN (+inf is 0x7c00 / 0x7f80, and it gives no negative NaN), so a signed minimum
// with the canonical NaN rewrites exactly the NaNs, both halves in one instruction.
__device__ __forceinline__ unsigned nan_pair_min(unsigned r, float lo, float hi, unsigned nan) {
#if __CUDA_ARCH__ >= 900
    asm("min.s16x2 %0, %0, %1;" : "+r"(r) : "r"(nan | nan << 16));
    return r;
#else
    return nan_pair(r, lo, hi, nan);
#endif
}
__device__ __forceinline__ unsigned f2h2_min(float lo, float hi) {
    unsigned r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return nan_pair_min(r, lo, hi, 0x7e00u);
}
__device__ __forceinline__ unsigned f2b2_min(float lo, float hi) {
    unsigned r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return nan_pair_min(r, lo, hi, 0x7fc0u);
}
// One rounding of a float result to f16 / bf16. For + - * / sqrt the float
// result rounded again equals the f64 result rounded once (24 >= 2p + 2 bits),
// which is the contract's rule.
__device__ __forceinline__ float r16(float x) { return h2f(f2h(x)); }
__device__ __forceinline__ float rb16(float x) { return b2f(f2b(x)); }
// ---- ptxas and -0.0: ptxas (CUDA 13.0) compiles selp.f32 between the
// immediates -1.0 and -0.0 as an integer select of -1 and 0 converted to float,
// which gives +0.0 for the -0.0. NVVM writes that select when it folds a negation
// or a negative factor into a select whose arms it knows: -(b ? 1.0f : 0.0f) *
// y was -0.0 on the device for b false and y < 0, where the contract says +0.0
// (tests/unit/cuda_ptxas_workarounds_test.cpp). So the values whose arms NVVM would
// know pass through an empty asm, which it cannot look into, and a negation is
// one neg.f32 (ptxas folds it into the consumer's operand as before).
__device__ __forceinline__ float opaque_bits(unsigned u) { asm("" : "+r"(u)); return __uint_as_float(u); }
__device__ __forceinline__ float bool_to_float(bool b) { return opaque_bits(b ? 0x3f800000u : 0u); }
__device__ __forceinline__ float select_opaque(bool c, float a, float b) { return opaque_bits(c ? __float_as_uint(a) : __float_as_uint(b)); }
__device__ __forceinline__ float fneg(float x) { float r; asm("neg.f32 %0, %1;" : "=f"(r) : "f"(x)); return r; }
// One rounding of a double (math results; casts from f64 and integers).
__device__ __forceinline__ float d2f32(double x) { return __double2float_rn(x); }
__device__ __forceinline__ float d2f16(double x) { unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(x)); return h2f(h); }
__device__ __forceinline__ float d2bf16(double x) { return (float)kiln_rt::round_bf16(x); }

// ---- maximum / minimum: NaN propagates; max(-0, +0) = +0, min(-0, +0) = -0
// Selects, not branches (an epilogue's relu was a branch per element): equal
// operands differ at most in the sign of a zero, and the AND (max) or OR (min) of
// their bits is the +0 (-0) the rule asks for, or the operand itself.
__device__ __forceinline__ float kmax(float a, float b) {
    const float equal = __uint_as_float(__float_as_uint(a) & __float_as_uint(b));
    const float r = a > b ? a : (a < b ? b : equal);
    return a != a || b != b ? a + b : r;
}
__device__ __forceinline__ float kmin(float a, float b) {
    const float equal = __uint_as_float(__float_as_uint(a) | __float_as_uint(b));
    const float r = a < b ? a : (a > b ? b : equal);
    return a != a || b != b ? a + b : r;
}
// Precision fast (docs/semantics.md): e^x as 2^(x log2(e)) on the special function
// unit, subnormal results flushed to zero; within 2 + 1.2 |x| ulp (CUDA's bound for
// __expf). exp_fast_diff: e^(x - m) as 2^(x log2(e) - m log2(e)), one fma before the
// SFU (m log2(e) is the same for a row, computed once where m is): within
// 2 + 1.2 (|x - m| + |m|) ulp. Both are exp(NaN) = NaN, exp(-inf) = 0, exp(+inf) = inf.
__device__ __forceinline__ float ex2_approx(float x) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
__device__ __forceinline__ float exp_fast(float x) { return ex2_approx(x * 1.44269504088896341f); }
__device__ __forceinline__ float exp_fast_diff(float x, float m) {
    return ex2_approx(__fmaf_rn(x, 1.44269504088896341f, -(m * 1.44269504088896341f)));
}
// exp_fast_scaled: e^(s c - m) as 2^(s (c log2 e) - m log2 e), `c_log2e` the
// scale times log2(e) rounded once (the attention lowering's folded score scale):
// within 2 + 1.5 |x - m| + 2.5 |m| ulp, x = s c (docs/semantics.md).
__device__ __forceinline__ float exp_fast_scaled(float s, float c_log2e, float m) {
    return ex2_approx(__fmaf_rn(s, c_log2e, -(m * 1.44269504088896341f)));
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
// Bytes [s, s + 16) of the 32 bytes w[0..8) (little-endian words), s < 16: a run of
// a misaligned row, cut from the two aligned chunks it straddles (one funnel shift
// a word; the word select is warp-uniform where a row is). window8: the same for
// 8-byte runs.
__device__ __forceinline__ uint4 window16(const unsigned (&w)[8], unsigned s) {
    const unsigned shift = (s & 3u) * 8u;
    uint4 r;
    switch (s >> 2) {  // static register indices in each case (no select chains)
#define KC_WINDOW(j)                                    \
    case j:                                             \
        r.x = __funnelshift_r(w[j], w[j + 1], shift);     \
        r.y = __funnelshift_r(w[j + 1], w[j + 2], shift); \
        r.z = __funnelshift_r(w[j + 2], w[j + 3], shift); \
        r.w = __funnelshift_r(w[j + 3], w[j + 4], shift); \
        break;
        KC_WINDOW(0) KC_WINDOW(1) KC_WINDOW(2) default: KC_WINDOW(3)
#undef KC_WINDOW
    }
    return r;
}
__device__ __forceinline__ uint2 window8(const unsigned (&w)[4], unsigned s) {
    const unsigned shift = (s & 3u) * 8u;
    const unsigned v0 = s >= 4u ? w[1] : w[0], v1 = s >= 4u ? w[2] : w[1], v2 = s >= 4u ? w[3] : w[2];
    uint2 r;
    r.x = __funnelshift_r(v0, v1, shift);
    r.y = __funnelshift_r(v1, v2, shift);
    return r;
}
// ---- clusters (sm_90): an instance spanning several CTAs (passes/cuda_layout.h)
__device__ __forceinline__ unsigned cluster_rank() { unsigned r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r; }
// Every thread of every CTA of the cluster arrives; shared memory written before is
// visible to the others' reads after (release / acquire).
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" : : : "memory");
}
// The same shared-memory variable in CTA `rank` of the cluster, as a generic pointer.
template <class T> __device__ __forceinline__ const T* cluster_map(const T* p, unsigned rank) {
    unsigned long long out;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(out) : "l"(reinterpret_cast<unsigned long long>(p)), "r"(rank));
    return reinterpret_cast<const T*>(out);
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

extern "C" __global__ void __launch_bounds__(128) kiln_fuzz_3710388(unsigned short* a0, long long a0_e0, long long a0_e1, long long a0_s0, long long a0_s1, const int* a1, long long a1_e0, long long a1_s0, const int* a2, long long a2_e0, long long a2_e1, long long a2_s0, long long a2_s1) {
    extern __shared__ __align__(16) unsigned char kiln_smem[];
    const int tid = threadIdx.x;
    [[maybe_unused]] unsigned char* const kiln_shared = kiln_smem;
    const long long v0 = a0_e0;
    const long long v1 = 1LL;
    const long long v2 = kc::add64(v0, v1);
    const long long v3 = 1LL;
    const long long v4 = kc::sub64(v2, v3);
    const long long v5 = 1LL;
    const long long v6 = kiln_rt::idiv((long long)v4, (long long)v5, 64);
    const long long v7 = 16LL;
    const long long v8 = 0LL;
    const long long v9 = 0LL;
    const long long v10 = 4LL;
    const long long v11 = 13LL;
    const long long v12 = 1LL;
    const long long v13 = 0LL;
    const long long v14 = 0LL;
    const long long v15 = 12LL;
    const float v16 = 0x0p+0f;
    const bool v17 = true;
    const long long g_total = v6;
    // the parallel nest: one CTA per instance (grid-stride when the grid is capped)
    #pragma unroll 1
    for (long long pid = (long long)blockIdx.x; pid < g_total; pid += (long long)gridDim.x) {
        long long rest18 = pid;
        const long long v19 = rest18;
        const long long v20 = kc::mul64(v19, v7);
        const long long v21 = kc::add64(v20, v8);
        int v22[8];
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = (tid / 1) * 8 + (q * 8) % 8;
            if ((tid / 1) < 16) {
                const long long c25 = v21 + ((e) / 8);
                const long long c26 = v9 + ((e) % 8);
                const bool whole23 = (unsigned long long)c25 < (unsigned long long)a2_e0 && c26 >= 0 && c26 + 8 <= a2_e1 && a2_s1 == 1;
                const int* const p24 = whole23 ? a2 + ((kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c26 * (kiln_idx)a2_s1) : a2;
                if (whole23 && ((unsigned long long)p24 & 15) == 0) {
                    __align__(16) int run27[8];
                    reinterpret_cast<uint4*>(run27)[0] = reinterpret_cast<const uint4*>(p24)[0];
                    reinterpret_cast<uint4*>(run27)[1] = reinterpret_cast<const uint4*>(p24)[1];
                    v22[q * 8 + 0] = run27[0];
                    v22[q * 8 + 1] = run27[1];
                    v22[q * 8 + 2] = run27[2];
                    v22[q * 8 + 3] = run27[3];
                    v22[q * 8 + 4] = run27[4];
                    v22[q * 8 + 5] = run27[5];
                    v22[q * 8 + 6] = run27[6];
                    v22[q * 8 + 7] = run27[7];
                } else {
                    const long long c28 = c26 + 0;
                    v22[q * 8 + 0] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c28 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c28 * (kiln_idx)a2_s1] : 0;
                    const long long c29 = c26 + 1;
                    v22[q * 8 + 1] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c29 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c29 * (kiln_idx)a2_s1] : 0;
                    const long long c30 = c26 + 2;
                    v22[q * 8 + 2] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c30 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c30 * (kiln_idx)a2_s1] : 0;
                    const long long c31 = c26 + 3;
                    v22[q * 8 + 3] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c31 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c31 * (kiln_idx)a2_s1] : 0;
                    const long long c32 = c26 + 4;
                    v22[q * 8 + 4] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c32 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c32 * (kiln_idx)a2_s1] : 0;
                    const long long c33 = c26 + 5;
                    v22[q * 8 + 5] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c33 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c33 * (kiln_idx)a2_s1] : 0;
                    const long long c34 = c26 + 6;
                    v22[q * 8 + 6] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c34 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c34 * (kiln_idx)a2_s1] : 0;
                    const long long c35 = c26 + 7;
                    v22[q * 8 + 7] = ((unsigned long long)c25 < (unsigned long long)a2_e0 && (unsigned long long)c35 < (unsigned long long)a2_e1) ? a2[(kiln_idx)c25 * (kiln_idx)a2_s0 + (kiln_idx)c35 * (kiln_idx)a2_s1] : 0;
                }
            } else {
                v22[q * 8 + 0] = 0;
                v22[q * 8 + 1] = 0;
                v22[q * 8 + 2] = 0;
                v22[q * 8 + 3] = 0;
                v22[q * 8 + 4] = 0;
                v22[q * 8 + 5] = 0;
                v22[q * 8 + 6] = 0;
                v22[q * 8 + 7] = 0;
            }
        }
        int v36[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = (tid / 1) * 8 + (j) % 8;
            v36[j] = kc::sub32(0, v22[j]);
        }
        int part37[1];
        #pragma unroll
        for (int p = 0; p < 1; ++p) {
            int acc38[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) acc38[i] = v36[p * 8 + i];
            #pragma unroll
            for (int i = 4; i < 8; ++i) acc38[i % 4] = kc::imin(acc38[i % 4], v36[p * 8 + i]);
            part37[p] = kc::imin(kc::imin(acc38[0], acc38[1]), kc::imin(acc38[2], acc38[3]));
        }
        int v39[1];
        #pragma unroll
        for (int j = 0; j < 1; ++j) {
            [[maybe_unused]] const int e = tid / 1;
            v39[j] = part37[j];
        }
        // serial loop
        int c40[1];
        #pragma unroll
        for (int j = 0; j < 1; ++j) c40[j] = v39[j];
        {
            const long long n41 = kc::imax(v10, 0LL);
            for (long long it42 = 0; it42 < n41; ++it42) {
                long long rest43 = it42;
                const long long v44 = rest43;
                const long long v45 = v11;
                __syncthreads();
                int* const s46 = reinterpret_cast<int*>(kiln_shared + 0);
                #pragma unroll
                for (int j = 0; j < 1; ++j) {
                    const int e = tid / 1;
                    if ((tid / 1) < 16) {
                        s46[e] = v39[j];
                    }
                }
                __syncthreads();
                int v47;
                {
                    [[maybe_unused]] const int e = 0, j = 0;
                    const long long q48 = v45;
                    v47 = ((unsigned long long)q48 < 16ULL) ? s46[(int)(q48 * 1)] : 0;
                }
                int v49[1];
                #pragma unroll
                for (int j = 0; j < 1; ++j) {
                    [[maybe_unused]] const int e = tid / 1;
                    v49[j] = kc::mul32(c40[j], v47);
                }
                int y50[1];
                #pragma unroll
                for (int j = 0; j < 1; ++j) y50[j] = v49[j];
                #pragma unroll
                for (int j = 0; j < 1; ++j) c40[j] = y50[j];
            }
        }
        const long long v51 = kc::mul64(v19, v12);
        const long long v52 = kc::add64(v51, v13);
        const long long v53 = v15;
        __syncthreads();
        int* const s54 = reinterpret_cast<int*>(kiln_shared + 0);
        #pragma unroll
        for (int j = 0; j < 1; ++j) {
            const int e = tid / 1;
            if ((tid / 1) < 16) {
                s54[e] = v39[j];
            }
        }
        __syncthreads();
        int v55;
        {
            [[maybe_unused]] const int e = 0, j = 0;
            const long long q56 = v53;
            v55 = ((unsigned long long)q56 < 16ULL) ? s54[(int)(q56 * 1)] : 0;
        }
        const float v57 = kc::d2f16((double)(long long)v55);
        float v58[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v58[j] = v16;
        }
        bool v59[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v59[j] = v17;
        }
        float v60[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v60[j] = (v59[j] ? v57 : v58[j]);
        }
        __syncthreads();
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = tid * 8 + (q * 8) % 8;
            const bool held63 = (tid * 8 + (q * 8) % 8) < 7;
            const long long c64 = v52 + 0;
            const long long c65 = v14 + ((e) % 7);
            const bool whole61 = held63 && (tid * 8 + (q * 8) % 8) + 8 <= 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && c65 >= 0 && c65 + 8 <= a0_e1 && a0_s1 == 1;
            unsigned short* const p62 = whole61 ? a0 + ((kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c65 * (kiln_idx)a0_s1) : a0;
            const unsigned mis66 = whole61 ? (unsigned)((unsigned long long)p62 & 15u) : 0u;
            if (whole61 && mis66 == 0u) {
                __align__(16) unsigned short run67[8];
                reinterpret_cast<unsigned*>(run67)[0] = kc::f2h2(v60[q * 8 + 0], v60[q * 8 + 1]);
                reinterpret_cast<unsigned*>(run67)[1] = kc::f2h2(v60[q * 8 + 2], v60[q * 8 + 3]);
                reinterpret_cast<unsigned*>(run67)[2] = kc::f2h2(v60[q * 8 + 4], v60[q * 8 + 5]);
                reinterpret_cast<unsigned*>(run67)[3] = kc::f2h2(v60[q * 8 + 6], v60[q * 8 + 7]);
                reinterpret_cast<uint4*>(p62)[0] = reinterpret_cast<const uint4*>(run67)[0];
            }
            else if (!whole61 && held63) {
                const long long c68 = c65 + 0;
                if ((tid * 8 + (q * 8) % 8) + 0 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c68 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c68 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 0]);
                const long long c69 = c65 + 1;
                if ((tid * 8 + (q * 8) % 8) + 1 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c69 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c69 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 1]);
                const long long c70 = c65 + 2;
                if ((tid * 8 + (q * 8) % 8) + 2 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c70 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c70 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 2]);
                const long long c71 = c65 + 3;
                if ((tid * 8 + (q * 8) % 8) + 3 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c71 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c71 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 3]);
                const long long c72 = c65 + 4;
                if ((tid * 8 + (q * 8) % 8) + 4 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c72 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c72 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 4]);
                const long long c73 = c65 + 5;
                if ((tid * 8 + (q * 8) % 8) + 5 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c73 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c73 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 5]);
                const long long c74 = c65 + 6;
                if ((tid * 8 + (q * 8) % 8) + 6 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c74 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c74 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 6]);
                const long long c75 = c65 + 7;
                if ((tid * 8 + (q * 8) % 8) + 7 < 7 && (unsigned long long)c64 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1) a0[(kiln_idx)c64 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1] = kc::f2h(v60[q * 8 + 7]);
            }
            if (__any_sync(0xffffffffu, mis66 != 0u)) {
                uint4 x77 = {};
                if (mis66 != 0u) {
                    __align__(16) unsigned short run81[8];
                    reinterpret_cast<unsigned*>(run81)[0] = kc::f2h2(v60[q * 8 + 0], v60[q * 8 + 1]);
                    reinterpret_cast<unsigned*>(run81)[1] = kc::f2h2(v60[q * 8 + 2], v60[q * 8 + 3]);
                    reinterpret_cast<unsigned*>(run81)[2] = kc::f2h2(v60[q * 8 + 4], v60[q * 8 + 5]);
                    reinterpret_cast<unsigned*>(run81)[3] = kc::f2h2(v60[q * 8 + 6], v60[q * 8 + 7]);
                    reinterpret_cast<uint4*>((&x77))[0] = reinterpret_cast<const uint4*>(run81)[0];
                }
                const unsigned win76[8] = {x77.x, x77.y, x77.z, x77.w, __shfl_down_sync(0xffffffffu, x77.x, 1, 32), __shfl_down_sync(0xffffffffu, x77.y, 1, 32), __shfl_down_sync(0xffffffffu, x77.z, 1, 32), __shfl_down_sync(0xffffffffu, x77.w, 1, 32)};
                const int at78 = mis66 != 0u ? e : -1;
                const int next79 = __shfl_down_sync(0xffffffffu, at78, 1, 32);
                const int prev80 = __shfl_up_sync(0xffffffffu, at78, 1, 32);
                if (mis66 != 0u) {
                    if (next79 == at78 + 8 && at78 % 7 + 8 < 7) *reinterpret_cast<uint4*>(reinterpret_cast<char*>(p62) + (16u - mis66)) = kc::window16(win76, 16u - mis66);
                    else {
                        #pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            if (k * 2 >= 16 - (int)mis66) p62[k] = reinterpret_cast<const unsigned short*>(&x77)[k];
                        }
                    }
                    if (!(prev80 >= 0 && at78 == prev80 + 8 && prev80 % 7 + 8 < 7)) {
                        #pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            if (k * 2 < 16 - (int)mis66) p62[k] = reinterpret_cast<const unsigned short*>(&x77)[k];
                        }
                    }
                }
            }
        }
    }
}
