// Helpers shared by every generated CPU kernel. Pasted after cpu_abi.h, kround.h
// and kmath.h (so it includes nothing): element conversions between views and
// tiles, the f32 NaN rule, the vectorisable f32 exp, the mma micro-kernel,
// bounds windows and the out-of-range report (the helpers along one line, for
// max/min, scans, sort and topk, are cpu_lines.h). Each helper reproduces the interpreter's definition (src/interp)
// exactly; the generated code adds only loop structure.
#ifndef KILN_CPU_PRELUDE_H
#define KILN_CPU_PRELUDE_H

// Before a loop whose iterations share no memory (Emitter::loop_nest).
#if defined(__clang__)
#define KILN_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#else
#define KILN_INDEPENDENT _Pragma("GCC ivdep")
#endif

namespace kiln_cpu {

// ---- element kinds: the value type a tile holds, the type a view stores, and
// the conversions between them (interp/run_kernel.cpp read_* / write_*).
// f16 and bf16 live in tiles as the exact double, like the interpreter's.
struct K_bool {
    typedef unsigned char val;
    typedef unsigned char mem;
    static val load(mem m) { return m != 0; }
    static mem store(val v) { return v; }
};
struct K_i8 {
    typedef signed char val;
    typedef signed char mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
struct K_i32 {
    typedef int val;
    typedef int mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
struct K_i64 {
    typedef long long val;
    typedef long long mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
// f16 and bf16 elements convert with branch-free bit arithmetic that the host
// compiler vectorises (kiln_rt's narrow_bits_* are the general definitions,
// branchy and one element at a time); each gives kiln_rt's bits exactly
// (cpu_narrow_float_test checks every pattern and value class). A tile element
// of either kind always holds an exactly representable value, so storing one
// only re-encodes it: no rounding.
inline float bf16_to_float(unsigned short m) { return __builtin_bit_cast(float, (unsigned)m << 16); }
inline float f16_to_float(unsigned short m) {
    const unsigned sign = (unsigned)(m & 0x8000u) << 16, em = m & 0x7fffu;
    // Normal: the fields moved into place, the exponent rebiased by 127 - 15.
    // Subnormal: em units of 2^-24, exact in float. Inf/NaN: an all-ones exponent,
    // the fraction kept (a NaN's payload, as kiln_rt keeps it).
    const float normal = __builtin_bit_cast(float, (em << 13) + 0x38000000u);
    const float subnormal = (float)(int)em * 0x1p-24f;
    const float special = __builtin_bit_cast(float, (em << 13) | 0x7f800000u);
    const float mag = em < 0x400u ? subnormal : em >= 0x7c00u ? special : normal;
    return __builtin_bit_cast(float, __builtin_bit_cast(unsigned, mag) | sign);
}
// The bits of an exactly representable bf16 value; NaN is the canonical 0x7fc0.
// (An exact f16 value is stored with round_f16_bits_of below: rounding it
// changes nothing, and that form vectorises.)
inline unsigned short bf16_bits_of(float f) { return f != f ? (unsigned short)0x7fc0u : (unsigned short)(__builtin_bit_cast(unsigned, f) >> 16); }
// Rounding an f32 value once to bf16 / f16 (kiln_rt::round_bf16 / round_f16 of
// the exact double), as the float the result is: ties to even, gradual
// underflow, overflow to inf, NaN canonical. bf16 keeps the top half of the
// float's bits, rounded on the bottom half. f16: the normal range rounds on the
// rebiased bits; the subnormal range lets the float adder round (|f| + 1/2
// keeps multiples of 2^-24, the f16 subnormal step, in its last bits).
inline float round_bf16_of(float f) {
    const unsigned b = __builtin_bit_cast(unsigned, f);
    const unsigned r = (b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u;
    return f != f ? __builtin_bit_cast(float, 0x7fc00000u) : __builtin_bit_cast(float, r);
}
inline unsigned short round_f16_bits_of(float f) {
    const unsigned b = __builtin_bit_cast(unsigned, f), sign = (b >> 16) & 0x8000u, mag = b & 0x7fffffffu;
    const unsigned t = mag - 0x38000000u;
    const unsigned normal = (t + 0xfffu + ((t >> 13) & 1u)) >> 13;  // may carry into inf: exactly the overflow rule
    const unsigned subnormal = __builtin_bit_cast(unsigned, __builtin_bit_cast(float, mag) + 0.5f) - 0x3f000000u;
    const unsigned bits = mag >= 0x477ff000u ? 0x7c00u : mag >= 0x38800000u ? normal : subnormal;  // 65520 and up: inf
    return mag > 0x7f800000u ? (unsigned short)0x7e00u : (unsigned short)(bits | sign);
}
inline float round_f16_of(float f) { return f16_to_float(round_f16_bits_of(f)); }

// Rounding a double once to bf16 / f16: first to float by rounding to odd (the
// nearest float toward zero, its last bit set when inexact), which keeps every
// bit a second rounding to 8 or 11 bits needs (a float has at least 2 more at
// every exponent, subnormals included), then as above. Branch-free, unlike
// kiln_rt's; the same bits.
inline float round_to_odd_float(double x) {
    const float f = (float)x;
    const unsigned b = __builtin_bit_cast(unsigned, f);
    const double af = __builtin_fabs((double)f), ax = __builtin_fabs(x);
    const unsigned toward_zero = (b & 0x7fffffffu) - (af > ax ? 1u : 0u);
    const unsigned odd = toward_zero | ((double)f != x ? 1u : 0u);
    return x != x ? f : __builtin_bit_cast(float, (b & 0x80000000u) | odd);
}

struct K_f16 {
    typedef double val;
    typedef unsigned short mem;
    static val load(mem m) { return (double)f16_to_float(m); }
    static mem store(val v) { return round_f16_bits_of((float)v); }
};
struct K_bf16 {
    typedef double val;
    typedef unsigned short mem;
    static val load(mem m) { return (double)bf16_to_float(m); }
    static mem store(val v) { return bf16_bits_of((float)v); }
};
struct K_f32 {
    typedef float val;
    typedef float mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
struct K_f64 {
    typedef double val;
    typedef double mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};

// ---- rounding. f32 arithmetic runs natively in float: + - * / of floats is the
// correctly rounded f32 result, the same number as the interpreter's f64 result
// rounded once. Only NaN differs (x86 makes a negative default NaN and
// propagates payloads), so results pass through c32, kiln_rt::round_f32's rule.
inline float c32(float x) { return x != x ? __builtin_bit_cast(float, 0x7fc00000u) : x; }
inline float r32(double x) { return (float)kiln_rt::round_f32(x); }
inline double r16(double x) { return (double)round_f16_of(round_to_odd_float(x)); }
inline double rbf16(double x) { return (double)round_bf16_of(round_to_odd_float(x)); }

// |x| as the interpreter defines it: -0 -> +0, NaN keeps its sign.
template <class T> inline T abs_float(T x) { return x < 0 || (x == 0 && __builtin_signbit(x)) ? -x : x; }

// ---- exp of f32 values in vector loops. kiln_rt::k_exp (the interpreter's exp,
// rounded once to float by r32) is branchy double-double code that GCC cannot
// vectorise. exp32 computes e^x for a float x along a branch-free path in f64:
// x = k ln2 + r (Cody-Waite, |r| <= 0.34658; k * L2HI and the first difference
// are exact), e^r by a degree-10 polynomial (a Chebyshev fit, relative error
// 2^-51.4 with these double coefficients), evaluated in Estrin's scheme (a
// short dependency chain, so consecutive elements overlap) with a few ulps of
// rounding, times 2^k: within 2^-50 of e^x. k_exp's double is within 1.03 ulp
// (2^-51.9) of e^x (kmath_test), so the two doubles differ by less than 2^-49
// of either. Rounding to float is monotone: if d(1 - 2^-46) and d(1 + 2^-46)
// round to the same float, so does every double between them, k_exp's among
// them, and that float is r32(k_exp(x)) exactly. Otherwise `in_doubt` is set
// and the generated code recomputes its loop with k_exp
// (Emitter::with_fast_math): 186 of the 2^32 floats lie that close to a
// rounding boundary, and NaN inputs always take that path. Beyond |x| = 110
// every result is +0 or +inf in f32 (e^-110 < 2^-158, e^110 > 2^158), so x is
// clamped there first. Checked on all 2^32 floats once (no mismatch), and by
// cpu_exp32_test on a stride through them.
inline float exp32(float x, unsigned& in_doubt) {
    double d = x;
    d = d < -110.0 ? -110.0 : d;
    d = d > 110.0 ? 110.0 : d;
    const double k = (d * 0x1.71547652b82fep+0 + 0x1.8p52) - 0x1.8p52;  // nearest integer to d / ln2
    const double r = (d - k * kiln_rt::kd::L2HI) - k * kiln_rt::kd::L2LO;
    const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const double c01 = 0x1.0000000000000p+0 + r * 0x1.000000000001ep+0, c23 = 0x1.0000000000005p-1 + r * 0x1.555555554b751p-3;
    const double c45 = 0x1.55555555520adp-5 + r * 0x1.1111112dd74dbp-7, c67 = 0x1.6c16c17f44310p-10 + r * 0x1.a01978c422e23p-13;
    const double c89 = 0x1.a019a668bb4f4p-16 + r * 0x1.72faf2d7d210dp-19, c10 = 0x1.28a2c273b03b8p-22;
    const double p = (c01 + r2 * c23) + r4 * (c45 + r2 * c67) + r8 * (c89 + r2 * c10);
    // 2^k from k's bits: k + 1.5 * 2^52 holds k in its low bits (|k| <= 159).
    const unsigned long long kb = __builtin_bit_cast(unsigned long long, k + 0x1.8p52);
    const double y = p * __builtin_bit_cast(double, (kb + 1023) << 52);
    const float lo = (float)(y * (1.0 - 0x1p-46)), hi = (float)(y * (1.0 + 0x1p-46));
    in_doubt |= (unsigned)(lo != hi);  // also when NaN
    return lo;
}

// ---- exp of f32 values in precision standard, where the contract lets a
// target use its own math within 2 ulp of the correctly rounded result
// (docs/semantics.md): a branch-free float evaluation that GCC vectorises.
// x is clamped to [-104, 89] (e^-104 < 2^-150 rounds to +0, e^89 > FLT_MAX to
// +inf; +-inf land there too); n = nearest integer to x / ln2 (the 1.5 * 2^23
// trick, |n| <= 150); r = (x - n L2HI) - n L2LO with L2HI = 0x1.62e4p-1 (14
// significant bits, so n L2HI is exact and so is the first difference,
// Sterbenz), |r| <= 0.3466; e^r = 1 + (r + r^2 q(r)) with q the Taylor terms
// 1/2! .. 1/7! (truncation error < 2^-27 relative); then times 2^n in two
// steps, 2^(n>>1) (exact) and 2^(n - (n>>1)), so that results near FLT_MAX
// and subnormal results are rounded once, correctly from p. NaN gives the
// canonical NaN. Two evaluations of these steps: with separate + - * (the build
// has -ffp-contract=off), max error over all 2^32 floats against the correctly
// rounded e^x 1.023 ulp; with fused multiply-adds (the reduction's second step
// and Horner's scheme), 1.059 ulp, 0.40% of results not correctly rounded
// against 0.8%, and 7-10% less time in a softmax (bench/results/cpu-20261204.md).
// exp32_fast takes the second where the machine has FMA (-march=native: x86-64
// since Haswell, AArch64). cpu_exp32_fast_test checks both, <= 2 ulp on a stride.
template <bool fused> inline float exp32_fast_steps(float x) {
    auto mul_add = [](float a, float b, float c) {
        if constexpr (fused) return __builtin_fmaf(a, b, c);
        else return a * b + c;
    };
    // Written as max(x, -104) and min(., 89) select them (one instruction each):
    // a NaN becomes -104 here and the canonical NaN at the end.
    float c = x > -104.0f ? x : -104.0f;
    c = c < 89.0f ? c : 89.0f;
    const float big = 0x1.8p23f;
    const float t = mul_add(c, 0x1.715476p+0f, big);  // n in the low bits of t
    const float n = t - big;
    const float r = mul_add(-n, 0x1.7f7d1cp-20f, mul_add(-n, 0x1.62e4p-1f, c));  // the inner one exact
    float q = mul_add(r, 0x1.a01a02p-13f, 0x1.6c16c2p-10f);
    q = mul_add(r, q, 0x1.111112p-7f);
    q = mul_add(r, q, 0x1.555556p-5f);
    q = mul_add(r, q, 0x1.555556p-3f);
    q = mul_add(r, q, 0x1p-1f);
    const float p = 1.0f + mul_add(r * r, q, r);
    const int ni = (int)(__builtin_bit_cast(unsigned, t) - 0x4b400000u);
    const int n1 = ni >> 1, n2 = ni - n1;
    const float s1 = __builtin_bit_cast(float, (unsigned)(n1 + 127) << 23);
    const float s2 = __builtin_bit_cast(float, (unsigned)(n2 + 127) << 23);
    const float y = (p * s1) * s2;
    return x != x ? __builtin_bit_cast(float, 0x7fc00000u) : y;
}
inline float exp32_fast_separate(float x) { return exp32_fast_steps<false>(x); }
inline float exp32_fast_fused(float x) { return exp32_fast_steps<true>(x); }

inline float exp32_fast(float x) {
#if defined(__FMA__) || defined(__aarch64__)
    return exp32_fast_fused(x);
#else
    return exp32_fast_separate(x);  // __builtin_fmaf would be a library call
#endif
}

// ---- the f32 mma micro-kernel (Emitter::emit_mma): for i < R, j < 16 V and
// c = 0, 1, ..., K - 1 in that order, out[i][j] = out[i][j] + a[i][c] * b[c][j],
// each step rounded twice like the interpreter's (product, then sum: the build's
// -ffp-contract=off keeps vector arithmetic unfused too), and a NaN result made
// canonical as round_f32 makes it (c32). The R x 16V outputs stay in vector
// registers for the whole contraction instead of going through memory once per
// contraction point. Offsets are in elements; b's rows and the outputs' are
// contiguous.
// The vector type is the machine's: with AVX-512 16 floats, else 8 (a 64-byte
// vector on an AVX2 machine made GCC 12 build every broadcast of a[i][c] through
// the stack: the micro-kernel ran at 4 GFLOP/s on a Zen 2, 2026-12-02). A block
// of 16 columns is mma_parts vectors.
typedef float f32x16 __attribute__((vector_size(64)));
#ifndef KILN_MMA_ROWS_AVX2
#define KILN_MMA_ROWS_AVX2 3
#endif
#ifndef KILN_MMA_ROWS_AVX512
#define KILN_MMA_ROWS_AVX512 8
#endif
#if defined(__AVX512F__)
typedef float f32xv __attribute__((vector_size(64)));
enum { mma_rows = KILN_MMA_ROWS_AVX512 };  // 8 x 2 accumulators + 2 of b: 18 of 32 registers
#else
typedef float f32xv __attribute__((vector_size(32)));
enum { mma_rows = KILN_MMA_ROWS_AVX2 };
#endif
enum { mma_lanes = (int)(sizeof(f32xv) / sizeof(float)), mma_parts = 16 / mma_lanes };
// Not inlined, and its loops over the block fully unrolled: only then does GCC
// keep acc in registers (inlined into a large kiln_run at -O2 it kept acc on the
// stack, 5x slower). Two instances of one body: mma_block rounds each product and
// each sum (the contract's order, exact precision); mma_block_fused lets the
// compiler fuse a product with its sum (FMA), which precision standard allows
// for mma as tensor cores and the cuda target (--fmad=true) do. The generated
// code is compiled with -ffp-contract=off, so the permission is per function;
// clang ignores GCC's optimize attribute and computes the unfused form.
#if defined(__clang__) || !defined(__GNUC__)
#define KILN_FP_CONTRACT_FAST
#else
#define KILN_FP_CONTRACT_FAST __attribute__((optimize("fp-contract=fast")))
#endif
#define KILN_MMA_BLOCK(NAME, ATTRIBUTES)                                                                                      \
    template <int R, int V>                                                                                                  \
    __attribute__((noinline)) ATTRIBUTES void NAME(const float* a, int a_row, int a_con, const float* b, int b_con, float* out, \
                                                   int o_row, int K) {                                                       \
        if constexpr (R > mma_rows) {                                                                                        \
            NAME<mma_rows, V>(a, a_row, a_con, b, b_con, out, o_row, K);                                                     \
            NAME<R - mma_rows, V>(a + mma_rows * a_row, a_row, a_con, b, b_con, out + mma_rows * o_row, o_row, K);           \
        } else {                                                                                                             \
            f32xv acc[R][V * mma_parts];                                                                                      \
            _Pragma("GCC unroll 16") for (int i = 0; i < R; ++i)                                                             \
                _Pragma("GCC unroll 8") for (int v = 0; v < V * mma_parts; ++v)                                              \
                    __builtin_memcpy(&acc[i][v], out + i * o_row + mma_lanes * v, sizeof(f32xv));                           \
            for (int c = 0; c < K; ++c) {                                                                                    \
                f32xv bv[V * mma_parts];                                                                                     \
                _Pragma("GCC unroll 8") for (int v = 0; v < V * mma_parts; ++v)                                              \
                    __builtin_memcpy(&bv[v], b + c * b_con + mma_lanes * v, sizeof(f32xv));                                  \
                _Pragma("GCC unroll 16") for (int i = 0; i < R; ++i) {                                                       \
                    const float s = a[i * a_row + c * a_con];                                                                \
                    _Pragma("GCC unroll 8") for (int v = 0; v < V * mma_parts; ++v) acc[i][v] = acc[i][v] + s * bv[v];       \
                }                                                                                                            \
            }                                                                                                                \
            const f32xv canonical_nan = f32xv{} + __builtin_bit_cast(float, 0x7fc00000u);                                    \
            _Pragma("GCC unroll 16") for (int i = 0; i < R; ++i)                                                             \
                _Pragma("GCC unroll 8") for (int v = 0; v < V * mma_parts; ++v) {                                            \
                const f32xv x = acc[i][v] == acc[i][v] ? acc[i][v] : canonical_nan;                                          \
                __builtin_memcpy(out + i * o_row + mma_lanes * v, &x, sizeof(f32xv));                                       \
            }                                                                                                                \
        }                                                                                                                    \
    }
KILN_MMA_BLOCK(mma_block, )
KILN_MMA_BLOCK(mma_block_fused, KILN_FP_CONTRACT_FAST)
#undef KILN_MMA_BLOCK

// ---- bounds. An access covers the box [o, o + n) of its view; the part inside
// the view is again a box, so a partial access is a fill plus a smaller copy.
inline bool inside(int rank, const long long* o, const int* n, const long long* extent) {
    for (int k = 0; k < rank; ++k)
        if (o[k] < 0 || o[k] > extent[k] - n[k]) return false;
    return true;
}

// ---- streaming stores. A store to a view larger than the last-level cache
// (EmitOptions::stream_stores) computes each row into `src`, 64-byte aligned
// storage, then writes it here around the caches: an ordinary store first reads
// the line it writes into the cache (a third stream of traffic beside the load and
// the write-back) and evicts lines the kernel still reads. The head up to a 64-byte
// boundary and the tail are plain stores. The launch's threads fence their stores
// when their chunk returns (cpu_target.cpp). Measured by hand on the 2-core Zen 4,
// y = x + v[c] over 4096^2 f32 on one thread: 1.7-3.1x a plain -O3 loop's time.
#if defined(__x86_64__)
typedef long long stream_v2di __attribute__((vector_size(16)));
typedef long long stream_v4di __attribute__((vector_size(32)));
typedef long long stream_v8di __attribute__((vector_size(64)));
#endif
// How many of a row's n elements at p come before p's next 64-byte line boundary
// (0 where p is on one, or where p is not aligned to its elements): the streamed
// chunks start there (Emitter::emit_streamed_rows).
template <class M> inline int elements_before_line(const M* p, int n) {
    const unsigned gap = (unsigned)(-(unsigned long long)p & 63u);
    const int k = gap % sizeof(M) == 0 ? (int)(gap / sizeof(M)) : 0;
    return k < n ? k : n;
}
template <class M> inline void stream_store(M* dst, const M* src, long long n) {
    char* d = (char*)dst;
    const char* s = (const char*)src;
    long long bytes = n * (long long)sizeof(M);
#if defined(__x86_64__)
    long long head = (long long)(-(unsigned long long)d & 63u);
    if (head > bytes) head = bytes;
    __builtin_memcpy(d, s, (unsigned long)head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) {
#if defined(__clang__)
        stream_v8di v;
        __builtin_memcpy(&v, s, 64);
        __builtin_nontemporal_store(v, (stream_v8di*)d);
#elif defined(__AVX512F__)
        stream_v8di v;
        __builtin_memcpy(&v, s, 64);
        __builtin_ia32_movntdq512((stream_v8di*)d, v);
#elif defined(__AVX__)
        stream_v4di v[2];
        __builtin_memcpy(v, s, 64);
        __builtin_ia32_movntdq256((stream_v4di*)d, v[0]);
        __builtin_ia32_movntdq256((stream_v4di*)(d + 32), v[1]);
#else
        stream_v2di v[4];
        __builtin_memcpy(v, s, 64);
        for (int k = 0; k < 4; ++k) __builtin_ia32_movntdq((stream_v2di*)(d + 16 * k), v[k]);
#endif
    }
#endif
    __builtin_memcpy(d, s, (unsigned long)bytes);
}

// ---- the next instance's windows, prefetched while this one computes
// (Emitter::emit_instance_prefetch). A row kernel's instance first reads its row
// (a reduction with little arithmetic an element) and ends writing one: on one
// core those passes wait on memory, the hardware prefetcher reaching only a few
// lines ahead. The emitter adds, at each instance's start, the boxes that the
// next instance of this thread will load and store (where their origins depend
// only on the grid's indices), each a PrefetchLines of its own (scalars, which
// the compiler keeps in registers: a struct of windows with a loop over them
// made the kernel 1.6x slower even where it was never called); its elementwise
// loops then run in chunks, each chunk first issuing a few lines of every window
// (for writing, where the next instance stores). Measured on a 2-core AMD EPYC (AVX-512), f32 softmax
// 4096^2: 6.8 -> 5.3 ms on two threads (2026-12-04).
struct PrefetchLines {
    const char* row;  // the first line of the current row
    long long offset, row_bytes, stride, rows;  // the next line's offset in it; rows left, this one included
};
enum { prefetch_lines_per_step = 16 };
// The box [o, o + n) of a view of `bytes`-byte elements as rows of whole lines,
// when it lies inside the view and is one contiguous run or rows of one (at most
// one dim with more than one element outside the run); else none.
inline __attribute__((always_inline)) PrefetchLines prefetch_window(const View& v, int rank, const long long* o, const int* n, int bytes) {
    if (!inside(rank, o, n, v.extent)) return {nullptr, 0, 0, 0, 0};
    long long at = 0, run = 1, rows = 1, stride = 0;  // run: the elements contiguous from a row's start
    bool in_run = true;
    for (int k = rank - 1; k >= 0; --k) {
        at += o[k] * v.stride[k];
        if (n[k] == 1) continue;
        if (in_run && v.stride[k] == run) {
            run *= n[k];
        } else if (rows == 1) {
            in_run = false, rows = n[k], stride = v.stride[k] * bytes;
        } else {
            return {nullptr, 0, 0, 0, 0};
        }
    }
    const unsigned long long start = (unsigned long long)v.data + (unsigned long long)(at * bytes);
    const unsigned long long first = start & ~63ull, end = start + (unsigned long long)run * bytes;
    return {(const char*)first, 0, (long long)(end - first), stride, rows};
}
// The next `lines` lines of a window (for writing: `write`), into L1 (locality 3) or,
// for windows too large to sit there beside the lines in use, L2 (2), those taking
// more lines a step so as to be issued early in the iteration (emit_prefetch.cpp).
template <bool write, int locality = 3, int lines = prefetch_lines_per_step>
inline __attribute__((always_inline)) void prefetch_step(PrefetchLines& w) {
    for (int i = 0; i < lines && w.rows > 0; ++i) {
        __builtin_prefetch(w.row + w.offset, write, locality);
        w.offset += 64;
        if (w.offset >= w.row_bytes) w.offset = 0, w.row += w.stride, --w.rows;
    }
}

// Whether the bytes two views reach, from their first element to their last,
// are disjoint (a tile read in place while another view is written: emit_load).
// Strides are never negative (launches refuse them).
inline bool disjoint(const View& a, int rank_a, int bytes_a, const View& b, int rank_b, int bytes_b) {
    unsigned long long span_a = (unsigned long long)bytes_a, span_b = (unsigned long long)bytes_b;
    for (int k = 0; k < rank_a; ++k) {
        if (a.extent[k] <= 0) return true;
        span_a += (unsigned long long)((a.extent[k] - 1) * a.stride[k]) * (unsigned long long)bytes_a;
    }
    for (int k = 0; k < rank_b; ++k) {
        if (b.extent[k] <= 0) return true;
        span_b += (unsigned long long)((b.extent[k] - 1) * b.stride[k]) * (unsigned long long)bytes_b;
    }
    const unsigned long long pa = (unsigned long long)a.data, pb = (unsigned long long)b.data;
    return pa + span_a <= pb || pb + span_b <= pa;
}

// The in-range index window [lo, hi) of one dimension; false when empty. Written
// with comparisons only, so no origin (any i64) can overflow.
inline bool window(long long o, int n, long long extent, int& lo, int& hi) {
    if (o >= extent || o <= -(long long)n) return false;
    lo = o < 0 ? (int)-o : 0;
    hi = o > extent - n ? (int)(extent - o) : n;
    return lo < hi;
}

// Walks the in-range elements of a partial access in row-major order, calling
// f(tile element, view offset). Offsets are 64-bit here: this path is rare.
template <class F>
inline void for_each_inside(int rank, const long long* o, const int* n, const long long* extent, const long long* stride, F f) {
    int lo[max_rank], hi[max_rank], idx[max_rank];
    for (int k = 0; k < rank; ++k)
        if (!window(o[k], n[k], extent[k], lo[k], hi[k])) return;
    for (int k = 0; k < rank; ++k) idx[k] = lo[k];
    for (;;) {
        long long e = 0, off = 0;
        for (int k = 0; k < rank; ++k) {
            e = e * n[k] + idx[k];
            off += (o[k] + idx[k]) * stride[k];
        }
        f(e, off);
        int k = rank - 1;
        while (k >= 0 && ++idx[k] == hi[k]) idx[k] = lo[k], --k;
        if (k < 0) return;
    }
}

// A kind's view elements as they are stored (an f16/bf16 tile read in place
// keeps its copy in the view's 16 bits: emit_load).
template <class K> struct Raw {
    typedef typename K::mem val;
    typedef typename K::mem mem;
    static val load(mem m) { return m; }
};

// bounds::zero: out-of-range elements read as `fill`, writes to them are dropped.
template <class K>
inline void load_window(typename K::val* dst, long long count, const void* data, int rank, const long long* o, const int* n,
                        const long long* extent, const long long* stride, typename K::val fill) {
    for (long long e = 0; e < count; ++e) dst[e] = fill;
    const typename K::mem* src = (const typename K::mem*)data;
    for_each_inside(rank, o, n, extent, stride, [&](long long e, long long off) { dst[e] = K::load(src[off]); });
}
template <class K>
inline void store_window(void* data, const typename K::val* src, int rank, const long long* o, const int* n,
                         const long long* extent, const long long* stride) {
    typename K::mem* dst = (typename K::mem*)data;
    for_each_inside(rank, o, n, extent, stride, [&](long long e, long long off) { dst[off] = K::store(src[e]); });
}

// bounds::check / bounds::assume: reports the first element, in row-major order,
// outside the view, as the interpreter does (it stops at that element).
inline int out_of_range(Status* st, int access, int phase, long long pid, int rank, const long long* o, const int* n,
                        const long long* extent) {
    int idx[max_rank];
    for (int k = 0; k < rank; ++k) idx[k] = 0;
    for (;;) {
        bool in = true;
        for (int k = 0; k < rank; ++k)
            if (o[k] + idx[k] < 0 || o[k] + idx[k] >= extent[k]) in = false;
        if (!in) break;
        int k = rank - 1;
        while (k >= 0 && ++idx[k] == n[k]) idx[k] = 0, --k;
        if (k < 0) break;  // unreachable: the access was known to leave the view
    }
    st->access = access;
    st->phase = phase;
    st->pid = pid;
    for (int k = 0; k < rank; ++k) st->coord[k] = o[k] + idx[k];
    return 1;
}

}  // namespace kiln_cpu

#endif  // KILN_CPU_PRELUDE_H
