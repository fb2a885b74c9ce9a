#include "targets/cuda/prelude.h"

#include "targets/common/embedded_text.h"

namespace kiln::cu {

namespace {

// Device helpers the emitter calls. Register representation: bool, int (i8 and
// i32), long long, float (f32, and f16/bf16 holding their exact value), double.
const char* const kHelpers = R"KILN(
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
// ---- ptxas and f64 values built from halves: ptxas (CUDA 13.0, sm_90a) builds an f64
// select of constants whose low words are zero (0.0, 1.0, 2.0: a bool cast to f64, and
// arithmetic on it it folds) as a register pair with one zero low register shared by
// all of them and only the high register rewritten; it then dropped four of eight
// F2F.F32.F64 narrowings of such pairs as repeats of the first two, although the high
// register had changed between them (fuzz program 6545841, on an H100: an f16 2.0
// stored where the interpreter stores 0.0; nvdisasm of NVRTC's cubin, the SASS
// simulated on the program's data: bench/results/gpu-20261207-s40/). NVVM makes such
// selects of any conversion to f64 whose operand it knows to be a select of constants (a
// bool; an argmax's index cast to f16 through f64 became selects of 0.0 .. 4.0 narrowed by
// cvt.rn.f16.f64: fuzz program 6600205's PTX), so every conversion to f64 converts a value
// NVVM cannot see (an empty asm): a full 64-bit result of cvt, which ptxas does not split.
// (A bool converts as the integer 0 or 1.)
__device__ __forceinline__ double int_to_double(long long v) { asm("" : "+l"(v)); return (double)v; }
__device__ __forceinline__ double float_to_double(float x) { asm("" : "+f"(x)); return (double)x; }
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
)KILN";

}  // namespace

std::string prelude(bool with_math) {
    std::string s = "// kiln CUDA prelude: kiln/detail/kround.h";
    s += with_math ? ", kiln/detail/kmath.h" : "";
    s += ", device helpers\n";
    s += embedded::kround_h();
    if (with_math) s += embedded::kmath_h();
    s += kHelpers;
    return s;
}

}  // namespace kiln::cu
