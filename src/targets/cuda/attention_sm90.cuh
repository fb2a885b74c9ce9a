// Device helpers of kiln's Hopper FlashAttention kernel (emit_attention.cpp writes
// the kernel itself from the program). Pasted after emit_gemm_sm90.cuh, whose
// mbarrier, descriptor and wgmma helpers it uses. No standard headers: NVRTC
// compiles it; the host compiler sees nothing (the #if below).
#pragma once
#if defined(__CUDACC__)

namespace kg {

// ---- TMA: a box at coordinates c (innermost first) of a rank-R tensor map into
// shared memory; the bytes complete a transaction on `bar`. Out-of-bounds
// elements are zero-filled, dimension by dimension.
__device__ __forceinline__ void tma_load(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1) {
    tma_load_2d(dst, map, bar, c0, c1);
}
__device__ __forceinline__ void tma_load(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1, int c2) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(
                     smem_u32(dst)),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1, int c2, int c3) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];" ::"r"(
                     smem_u32(dst)),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}
__device__ __forceinline__ void tma_load(void* dst, const TensorMap* map, unsigned long long* bar, int c0, int c1, int c2, int c3, int c4) {
    asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(
            smem_u32(dst)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
        : "memory");
}

// Two floats as the packed pair of a register A operand (lo in the low half),
// rounded to nearest. The probabilities are already exact in the kind (the
// program casts them), so this changes no value.
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
__device__ __forceinline__ unsigned pack_f16(float lo, float hi) {
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

// Orders this thread's generic-proxy accesses of shared memory before later
// async-proxy ones (a TMA copy refilling memory the thread read or wrote).
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// Keeps the compiler from moving accesses of a register A operand across a wait
// (and from reusing its register while an issued wgmma may still read it).
__device__ __forceinline__ void fence_operand(unsigned& r) { asm volatile("" : "+r"(r)::"memory"); }

// FlashAttention-3's ping-pong of the two consumer warpgroups: they take turns to
// issue their products (named barriers 1 and 2 of 256 threads: the 128 of the
// warpgroup waiting for its turn and the 128 of the one passing it), so that one's
// softmax runs while the other's products occupy the tensor cores. Consumer 0
// starts with the turn; each issue point waits for the turn and passes it on, and
// both run the same issue points (the CTA's block count), so neither waits forever.
// The last pass leaves one arrival on a barrier, harmless at exit.
__device__ __forceinline__ void turn_first(int wgc) {
    if (wgc == 0) asm volatile("bar.arrive 1, 256;" ::: "memory");
}
__device__ __forceinline__ void turn_wait(int wgc) { asm volatile("bar.sync %0, 256;" ::"r"(1 + wgc) : "memory"); }
__device__ __forceinline__ void turn_pass(int wgc) { asm volatile("bar.arrive %0, 256;" ::"r"(2 - wgc) : "memory"); }

// A row's value over the four lanes that share it in a wgmma accumulator.
__device__ __forceinline__ float quad_max(float x) {
    x = kc::max_nan(x, __shfl_xor_sync(0xffffffffu, x, 1));
    return kc::max_nan(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

}  // namespace kg

#endif  // __CUDACC__
