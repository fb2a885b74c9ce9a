// The C++ that lets the cuda emitter's source compile as host code: CUDA's
// qualifiers and builtins, the collectives routed to the fiber scheduler
// (cta_fibers.h), and the prelude's device helpers (`namespace kc`) without inline
// PTX. Test support: the emulated source is the emitted source with the prelude's
// helpers replaced by these; everything else is compiled as emitted.
#pragma once

namespace kiln::emulated {

inline constexpr const char* kEmulationHeader = R"EMU(
// ---- kiln CUDA emulation (tests/emulated): CUDA builtins in host C++
#include <cmath>
#include <cstring>
#include <math.h>
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __shared__
#define __restrict__ __restrict
namespace kiln_emu {
struct Dim3 { unsigned x = 0, y = 0, z = 0; };
struct Api {
    void (*barrier)(int id, int count);
    void (*warp_sync)(unsigned mask);
    unsigned long long (*shuffle)(unsigned mask, unsigned long long value, int src_lane);
    void (*trap)(const char* what);
};
inline Api* api = nullptr;
}
kiln_emu::Dim3 threadIdx, blockIdx, gridDim, blockDim;
__attribute__((aligned(16))) unsigned char kiln_smem[1 << 18];
extern "C" __attribute__((visibility("default"))) void kiln_emu_bind(kiln_emu::Api* a, kiln_emu::Dim3** thread, kiln_emu::Dim3** block, kiln_emu::Dim3** grid,
                              kiln_emu::Dim3** dim, unsigned char** smem) {
    kiln_emu::api = a;
    *thread = &threadIdx;
    *block = &blockIdx;
    *grid = &gridDim;
    *dim = &blockDim;
    *smem = kiln_smem;
}
inline void __syncthreads() { kiln_emu::api->barrier(0, 0); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { kiln_emu::api->warp_sync(mask); }
template <class T> inline T kiln_emu_shuffle(unsigned mask, T v, int src) {
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    bits = kiln_emu::api->shuffle(mask, bits, src);
    T r;
    std::memcpy(&r, &bits, sizeof r);
    return r;
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
    int lane = (int)(threadIdx.x % 32u);
    int src = (lane & ~(width - 1)) | ((lane ^ lane_mask) & (width - 1));
    return kiln_emu_shuffle(mask, v, src);
}
template <class T> inline T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32) {
    int lane = (int)(threadIdx.x % 32u);
    return kiln_emu_shuffle(mask, v, (lane & ~(width - 1)) | (src_lane & (width - 1)));
}
template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    int lane = (int)(threadIdx.x % 32u), base = lane & ~(width - 1);
    int src = lane + (int)delta < base + width ? lane + (int)delta : lane;
    return kiln_emu_shuffle(mask, v, src);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    int lane = (int)(threadIdx.x % 32u), base = lane & ~(width - 1);
    int src = lane - (int)delta >= base ? lane - (int)delta : lane;
    return kiln_emu_shuffle(mask, v, src);
}
// A vote as 32 shuffles: every lane of the mask reads every other's predicate.
inline int __any_sync(unsigned mask, int predicate) {
    int any = 0;
    for (int l = 0; l < 32; ++l)
        if ((mask >> l) & 1u) any |= kiln_emu_shuffle(mask, predicate != 0 ? 1 : 0, l);
    return any;
}
inline int __all_sync(unsigned mask, int predicate) {
    int all = 1;
    for (int l = 0; l < 32; ++l)
        if ((mask >> l) & 1u) all &= kiln_emu_shuffle(mask, predicate != 0 ? 1 : 0, l);
    return all;
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
    return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift & 31u));
}
inline void __trap() { kiln_emu::api->trap("__trap()"); }
inline unsigned __float_as_uint(float x) { unsigned u; std::memcpy(&u, &x, 4); return u; }
inline int __float_as_int(float x) { int u; std::memcpy(&u, &x, 4); return u; }
inline float __uint_as_float(unsigned u) { float x; std::memcpy(&x, &u, 4); return x; }
inline float __int_as_float(int u) { float x; std::memcpy(&x, &u, 4); return x; }
inline long long __double_as_longlong(double x) { long long u; std::memcpy(&u, &x, 8); return u; }
inline double __longlong_as_double(long long u) { double x; std::memcpy(&x, &u, 8); return x; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __double2float_rn(double x) { return (float)x; }
inline float __ll2float_rn(long long x) { return (float)x; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned x, y; };
)EMU";

// Replaces the prelude's `namespace kc { ... }` (prelude.cpp): the same helpers in
// plain C++ (the prelude's own plain C++ part is carried over: cuda_emulator.cpp) (bit-level conversions through kround.h, which the source pastes
// before them), tensor-core instructions as traps.
inline constexpr const char* kEmulatedHelpers = R"EMU(
namespace kc {
__device__ __forceinline__ float h2f(unsigned short h) { return (float)kiln_rt::f16_bits_to_double(h); }
__device__ __forceinline__ unsigned short f2h(float x) { return x != x ? (unsigned short)0x7e00 : kiln_rt::f16_bits_from_double((double)x); }
__device__ __forceinline__ float b2f(unsigned short b) { return __uint_as_float((unsigned)b << 16); }
__device__ __forceinline__ unsigned short f2b(float x) { return x != x ? (unsigned short)0x7fc0 : kiln_rt::bf16_bits_from_double((double)x); }
__device__ __forceinline__ unsigned f2h2(float lo, float hi) { return (unsigned)f2h(lo) | (unsigned)f2h(hi) << 16; }
__device__ __forceinline__ unsigned f2b2(float lo, float hi) { return (unsigned)f2b(lo) | (unsigned)f2b(hi) << 16; }
// The 16-bit-minimum canonicalisation (prelude.cpp) is an instruction choice: the same bits.
__device__ __forceinline__ unsigned f2h2_min(float lo, float hi) { return f2h2(lo, hi); }
__device__ __forceinline__ unsigned f2b2_min(float lo, float hi) { return f2b2(lo, hi); }
__device__ __forceinline__ float r16(float x) { return h2f(f2h(x)); }
__device__ __forceinline__ float rb16(float x) { return b2f(f2b(x)); }
// div.full.f32 (prelude.cpp, precision fast): on the host the correctly rounded quotient, within its 2 ulp.
__device__ __forceinline__ float fdiv_full(float a, float b) { return a / b; }
// The special function unit's reciprocal (prelude.cpp, the first step of kc::fdiv):
// on the host the correctly rounded one, another approximation kc::fdiv's steps correct.
__device__ __forceinline__ float rcp_approx(float b) { return 1.0f / b; }
// A fact for NVVM (prelude.cpp): nothing to do on the host.
__device__ __forceinline__ void assume(bool) {}
// prelude.cpp's "ptxas and -0.0" helpers: on the host, plain C++ of the same values.
__device__ __forceinline__ float bool_to_float(bool b) { return b ? 1.0f : 0.0f; }
__device__ __forceinline__ double int_to_double(long long v) { return (double)v; }
__device__ __forceinline__ double float_to_double(float x) { return (double)x; }
__device__ __forceinline__ float select_opaque(bool c, float a, float b) { return c ? a : b; }
__device__ __forceinline__ float fneg(float x) { return -x; }
// prelude.cpp's "ptxas and |x| against a constant <= 0": the same bits.
__device__ __forceinline__ float fabs_bits(float x) { return __uint_as_float(__float_as_uint(x) & 0x7fffffffu); }
// prelude.cpp's "ptxas and negated int32 operands" helpers: the same values.
__device__ __forceinline__ int smin32(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int smax32(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ int neg32(int x) { return (int)(0u - (unsigned)x); }
// prelude.cpp's "NVVM and the i32 sign bit" helpers: the same values.
__device__ __forceinline__ int flip_sign32(int x) { return (int)((unsigned)x ^ 0x80000000u); }
__device__ __forceinline__ int add32_opaque(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int sub32_opaque(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ float d2f32(double x) { return __double2float_rn(x); }
__device__ __forceinline__ float d2f16(double x) { return x != x ? h2f(0x7fff) : h2f(kiln_rt::f16_bits_from_double(x)); }
__device__ __forceinline__ float d2bf16(double x) { return (float)kiln_rt::round_bf16(x); }
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
__device__ __forceinline__ float max_nan(float a, float b) {
    if (a != a || b != b) return __uint_as_float(0x7fffffffu);
    if (a == b) return (__float_as_uint(a) >> 31) ? b : a;
    return a > b ? a : b;
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
__device__ __forceinline__ void bar_sync(int id, int count) { kiln_emu::api->barrier(id, count); }
__device__ __forceinline__ uint4 window16(const unsigned (&w)[8], unsigned s) {
    const unsigned j = s >> 2, shift = (s & 3u) * 8u;
    unsigned v[5];
    for (int i = 0; i < 5; ++i) v[i] = w[i + j];
    return uint4{__funnelshift_r(v[0], v[1], shift), __funnelshift_r(v[1], v[2], shift), __funnelshift_r(v[2], v[3], shift),
                 __funnelshift_r(v[3], v[4], shift)};
}
__device__ __forceinline__ uint2 window8(const unsigned (&w)[4], unsigned s) {
    const unsigned j = s >> 2, shift = (s & 3u) * 8u;
    return uint2{__funnelshift_r(w[j], w[j + 1], shift), __funnelshift_r(w[j + 1], w[j + 2], shift)};
}
template <class T> __device__ __forceinline__ T imax(T a, T b) { return a > b ? a : b; }
template <class T> __device__ __forceinline__ T imin(T a, T b) { return a < b ? a : b; }
__device__ __forceinline__ int w8(long long x) { return (int)kiln_rt::wrap_i8(x); }
__device__ __forceinline__ int add32(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int sub32(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
__device__ __forceinline__ int mul32(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ long long add64(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
__device__ __forceinline__ long long sub64(long long a, long long b) { return (long long)((unsigned long long)a - (unsigned long long)b); }
__device__ __forceinline__ long long mul64(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }
__device__ __forceinline__ bool less_nan_last(double a, double b) { return (a == a && b != b) || a < b; }
__device__ __forceinline__ void mma_f16(float (&)[4], const unsigned (&)[4], const unsigned (&)[2]) { kiln_emu::api->trap("tensor cores are not emulated"); }
__device__ __forceinline__ void mma_bf16(float (&)[4], const unsigned (&)[4], const unsigned (&)[2]) { kiln_emu::api->trap("tensor cores are not emulated"); }
__device__ __forceinline__ void mma_tf32(float (&)[4], const unsigned (&)[4], const unsigned (&)[2]) { kiln_emu::api->trap("tensor cores are not emulated"); }
__device__ __forceinline__ void mma_s8(int (&)[4], const unsigned (&)[4], const unsigned (&)[2]) { kiln_emu::api->trap("tensor cores are not emulated"); }
__device__ __forceinline__ unsigned tf32(float x) { kiln_emu::api->trap("tensor cores are not emulated"); return __float_as_uint(x); }
}  // namespace kc
)EMU";

}  // namespace kiln::emulated
