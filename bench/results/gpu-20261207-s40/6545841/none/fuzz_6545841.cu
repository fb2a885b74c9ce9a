// kiln: kernel 'fuzz_6545841' for the cuda target (exact precision, 32-bit offsets, sm_90)
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
// ---- ptxas and |x| against a constant <= 0: ptxas (CUDA 13.0, sm_90a) folds
// setp.ge.f32 (or .gt) of an abs.f32 against a constant <= 0 to true, as if |x| could
// not be NaN: |x - x| >= -2.5 was 1 on the device for x = inf, where the contract
// (and IEEE) gives 0 (fuzz program 5640584, on an H100). So the user's f32 abs (and
// f16/bf16's, held in float) clears the sign bit with an and.b32, the same bits,
// which ptxas does not reason about as a magnitude (tests/unit/cuda_ptxas_workarounds_test.cpp).
__device__ __forceinline__ float fabs_bits(float x) { return __uint_as_float(__float_as_uint(x) & 0x7fffffffu); }
// ---- ptxas and negated int32 operands: ptxas (CUDA 13.0, sm_90a) fuses two
// dependent signed 32-bit minimums (or maximums) into one VIMNMX3 and, where an
// operand of the inner one is a negation, folds the negation into the VIMNMX3,
// which keeps no negation: min(min(a, -b), c) computes min(a, b, c). A reduce_min
// of a negated i32 row gave -24 where the contract gives -13 on the device (fuzz
// program 3710388; the same SASS word for min(min(a, -b), c) as for
// min(min(a, b), c)). So the user's i8/i32 minimum and maximum, and the reductions
// and scans folding with them, compare the values with their sign bits flipped in
// the unsigned order (the same order; ptxas keeps the negation before the flip),
// and an i32 negation is a not and an add, which ptxas does not fold as one.
__device__ __forceinline__ int smin32(int a, int b) {
    int r;
    asm("{ .reg .b32 x, y; xor.b32 x, %1, 0x80000000; xor.b32 y, %2, 0x80000000; min.u32 x, x, y; xor.b32 %0, x, 0x80000000; }" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ int smax32(int a, int b) {
    int r;
    asm("{ .reg .b32 x, y; xor.b32 x, %1, 0x80000000; xor.b32 y, %2, 0x80000000; max.u32 x, x, y; xor.b32 %0, x, 0x80000000; }" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ int neg32(int x) { int r; asm("{ .reg .b32 t; not.b32 t, %1; add.s32 %0, t, 1; }" : "=r"(r) : "r"(x)); return r; }
// ---- NVVM and the i32 sign bit: x - INT_MIN (or + INT_MIN) is x ^ 0x80000000, the
// form NVVM (CUDA 13.0) canonicalises it to; widened to 64 bits in one kernel it
// became sext(x) - 2^31 (`cvt.s64.s32` then `add.s64 .., -2147483648`), which is
// 2^32 off for negative x: an i64 cast of `x - INT_MIN` gave -2147483679 for x = -31
// where the contract gives 2147483617 (fuzz program 5521605, on an H100; host
// compilers, and so the emulator, were right). So an i32 add or subtract of the
// constant INT_MIN flips the sign bit in PTX, which NVVM cannot look into, and one
// of another constant that NVVM would only know after folding adds in PTX.
__device__ __forceinline__ int flip_sign32(int x) { int r; asm("xor.b32 %0, %1, 0x80000000;" : "=r"(r) : "r"(x)); return r; }
// ---- NVVM and i32 sums with a constant: where a kernel had both x + C (wrapping, no
// overflow undefined: kc::add32 adds unsigned) and x widened to 64 bits, NVVM (CUDA
// 13.0) widened x as sext(x + C) - C (`cvt.s64.s32` of the sum, then `add.s64 .., -C`),
// as if the sum could not wrap: fuzz program 4962944 (standard, on an H100) divided
// 29 + INT_MAX by 29 and got 0, the divisor being 29 - 2^32. So every i32 add or
// subtract of a constant (or a value NVVM could fold to one) is added in PTX too.
__device__ __forceinline__ int add32_opaque(int a, int b) { int r; asm("add.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ int sub32_opaque(int a, int b) { int r; asm("sub.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
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
// ---- a fact for the optimiser (EmitOptions::index_facts): the emitter states that a thread's index within its
// instance lies in [0, threads) (emitter.cpp). Without it NVVM reads threadIdx.x
// into a signed int of unknown sign, and every element's column (e % C, e / C)
// took the signed remainder's four instructions instead of one (the bf16
// cross-entropy rows at 8192 columns: 1,456 SASS instructions against 1,576).
__device__ __forceinline__ void assume(bool fact) { __builtin_assume(fact); }
// Precision fast (docs/semantics.md): f32 division as div.full.f32, within 2 ulp of
// the correctly rounded quotient over the whole range (PTX ISA; subnormal quotients may
// be flushed to zero), one reciprocal on the special function unit and a
// multiply with the operands scaled where they need it, no range check and no call
// (div.rn.f32, the operator /, is a reciprocal, four fmas, a range check and a call
// to a slow path). CUDA's -use_fast_math divides so (--prec-div=false).
__device__ __forceinline__ float fdiv_full(float a, float b) { float r; asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
// The special function unit's reciprocal (MUFU.RCP, within 1 ulp), the first step
// of kc::fdiv below; the emulator's is the host's correctly rounded 1 / b, another
// approximation the same steps correct.
__device__ __forceinline__ float rcp_approx(float b) { float r; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b)); return r; }
// ---- f32 division by a divisor many quotients share (softmax's e / sum: the
// emitter calls this where the divisor is broadcast along a thread's run, when
// EmitOptions::shared_divisor is on: KILN_CUDA_SHARED_DIVISOR=1; an H100 A/B of the
// bf16 softmax and cross-entropy rows found it within noise, gpu-20261205-s27; SASS: 6 instructions a quotient, none on the
// special function unit, against div.rn.f32's 8 with a MUFU.RCP and an FCHK). The
// same bits as a / b (div.rn.f32) in every case: y = RN(1/b) is computed once for
// all the quotients with this divisor (NVVM merges and hoists the pure
// __frcp_rn), then each quotient is q0 = RN(a y) corrected once by the exact
// residual a - b q0 (Markstein): one multiply and two fmas, where div.rn.f32 takes
// a reciprocal on the special function unit, four fmas and a range check per
// quotient. The correction rounds correctly while nothing underflows or
// overflows: with |a| and |b| in [2^-62, 2^62] every intermediate is a normal
// float and the result scales exactly with the operands' exponents, so every
// dividend significand against 21,200 divisor significands (all ones, near one,
// near two and random: 1.8e11 pairs, bench/results/cuda-shared-divisor-20261204/;
// tests/unit/cuda_shared_divisor_test.cpp runs 32 of them) stands for the range.
// Outside it (zeros, subnormals, huge values, inf, NaN: the comparisons fail) the
// quotient is div.rn.f32's own.
// (The divisor's test is its own value and the dividend's joins it with &, not &&,
// so that NVVM keeps the divisor's part once a run as it does the reciprocal.)
// ---- plain C++ from here: the emulator (tests/emulated) keeps it as written
__device__ __forceinline__ float fdiv_shared(float a, float b) {
    const float y = __frcp_rn(b);
    const float aa = fabsf(a), ab = fabsf(b);
    const bool divisor_in_range = ab >= 0x1p-62f && ab <= 0x1p62f;
    if (divisor_in_range & (aa >= 0x1p-62f) & (aa <= 0x1p62f)) {
        const float q0 = __fmul_rn(a, y);
        return __fmaf_rn(__fmaf_rn(-q0, b, a), y, q0);
    }
    return __fdiv_rn(a, b);
}
// An index of an axis of n elements (0 <= i < n) compares with an i64 value v as it
// does with v clamped to [-1, n], which fits an int: scalar_ops.cpp's 32-bit
// compares of an iota against a value shared by a run (cross-entropy's label).
__device__ __forceinline__ int clamp_to_index(long long v, int n) { return v < 0 ? -1 : v > n ? n : (int)v; }
// ---- f32 division, correctly rounded, with no call (EmitOptions::inline_division).
// div.rn.f32 (the operator /) is a reciprocal, four fmas and a range check (FCHK)
// whose failure calls a slow path subroutine; ptxas keeps every live value of the
// kernel across each of those calls, and SwiGLU's 16 quotients a thread made the
// rows benchmark's bf16 kernel at 1000 columns spill 124 bytes at the first layout
// the kernel cache tries (6 with no slow path at all): the cache then gave up its
// loads ahead and half of each thread's share, and the kernel ran at 0.57 of copy.
// kc::fdiv is the same quotient: fdiv_core is div.rn.f32's fast path (Newton's step on
// the reciprocal, then Markstein's correction of RN(a r) by the exact residual
// a - b q), which rounds correctly while nothing underflows or overflows. Here
// that is decided by plain comparisons, inside bounds tighter than FCHK's:
// |b| in [2^-125, 2^125] (the reciprocal is normal), |a| in [2^-100, 2^125] and the
// quotient in [2^-100, 2^125] (the residual, a multiple of ulp(b) ulp(q) >= 2^-147,
// is exact; nothing overflows). Everything else (zeros, subnormals, infinities,
// NaN, quotients that overflow or underflow) goes through fdiv_wide: the operands'
// significands divided in that range, the exponent put back by integer arithmetic,
// and a subnormal quotient rounded from the significand once, the exact residual's
// sign breaking the ties that the first rounding made (so no double rounding). It is
// a call (one copy, reached only there): inlined at every quotient its registers made
// the rows around it spill more than div.rn.f32 did (offline, the rows benchmark's
// softmax, cross-entropy and SwiGLU, bench/results/gpu-20261206-s32/), called they
// spill less (SwiGLU bf16 at 1000 columns 124 -> 20 bytes at the first layout).
// tests/emulated/emulated_inline_division_test.cpp checks it against the interpreter's
// quotients over the whole exponent range, tests/unit/cuda_inline_division_test.cpp
// on a device.
__device__ __forceinline__ float fdiv_core(float a, float b) {
    const float r0 = rcp_approx(b);
    const float r1 = __fmaf_rn(r0, __fmaf_rn(-b, r0, 1.0f), r0);
    const float q0 = __fmul_rn(a, r1);
    return __fmaf_rn(r1, __fmaf_rn(-b, q0, a), q0);
}
__device__ __noinline__ float fdiv_wide(float a, float b) {
    const unsigned ia = __float_as_uint(a), ib = __float_as_uint(b);
    const unsigned sign = (ia ^ ib) & 0x80000000u;
    unsigned xa = ia & 0x7fffffffu, xb = ib & 0x7fffffffu;
    const unsigned inf = 0x7f800000u;
    if (xa > inf || xb > inf) return a + b;  // a NaN operand
    if ((xa == 0u && xb == 0u) || (xa == inf && xb == inf)) return __uint_as_float(0x7fc00000u);
    if (xa == inf || xb == 0u) return __uint_as_float(sign | inf);
    if (xa == 0u || xb == inf) return __uint_as_float(sign);
    // Finite and nonzero: a = ma 2^(ea - 127), b = mb 2^(eb - 127), ma and mb in [1, 2)
    // (a subnormal scaled by 2^24 first, exactly).
    int ea = (int)(xa >> 23), eb = (int)(xb >> 23);
    if (ea == 0) { xa = __float_as_uint(__uint_as_float(xa) * 0x1p24f); ea = (int)(xa >> 23) - 24; }
    if (eb == 0) { xb = __float_as_uint(__uint_as_float(xb) * 0x1p24f); eb = (int)(xb >> 23) - 24; }
    const float ma = __uint_as_float((xa & 0x7fffffu) | 0x3f800000u), mb = __uint_as_float((xb & 0x7fffffu) | 0x3f800000u);
    const float q = fdiv_core(ma, mb);  // in (0.5, 2], correctly rounded
    const unsigned iq = __float_as_uint(q);
    const int e = (int)(iq >> 23) + ea - eb;  // the quotient's biased exponent
    if (e >= 255) return __uint_as_float(sign | inf);
    if (e >= 1) return __uint_as_float(sign | (iq + ((unsigned)(ea - eb) << 23)));
    // Subnormal: the 24-bit significand m shifted right by s to the grid of 2^-149,
    // rounded to nearest, ties to even, the true quotient's side of q (the exact
    // residual's sign) deciding where m sits exactly halfway.
    const int s = 1 - e;
    if (s >= 25) return __uint_as_float(sign);  // below half of 2^-149
    const unsigned m = (iq & 0x7fffffu) | 0x800000u, kept = m >> s, rest = m & ((1u << s) - 1u), half = 1u << (s - 1);
    const float residual = __fmaf_rn(-mb, q, ma);
    const bool up = rest > half || (rest == half && (residual > 0.0f || (residual == 0.0f && (kept & 1u) != 0u)));
    return __uint_as_float(sign | (kept + (up ? 1u : 0u)));
}
__device__ __forceinline__ float fdiv(float a, float b) {
    const float q = fdiv_core(a, b);
    const float aa = fabsf(a), ab = fabsf(b), aq = fabsf(q);
    const bool divisor = (ab >= 0x1p-125f) & (ab <= 0x1p125f);
    const bool zero = aa == 0.0f;
    if (divisor & (zero | ((aa >= 0x1p-100f) & (aa <= 0x1p125f) & (aq >= 0x1p-100f) & (aq <= 0x1p125f))))
        return zero ? __uint_as_float((__float_as_uint(a) ^ __float_as_uint(b)) & 0x80000000u) : q;
    return fdiv_wide(a, b);
}
// ---- end of plain C++
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

extern "C" __global__ void __launch_bounds__(256) kiln_fuzz_6545841(const int* a0, long long a0_e0, long long a0_e1, long long a0_e2, long long a0_e3, long long a0_s0, long long a0_s1, long long a0_s2, long long a0_s3, unsigned char* a1, long long a1_e0, long long a1_e1, long long a1_e2, long long a1_s0, long long a1_s1, long long a1_s2, unsigned short* a2, long long a2_e0, long long a2_e1, long long a2_e2, long long a2_e3, long long a2_e4, long long a2_s0, long long a2_s1, long long a2_s2, long long a2_s3, long long a2_s4, const long long* a3, long long a3_e0, long long a3_e1, long long a3_s0, long long a3_s1, const float* a4, long long a4_e0, long long a4_s0, const int* a5, long long a5_e0, long long a5_e1, long long a5_e2, long long a5_e3, long long a5_e4, long long a5_s0, long long a5_s1, long long a5_s2, long long a5_s3, long long a5_s4, signed char* a6, long long a6_e0, long long a6_e1, long long a6_e2, long long a6_e3, long long a6_s0, long long a6_s1, long long a6_s2, long long a6_s3) {
    extern __shared__ __align__(16) unsigned char kiln_smem[];
    const int tid = threadIdx.x;
    [[maybe_unused]] unsigned char* const kiln_shared = kiln_smem;
    const long long v0 = a1_e2;
    const long long v1 = 1LL;
    const long long v2 = kc::add64(v0, v1);
    const long long v3 = 1LL;
    const long long v4 = kc::sub64(v2, v3);
    const long long v5 = 1LL;
    const long long v6 = kiln_rt::idiv((long long)v4, (long long)v5, 64);
    const long long v7 = a0_e2;
    const long long v8 = 1LL;
    const long long v9 = kc::add64(v7, v8);
    const long long v10 = 1LL;
    const long long v11 = kc::sub64(v9, v10);
    const long long v12 = 1LL;
    const long long v13 = kiln_rt::idiv((long long)v11, (long long)v12, 64);
    const long long v14 = 4LL;
    const long long v15 = 1LL;
    const long long v16 = 0LL;
    const long long v17 = 1LL;
    const long long v18 = 0LL;
    const long long v19 = 1LL;
    const long long v20 = -2LL;
    const long long v21 = 0LL;
    const int v22 = -2147483647;
    const long long v23 = 1LL;
    const long long v24 = 0LL;
    const long long v25 = 1LL;
    const long long v26 = 0LL;
    const long long v27 = 1LL;
    const long long v28 = 0LL;
    const long long v29 = 0LL;
    const long long v30 = 0LL;
    const long long v31 = 1LL;
    const long long v32 = 0LL;
    const long long v33 = 1LL;
    const long long v34 = 0LL;
    const long long v35 = -1LL;
    const long long v36 = 1LL;
    const float v37 = 0x0p+0f;
    const long long v38 = 1LL;
    const long long v39 = 0LL;
    const long long v40 = 1LL;
    const long long v41 = 0LL;
    const long long v42 = 1LL;
    const long long v43 = 0LL;
    const long long v44 = 1LL;
    const long long v45 = 0LL;
    const long long v46 = 0LL;
    const long long v47 = 1LL;
    const long long v48 = 0LL;
    const long long v49 = 1LL;
    const long long v50 = 0LL;
    const long long v51 = 0LL;
    const long long v52 = 1LL;
    const long long v53 = 0LL;
    const long long v54 = 1LL;
    const long long v55 = 0LL;
    const long long v56 = 1LL;
    const long long v57 = 0LL;
    const long long v58 = 0LL;
    const long long v59 = 394LL;
    const int v60 = 0;
    const long long g_total = v6 * v13 * v14;
    // the parallel nest: one CTA per instance (grid-stride when the grid is capped)
    #pragma unroll 1
    for (long long pid = (long long)blockIdx.x; pid < g_total; pid += (long long)gridDim.x) {
        long long rest61 = pid;
        const long long v62 = rest61 % v14;
        rest61 /= v14;
        const long long v63 = rest61 % v13;
        rest61 /= v13;
        const long long v64 = rest61;
        const long long v65 = kc::mul64(v62, v15);
        const long long v66 = kc::add64(v65, v16);
        const long long v67 = kc::mul64(v64, v17);
        const long long v68 = kc::add64(v67, v18);
        const long long v69 = kc::mul64(v63, v19);
        const long long v70 = kc::add64(v69, v20);
        int v71[8];
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = tid * 8 + (q * 8) % 8;
            if ((tid * 8 + (q * 8) % 8) < 1000) {
                const long long c74 = v66 + 0;
                const long long c75 = v68 + 0;
                const long long c76 = v70 + 0;
                const long long c77 = v21 + ((e) % 1000);
                const bool whole72 = (unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && c77 >= 0 && c77 + 8 <= a0_e3 && a0_s3 == 1;
                const int* const p73 = whole72 ? a0 + ((kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c77 * (kiln_idx)a0_s3) : a0;
                if (whole72 && ((unsigned long long)p73 & 15) == 0) {
                    __align__(16) int run78[8];
                    reinterpret_cast<uint4*>(run78)[0] = reinterpret_cast<const uint4*>(p73)[0];
                    reinterpret_cast<uint4*>(run78)[1] = reinterpret_cast<const uint4*>(p73)[1];
                    v71[q * 8 + 0] = run78[0];
                    v71[q * 8 + 1] = run78[1];
                    v71[q * 8 + 2] = run78[2];
                    v71[q * 8 + 3] = run78[3];
                    v71[q * 8 + 4] = run78[4];
                    v71[q * 8 + 5] = run78[5];
                    v71[q * 8 + 6] = run78[6];
                    v71[q * 8 + 7] = run78[7];
                }
                else {
                    const long long c81 = c77 + 0;
                    v71[q * 8 + 0] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c81 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c81 * (kiln_idx)a0_s3] : v22;
                    const long long c82 = c77 + 1;
                    v71[q * 8 + 1] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c82 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c82 * (kiln_idx)a0_s3] : v22;
                    const long long c83 = c77 + 2;
                    v71[q * 8 + 2] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c83 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c83 * (kiln_idx)a0_s3] : v22;
                    const long long c84 = c77 + 3;
                    v71[q * 8 + 3] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c84 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c84 * (kiln_idx)a0_s3] : v22;
                    const long long c85 = c77 + 4;
                    v71[q * 8 + 4] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c85 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c85 * (kiln_idx)a0_s3] : v22;
                    const long long c86 = c77 + 5;
                    v71[q * 8 + 5] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c86 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c86 * (kiln_idx)a0_s3] : v22;
                    const long long c87 = c77 + 6;
                    v71[q * 8 + 6] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c87 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c87 * (kiln_idx)a0_s3] : v22;
                    const long long c88 = c77 + 7;
                    v71[q * 8 + 7] = ((unsigned long long)c74 < (unsigned long long)a0_e0 && (unsigned long long)c75 < (unsigned long long)a0_e1 && (unsigned long long)c76 < (unsigned long long)a0_e2 && (unsigned long long)c88 < (unsigned long long)a0_e3) ? a0[(kiln_idx)c74 * (kiln_idx)a0_s0 + (kiln_idx)c75 * (kiln_idx)a0_s1 + (kiln_idx)c76 * (kiln_idx)a0_s2 + (kiln_idx)c88 * (kiln_idx)a0_s3] : v22;
                }
            } else {
                v71[q * 8 + 0] = 0;
                v71[q * 8 + 1] = 0;
                v71[q * 8 + 2] = 0;
                v71[q * 8 + 3] = 0;
                v71[q * 8 + 4] = 0;
                v71[q * 8 + 5] = 0;
                v71[q * 8 + 6] = 0;
                v71[q * 8 + 7] = 0;
            }
        }
        const long long v89 = kc::mul64(v64, v23);
        const long long v90 = kc::add64(v89, v24);
        const long long v91 = kc::mul64(v62, v25);
        const long long v92 = kc::add64(v91, v26);
        long long v93[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            const long long c94 = v90 + 0;
            const long long c95 = v92 + 0;
            v93[0] = ((unsigned long long)c94 < (unsigned long long)a3_e0 && (unsigned long long)c95 < (unsigned long long)a3_e1) ? a3[(kiln_idx)c94 * (kiln_idx)a3_s0 + (kiln_idx)c95 * (kiln_idx)a3_s1] : 0LL;
        }
        const long long v96 = kc::mul64(v64, v27);
        const long long v97 = kc::add64(v96, v28);
        const long long v98 = kc::mul64(v62, v31);
        const long long v99 = kc::add64(v98, v32);
        const long long v100 = kc::mul64(v63, v33);
        const long long v101 = kc::add64(v100, v34);
        int v102[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            if ((tid * 8 + (j) % 8) < 1000) {
                const long long c103 = v97 + 0;
                const long long c104 = v29 + ((e) % 1000);
                const long long c105 = v30 + 0;
                const long long c106 = v99 + 0;
                const long long c107 = v101 + 0;
                v102[j] = ((unsigned long long)c103 < (unsigned long long)a5_e0 && (unsigned long long)c104 < (unsigned long long)a5_e1 && (unsigned long long)c105 < (unsigned long long)a5_e2 && (unsigned long long)c106 < (unsigned long long)a5_e3 && (unsigned long long)c107 < (unsigned long long)a5_e4) ? a5[(kiln_idx)c103 * (kiln_idx)a5_s0 + (kiln_idx)c104 * (kiln_idx)a5_s1 + (kiln_idx)c105 * (kiln_idx)a5_s2 + (kiln_idx)c106 * (kiln_idx)a5_s3 + (kiln_idx)c107 * (kiln_idx)a5_s4] : 0;
            } else {
                v102[j] = 0;
            }
        }
        int col108[8];
        #pragma unroll
        for (int s = 0; s < 8; ++s) {
            col108[s] = v102[s];
        }
        int v109[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v109[j] = col108[j];
        }
        __syncthreads();
        int* const s110 = reinterpret_cast<int*>(kiln_shared + 0);
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int e = tid * 8 + (j) % 8;
            if ((tid * 8 + (j) % 8) < 1000) {
                s110[e] = v109[j];
            }
        }
        __syncthreads();
        long long v111[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            {
                const int base = 0;
                long long best = 0;
                int bv = s110[base];
                for (int q = 1; q < 1000; ++q) {
                    const int v = s110[base + q * 1];
                    if (v < bv) {
                        best = q;
                        bv = v;
                    }
                }
                v111[0] = best;
            }
        }
        __syncthreads();
        long long* const s112 = reinterpret_cast<long long*>(kiln_shared + 0);
        if (tid == 0) {
            s112[0] = v111[0];
        }
        long long* const s113 = reinterpret_cast<long long*>(kiln_shared + 16);
        __syncthreads();
        for (int o0 = 0; o0 < 1; o0 += 256) {
            const int o = o0 + tid / 1, lane = tid % 1;
            long long acc = 0LL;
            if (o < 1) {
                const int base = 0;
                acc = s112[base + 0];
                for (int r = lane + 1; r < 1; r += 1) {
                    acc = kc::imin(acc, s112[base + 0]);
                }
            }
            if (o < 1 && lane == 0) s113[o] = acc;
        }
        __syncthreads();
        long long v114;
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v114 = s113[e];
        }
        const bool v115 = (v114 != 0);
        long long v116[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v116[0] = (v115 ? v93[j] : v35);
        }
        int v117[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v117[j] = v71[j];
        }
        bool v118[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v118[j] = (v102[j] < v117[j]);
        }
        long long v119[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v119[0] = kiln_rt::idiv((long long)v36, (long long)v116[j], 64);
        }
        double v120[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v120[j] = (v118[j] ? 0x1p+0 : 0x0p+0);
        }
        __syncthreads();
        long long* const s121 = reinterpret_cast<long long*>(kiln_shared + 0);
        if (tid == 0) {
            s121[0] = v119[0];
        }
        long long* const s122 = reinterpret_cast<long long*>(kiln_shared + 16);
        __syncthreads();
        for (int o0 = 0; o0 < 1; o0 += 256) {
            const int o = o0 + tid / 1, lane = tid % 1;
            long long acc = 0LL;
            if (o < 1) {
                const int base = 0;
                acc = s121[base + 0];
                for (int r = lane + 1; r < 1; r += 1) {
                    acc = kc::imax(acc, s121[base + 0]);
                }
            }
            if (o < 1 && lane == 0) s122[o] = acc;
        }
        __syncthreads();
        long long v123[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v123[0] = s122[e];
        }
        float v124[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v124[0] = __ll2float_rn((long long)v123[j]);
        }
        float v125[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v125[j] = v37;
        }
        float v126[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v126[j] = v124[0];
        }
        float v127[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v127[j] = v37;
        }
        float v128[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v128[j] = (v126[j] + v127[j]);
        }
        __syncthreads();
        float* const s129 = reinterpret_cast<float*>(kiln_shared + 0);
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = tid * 8 + (q * 8) % 8;
            if ((tid * 8 + (q * 8) % 8) < 1000) {
                __align__(16) const float run130[8] = {v128[q * 8 + 0], v128[q * 8 + 1], v128[q * 8 + 2], v128[q * 8 + 3], v128[q * 8 + 4], v128[q * 8 + 5], v128[q * 8 + 6], v128[q * 8 + 7]};
                reinterpret_cast<uint4*>(s129 + e)[0] = reinterpret_cast<const uint4*>(run130)[0];
                reinterpret_cast<uint4*>(s129 + e)[1] = reinterpret_cast<const uint4*>(run130)[1];
            }
        }
        __syncthreads();
        float v131[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            if ((tid * 8 + (j) % 8) < 1000) {
                v131[j] = s129[((e) % 1000)];
            } else {
                v131[j] = 0x0p+0f;
            }
        }
        double v132[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v132[j] = (v120[j] + v120[j]);
        }
        bool v133[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v133[j] = (v131[j] != 0);
        }
        double v134[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v134[j] = (v133[j] ? v120[j] : v132[j]);
        }
        float v135[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v135[j] = kc::d2f32(v134[j]);
        }
        long long v136[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v136[0] = kc::sub64(0LL, v93[j]);
        }
        const long long v137 = kc::mul64(v63, v38);
        const long long v138 = kc::add64(v137, v39);
        const long long v139 = kc::mul64(v62, v40);
        const long long v140 = kc::add64(v139, v41);
        const long long v141 = kc::mul64(v64, v42);
        const long long v142 = kc::add64(v141, v43);
        __syncthreads();
        long long* const s143 = reinterpret_cast<long long*>(kiln_shared + 0);
        if (tid == 0) {
            s143[0] = v136[0];
        }
        __syncthreads();
        long long v144[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            {
                const int base = 0;
                long long best = 0;
                long long bv = s143[base];
                for (int q = 1; q < 1; ++q) {
                    const long long v = s143[base + q * 1];
                    if (v > bv) {
                        best = q;
                        bv = v;
                    }
                }
                v144[0] = best;
            }
        }
        __syncthreads();
        long long* const s145 = reinterpret_cast<long long*>(kiln_shared + 0);
        if (tid == 0) {
            s145[0] = v144[0];
        }
        long long* const s146 = reinterpret_cast<long long*>(kiln_shared + 16);
        __syncthreads();
        for (int o0 = 0; o0 < 1; o0 += 256) {
            const int o = o0 + tid / 1, lane = tid % 1;
            long long acc = 0LL;
            if (o < 1) {
                const int base = 0;
                acc = s145[base + 0];
                for (int r = lane + 1; r < 1; r += 1) {
                    acc = kc::add64(acc, s145[base + 0]);
                }
            }
            if (o < 1 && lane == 0) s146[o] = acc;
        }
        __syncthreads();
        long long v147;
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v147 = s146[e];
        }
        const bool v148 = (v147 != 0);
        bool v149[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v149[0] = v148;
        }
        if (tid == 0) {
            const long long c150 = v138 + 0;
            const long long c151 = v140 + 0;
            const long long c152 = v142 + 0;
            if ((unsigned long long)c150 < (unsigned long long)a1_e0 && (unsigned long long)c151 < (unsigned long long)a1_e1 && (unsigned long long)c152 < (unsigned long long)a1_e2) a1[(kiln_idx)c150 * (kiln_idx)a1_s0 + (kiln_idx)c151 * (kiln_idx)a1_s1 + (kiln_idx)c152 * (kiln_idx)a1_s2] = (unsigned char)(v149[0] ? 1 : 0);
        }
        const long long v153 = kc::mul64(v62, v44);
        const long long v154 = kc::add64(v153, v45);
        const long long v155 = kc::mul64(v63, v47);
        const long long v156 = kc::add64(v155, v48);
        const long long v157 = kc::mul64(v64, v49);
        const long long v158 = kc::add64(v157, v50);
        float v159[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            v159[j] = kc::r16(v135[j]);
        }
        __syncthreads();
        float* const s160 = reinterpret_cast<float*>(kiln_shared + 0);
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = tid * 8 + (q * 8) % 8;
            if ((tid * 8 + (q * 8) % 8) < 1000) {
                __align__(16) const float run161[8] = {v159[q * 8 + 0], v159[q * 8 + 1], v159[q * 8 + 2], v159[q * 8 + 3], v159[q * 8 + 4], v159[q * 8 + 5], v159[q * 8 + 6], v159[q * 8 + 7]};
                reinterpret_cast<uint4*>(s160 + e)[0] = reinterpret_cast<const uint4*>(run161)[0];
                reinterpret_cast<uint4*>(s160 + e)[1] = reinterpret_cast<const uint4*>(run161)[1];
            }
        }
        __syncthreads();
        float v162[8];
        #pragma unroll
        for (int j = 0; j < 8; ++j) {
            [[maybe_unused]] const int e = tid * 8 + (j) % 8;
            if ((tid * 8 + (j) % 8) < 1000) {
                v162[j] = s160[((e) % 1000)];
            } else {
                v162[j] = 0x0p+0f;
            }
        }
        __syncthreads();
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = tid * 8 + (q * 8) % 8;
            const bool held165 = (tid * 8 + (q * 8) % 8) < 1000;
            const long long c166 = v154 + 0;
            const long long c167 = v46 + 0;
            const long long c168 = v156 + 0;
            const long long c169 = v158 + 0;
            const long long c170 = v51 + ((e) % 1000);
            const bool whole163 = held165 && (unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && c170 >= 0 && c170 + 8 <= a2_e4 && a2_s4 == 1;
            unsigned short* const p164 = whole163 ? a2 + ((kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c170 * (kiln_idx)a2_s4) : a2;
            const unsigned mis171 = whole163 ? (unsigned)((unsigned long long)p164 & 15u) : 0u;
            if (whole163 && mis171 == 0u) {
                __align__(16) unsigned short run172[8];
                reinterpret_cast<unsigned*>(run172)[0] = kc::f2h2(v162[q * 8 + 0], v162[q * 8 + 1]);
                reinterpret_cast<unsigned*>(run172)[1] = kc::f2h2(v162[q * 8 + 2], v162[q * 8 + 3]);
                reinterpret_cast<unsigned*>(run172)[2] = kc::f2h2(v162[q * 8 + 4], v162[q * 8 + 5]);
                reinterpret_cast<unsigned*>(run172)[3] = kc::f2h2(v162[q * 8 + 6], v162[q * 8 + 7]);
                reinterpret_cast<uint4*>(p164)[0] = reinterpret_cast<const uint4*>(run172)[0];
            }
            else if (!whole163 && held165) {
                const long long c173 = c170 + 0;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c173 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c173 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 0]);
                const long long c174 = c170 + 1;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c174 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c174 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 1]);
                const long long c175 = c170 + 2;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c175 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c175 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 2]);
                const long long c176 = c170 + 3;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c176 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c176 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 3]);
                const long long c177 = c170 + 4;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c177 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c177 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 4]);
                const long long c178 = c170 + 5;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c178 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c178 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 5]);
                const long long c179 = c170 + 6;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c179 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c179 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 6]);
                const long long c180 = c170 + 7;
                if ((unsigned long long)c166 < (unsigned long long)a2_e0 && (unsigned long long)c167 < (unsigned long long)a2_e1 && (unsigned long long)c168 < (unsigned long long)a2_e2 && (unsigned long long)c169 < (unsigned long long)a2_e3 && (unsigned long long)c180 < (unsigned long long)a2_e4) a2[(kiln_idx)c166 * (kiln_idx)a2_s0 + (kiln_idx)c167 * (kiln_idx)a2_s1 + (kiln_idx)c168 * (kiln_idx)a2_s2 + (kiln_idx)c169 * (kiln_idx)a2_s3 + (kiln_idx)c180 * (kiln_idx)a2_s4] = kc::f2h(v162[q * 8 + 7]);
            }
            if (__any_sync(0xffffffffu, mis171 != 0u)) {
                uint4 x182 = {};
                if (mis171 != 0u) {
                    __align__(16) unsigned short run186[8];
                    reinterpret_cast<unsigned*>(run186)[0] = kc::f2h2(v162[q * 8 + 0], v162[q * 8 + 1]);
                    reinterpret_cast<unsigned*>(run186)[1] = kc::f2h2(v162[q * 8 + 2], v162[q * 8 + 3]);
                    reinterpret_cast<unsigned*>(run186)[2] = kc::f2h2(v162[q * 8 + 4], v162[q * 8 + 5]);
                    reinterpret_cast<unsigned*>(run186)[3] = kc::f2h2(v162[q * 8 + 6], v162[q * 8 + 7]);
                    reinterpret_cast<uint4*>((&x182))[0] = reinterpret_cast<const uint4*>(run186)[0];
                }
                const unsigned win181[8] = {x182.x, x182.y, x182.z, x182.w, __shfl_down_sync(0xffffffffu, x182.x, 1, 32), __shfl_down_sync(0xffffffffu, x182.y, 1, 32), __shfl_down_sync(0xffffffffu, x182.z, 1, 32), __shfl_down_sync(0xffffffffu, x182.w, 1, 32)};
                const int at183 = mis171 != 0u ? e : -1;
                const int next184 = __shfl_down_sync(0xffffffffu, at183, 1, 32);
                const int prev185 = __shfl_up_sync(0xffffffffu, at183, 1, 32);
                if (mis171 != 0u) {
                    if (next184 == at183 + 8 && at183 % 1000 + 8 < 1000) *reinterpret_cast<uint4*>(reinterpret_cast<char*>(p164) + (16u - mis171)) = kc::window16(win181, 16u - mis171);
                    else {
                        #pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            if (k * 2 >= 16 - (int)mis171) p164[k] = reinterpret_cast<const unsigned short*>(&x182)[k];
                        }
                    }
                    if (!(prev185 >= 0 && at183 == prev185 + 8 && prev185 % 1000 + 8 < 1000)) {
                        #pragma unroll
                        for (int k = 0; k < 8; ++k) {
                            if (k * 2 < 16 - (int)mis171) p164[k] = reinterpret_cast<const unsigned short*>(&x182)[k];
                        }
                    }
                }
            }
        }
        const long long v187 = kc::mul64(v62, v52);
        const long long v188 = kc::add64(v187, v53);
        const long long v189 = kc::mul64(v64, v54);
        const long long v190 = kc::add64(v189, v55);
        const long long v191 = kc::mul64(v63, v56);
        const long long v192 = kc::add64(v191, v57);
        long long v193[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v193[0] = v59;
        }
        __syncthreads();
        bool* const s194 = reinterpret_cast<bool*>(kiln_shared + 0);
        #pragma unroll
        for (int q = 0; q < 1; ++q) {
            const int e = tid * 8 + (q * 8) % 8;
            if ((tid * 8 + (q * 8) % 8) < 1000) {
                __align__(16) const bool run195[8] = {v118[q * 8 + 0], v118[q * 8 + 1], v118[q * 8 + 2], v118[q * 8 + 3], v118[q * 8 + 4], v118[q * 8 + 5], v118[q * 8 + 6], v118[q * 8 + 7]};
                reinterpret_cast<uint2*>(s194 + e)[0] = reinterpret_cast<const uint2*>(run195)[0];
            }
        }
        __syncthreads();
        bool v196[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            const long long q197 = v193[j];
            v196[0] = ((unsigned long long)q197 < 1000ULL) ? s194[(int)(q197 * 1 + 0 * 1000 + 0 * 1)] : false;
        }
        int v198[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v198[0] = (int)(v196[j] ? 1 : 0);
        }
        int v199[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v199[0] = v60;
        }
        int v200[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v200[0] = v198[0];
        }
        int v201[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v201[0] = v60;
        }
        int v202[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v202[0] = kc::w8((long long)v200[j] + (long long)v201[j]);
        }
        __syncthreads();
        int* const s203 = reinterpret_cast<int*>(kiln_shared + 0);
        if (tid == 0) {
            s203[0] = v202[0];
        }
        __syncthreads();
        int v204[1];
        {
            [[maybe_unused]] const int e = 0, j = 0;
            v204[0] = s203[0];
        }
        if (tid == 0) {
            const long long c205 = v188 + 0;
            const long long c206 = v190 + 0;
            const long long c207 = v192 + 0;
            const long long c208 = v58 + 0;
            if ((unsigned long long)c205 < (unsigned long long)a6_e0 && (unsigned long long)c206 < (unsigned long long)a6_e1 && (unsigned long long)c207 < (unsigned long long)a6_e2 && (unsigned long long)c208 < (unsigned long long)a6_e3) a6[(kiln_idx)c205 * (kiln_idx)a6_s0 + (kiln_idx)c206 * (kiln_idx)a6_s1 + (kiln_idx)c207 * (kiln_idx)a6_s2 + (kiln_idx)c208 * (kiln_idx)a6_s3] = (signed char)v204[0];
        }
    }
}
