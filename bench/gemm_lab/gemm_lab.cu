// Standalone harness for kiln's Hopper GEMM main loop (src/targets/cuda/emit_gemm_sm90.cuh):
// checks it against an f64 reference and cuBLAS on random data and times both with
// CUDA events (warm-up, median of 20). Build on an H200:
//   python3 gen_wgmma.py && nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I../../src/targets/cuda \
//       -o gemm_lab gemm_lab.cu -lcuda -lcublas
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// The one piece of kiln's device prelude (prelude.cpp) the main loop uses.
namespace kc {
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" : : : "memory");
}
}  // namespace kc

#include "emit_gemm_sm90.cuh"
#include "wgmma_ops.cuh"

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

template <int N, bool BF> struct Mma;
#define KG_MMA(N)                                                                                                       \
    template <> struct Mma<N, true> {                                                                                   \
        static __device__ __forceinline__ void run(float (&d)[N / 2], unsigned long long a, unsigned long long b) { kg::wgmma_bf16_n##N(d, a, b); } \
    };                                                                                                                  \
    template <> struct Mma<N, false> {                                                                                  \
        static __device__ __forceinline__ void run(float (&d)[N / 2], unsigned long long a, unsigned long long b) { kg::wgmma_f16_n##N(d, a, b); } \
    };
KG_MMA(128)
KG_MMA(256)

__device__ __forceinline__ unsigned short to16(float x, bool bf) {
    unsigned short h;
    if (bf) asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
    else asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
}

template <int BM, int BN, int BK, int ST, bool BF>
__global__ void __launch_bounds__(kg::GemmShape<BM, BN, BK, ST>::threads, 1)
    gemm(const __grid_constant__ kg::TensorMap ta, const __grid_constant__ kg::TensorMap tb, unsigned short* C, long long M, long long N,
         long long ldc, long long tiles_n, long long tiles, int k_tiles) {
    extern __shared__ unsigned char smem[];
    // One body for every tile (it checks its own bounds): no tile counts as inside.
    auto body = [&](long long r, long long c, const int&, float v0, float v1) {
        if (r >= M) return;
        unsigned short* p = C + r * ldc + c;
        if (c + 1 < N) *reinterpret_cast<unsigned*>(p) = to16(v0, BF) | (unsigned)to16(v1, BF) << 16;
        else if (c < N) p[0] = to16(v0, BF);
    };
    auto columns = [](long long) { return 0; };
    auto epi = kg::make_epilogue(columns, body, columns, body, [](long long, long long) { return false; });
    kg::gemm_sm90<BM, BN, BK, ST, false, false, false, 1, 0, Mma<BN, BF>>(&ta, &tb, tiles_n, tiles, k_tiles, kg::SplitK{1, nullptr, nullptr, M}, smem, epi, kg::NoBatch{});
}

static void tmap(CUtensorMap* m, bool bf, void* base, long long inner, long long outer, long long ld, int box_outer) {
    cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer};
    cuuint64_t strides[1] = {(cuuint64_t)ld * 2};
    cuuint32_t box[2] = {64, (cuuint32_t)box_outer}, es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(m, bf ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, box, es,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::printf("cuTensorMapEncodeTiled failed: %d\n", (int)r);
        std::exit(1);
    }
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F> static float time_ms(F f) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3; ++i) f();
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < 20; ++i) {
        CK(cudaEventRecord(a));
        f();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    return median(t);
}

static double host16(unsigned short h, bool bf) {
    if (bf) {
        unsigned u = (unsigned)h << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    __half_raw r;
    r.x = h;
    return (double)__half2float(__half(r));
}

template <int BM, int BN, int BK, int ST, bool BF>
static void run(const char* name, long long M, long long N, long long K, bool persistent, unsigned seed, bool time_it) {
    using S = kg::GemmShape<BM, BN, BK, ST>;
    std::vector<unsigned short> ha(M * K), hb(K * N);
    unsigned x = seed * 2654435761u + 1;
    auto rnd = [&] {
        x = x * 1664525u + 1013904223u;
        return (float)((x >> 8) & 0xFFFF) / 32768.0f - 1.0f;
    };
    for (auto& v : ha) v = BF ? __bfloat16_as_ushort(__float2bfloat16(rnd())) : __half_as_ushort(__float2half(rnd()));
    for (auto& v : hb) v = BF ? __bfloat16_as_ushort(__float2bfloat16(rnd())) : __half_as_ushort(__float2half(rnd()));
    unsigned short *A, *B, *C, *R;
    CK(cudaMalloc(&A, M * K * 2));
    CK(cudaMalloc(&B, K * N * 2));
    CK(cudaMalloc(&C, M * N * 2));
    CK(cudaMalloc(&R, M * N * 2));
    CK(cudaMemcpy(A, ha.data(), M * K * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hb.data(), K * N * 2, cudaMemcpyHostToDevice));
    CK(cudaMemset(C, 0xFF, M * N * 2));  // poison: NaN in both formats
    CUtensorMap ta, tb;
    tmap(&ta, BF, A, K, M, K, BM);
    tmap(&tb, BF, B, N, K, N, BK);
    auto k = gemm<BM, BN, BK, ST, BF>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, S::shared_bytes));
    long long tiles_n = (N + BN - 1) / BN, tiles = (M + BM - 1) / BM * tiles_n;
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int grid = (int)(persistent ? std::min<long long>(tiles, sms) : tiles);
    int k_tiles = (int)((K + BK - 1) / BK);
    auto launch = [&] {
        k<<<grid, S::threads, S::shared_bytes>>>(*(kg::TensorMap*)&ta, *(kg::TensorMap*)&tb, C, M, N, N, tiles_n, tiles, k_tiles);
    };
    launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cublasHandle_t h;
    cublasCreate(&h);
    float one = 1, zero = 0;
    cudaDataType t = BF ? CUDA_R_16BF : CUDA_R_16F;
    auto cublas = [&] {
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, B, t, (int)N, A, t, (int)K, &zero, R, t, (int)N,
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    cublas();
    CK(cudaDeviceSynchronize());
    std::vector<unsigned short> hc(M * N), hr(M * N);
    CK(cudaMemcpy(hc.data(), C, M * N * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hr.data(), R, M * N * 2, cudaMemcpyDeviceToHost));
    // f64 reference on a sample of elements (every element is checked against cuBLAS).
    double num = 0, den = 0, num_cb = 0, den_cb = 0;
    long long bad = 0;
    for (long long i = 0; i < M * N; ++i) {
        double g = host16(hc[i], BF), w = host16(hr[i], BF);
        if (!std::isfinite(g)) ++bad;
        num_cb += (g - w) * (g - w);
        den_cb += w * w;
    }
    unsigned y = seed + 7;
    for (int s = 0; s < 4096; ++s) {
        y = y * 1664525u + 1013904223u;
        long long i = (long long)(y % (unsigned)M), j = (long long)((y / 7u) % (unsigned)N);
        double ref = 0;
        for (long long kk = 0; kk < K; ++kk) ref += host16(ha[i * K + kk], BF) * host16(hb[kk * N + j], BF);
        double g = host16(hc[i * N + j], BF);
        num += (g - ref) * (g - ref);
        den += ref * ref;
    }
    double rel = std::sqrt(num / den), rel_cb = std::sqrt(num_cb / den_cb);
    float ms = 0, ms_cb = 0;
    if (time_it) {
        ms = time_ms(launch);
        ms_cb = time_ms(cublas);
    }
    double fl = 2.0 * M * N * K;
    std::printf("%-28s %5lldx%5lldx%5lld %s  relL2(f64)=%.2e relL2(cublas)=%.2e nonfinite=%lld", name, M, N, K, persistent ? "pers" : "grid",
                rel, rel_cb, bad);
    if (time_it) std::printf("  kiln %.1f TFLOP/s (%.3f ms)  cublas %.1f TFLOP/s  ratio %.2f", fl / ms / 1e9, ms, fl / ms_cb / 1e9, ms_cb / ms);
    std::printf("  %s\n", (rel < 1e-2 && bad == 0) ? "OK" : "FAIL");
    cublasDestroy(h);
    cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(R);
}

int main(int argc, char** argv) {
    bool quick = argc > 1;  // correctness only
    run<128, 256, 64, 4, true>("bf16 128x256x64 s4", 1000, 1000, 520, true, 1, false);
    run<128, 256, 64, 4, true>("bf16 128x256x64 s4", 256, 512, 128, false, 2, false);
    run<128, 128, 64, 6, false>("f16 128x128x64 s6", 1000, 1000, 520, true, 3, false);
    if (quick) return 0;
    run<128, 256, 64, 4, true>("bf16 128x256x64 s4", 4096, 4096, 4096, true, 4, true);
    run<128, 256, 64, 4, true>("bf16 128x256x64 s4", 4096, 4096, 4096, false, 5, true);
    run<128, 128, 64, 6, true>("bf16 128x128x64 s6", 4096, 4096, 4096, true, 6, true);
    run<128, 256, 64, 4, true>("bf16 128x256x64 s4", 8192, 8192, 8192, true, 7, true);
    return 0;
}
