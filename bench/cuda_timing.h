// Timing on the GPU for the CUDA benchmarks: a CUDA runtime call checked (a failed
// one ends the benchmark), and the median of a function's times by CUDA events
// after warm-up runs.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(2); } } while (0)

// The events go on `stream` (default: the legacy default stream), the one f enqueues on.
template <class F> double median_ms(F&& f, int warmup, int reps, cudaStream_t stream = nullptr) {
    for (int i = 0; i < warmup; ++i) f();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<double> t;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < reps; ++i) {
        cudaEventRecord(a, stream);
        f();
        cudaEventRecord(b, stream);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
