// Device benchmark (issue 5): correctness first, then timing with warm-up and the
// median of many runs on fresh random inputs, peers in the same run:
//   - bf16 GEMM 4096^3: kiln vs cuBLAS (cublasGemmEx, f32 accumulation)
//   - softmax and RMSNorm bf16 32768x8192: kiln vs device copy bandwidth
//   - launch overhead: a kiln launch vs a bare cuLaunchKernel of an empty kernel
//   - NVRTC cold compile; warm cache hit in a fresh process (populated cache,
//     context created before the clock starts) and in-process
// Prints a table and writes JSON (argv[1], default bench-cuda.json);
// `kiln_cuda_bench out.json --cache` runs only the launch and cache rows.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <kiln/kiln.h>

#include "cuda_timing.h"

#include "rows_json.h"

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

#define CHECK_CU(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { std::fprintf(stderr, "%s failed: %d\n", #x, int(e)); std::exit(2); } } while (0)

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }


template <class T> Tensor<T> random_tensor(std::vector<std::int64_t> ext, unsigned seed, double lo = -1, double hi = 1) {
    Tensor<T> t(ext);
    std::mt19937 g(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : t.values()) x = T(d(g));
    return t;
}

double rel_l2(const std::vector<double>& got, const std::vector<double>& want) {
    double n = 0, d = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(got[i])) return INFINITY;
        n += (got[i] - want[i]) * (got[i] - want[i]);
        d += want[i] * want[i];
    }
    return std::sqrt(n / d);
}

Kernel gemm_bf16(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("bench_gemm_bf16", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm)), gn = axis("block_n", ceil_div(B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 2})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

Kernel softmax_bf16() {
    return kernel("bench_softmax_bf16", [](View<const bf16, 2> x, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = cast<f32>(x[o, shape(r, c)]);
            auto e = exp(v - reduce(v, c, maximum));
            y(o, shape(r, c)).store(cast<bf16>(e / reduce(e, c, add)));
        }
    });
}

Kernel rmsnorm_bf16() {
    return kernel("bench_rmsnorm_bf16", [](View<const bf16, 2> x, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        const float inv_n = 1.0f / static_cast<float>(x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = cast<f32>(x[o, shape(r, c)]);
            y(o, shape(r, c)).store(cast<bf16>(v * rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f)));
        }
    });
}

Kernel trivial() {
    return kernel("bench_trivial", [](View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("one", 1)))) y(coord(nest.index()), shape(1)).store(zeros<f32>(shape(1)));
    });
}

// The kernel of the warm-cache rows: launched by nothing else, so that its first
// launch in this process is the one that fills the bench's private cache
// directory (a process that has a kernel loaded does not look for it on disk).
Kernel probe_kernel() {
    return kernel("bench_probe", [](View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("one", 1)))) y(coord(nest.index()), shape(1)).store(full<f32>(shape(1), 4.0f));
    });
}
// A second kernel of the warm-cache rows, launched after probe_kernel in the same
// fresh process: its warm hit is what every kernel after a process's first pays
// (the first also pays for code and data the process touches for the first time:
// 0.44 ms against 0.13 ms on the 2-core machine against the stand-in driver).
Kernel second_probe_kernel() {
    return kernel("bench_probe_second", [](View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("one", 1)))) y(coord(nest.index()), shape(1)).store(full<f32>(shape(1), 5.0f));
    });
}

struct Row {
    std::string what;
    double kiln = 0, peer = 0;
    std::string unit, peer_name, check;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? -1 : v[v.size() / 2];
}

// Host time per launch + synchronisation of a trivial kernel, kiln against a bare
// cuLaunchKernel + cuCtxSynchronize of an empty kernel, in alternating batches.
Row launch_overhead_row() {
    Tensor<f32> y({1});
    auto yd = y.to(cuda());
    auto k = trivial();
    k.launch(cuda(), yd);
    const char* src = "extern \"C\" __global__ void noop(float* y) { if (!y) y[0] = 0; }";
    nvrtcProgram prog;
    nvrtcCreateProgram(&prog, src, "noop.cu", 0, nullptr, nullptr);
    const char* opts[] = {"--gpu-architecture=sm_90a"};
    nvrtcCompileProgram(prog, 1, opts);
    std::size_t size;
    nvrtcGetCUBINSize(prog, &size);
    std::vector<char> cubin(size);
    nvrtcGetCUBIN(prog, cubin.data());
    CUmodule mod;
    CUfunction fn;
    CHECK_CU(cuModuleLoadData(&mod, cubin.data()));
    CHECK_CU(cuModuleGetFunction(&fn, mod, "noop"));
    void* ptr = yd.data();
    void* params[] = {&ptr};
    const int n = 2000;
    std::vector<double> kiln_us, bare_us;
    for (int batch = 0; batch < 7; ++batch) {
        auto t0 = Clock::now();
        for (int i = 0; i < n; ++i) k.launch(cuda(), yd);
        kiln_us.push_back(seconds_since(t0) / n * 1e6);
        t0 = Clock::now();
        for (int i = 0; i < n; ++i) {
            CHECK_CU(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr));
            CHECK_CU(cuCtxSynchronize());
        }
        bare_us.push_back(seconds_since(t0) / n * 1e6);
    }
    char check[64];
    std::snprintf(check, sizeof check, "overhead %.2f us (bar: 5 us)", median(kiln_us) - median(bare_us));
    return {"launch + sync, trivial kernel", median(kiln_us), median(bare_us), "us", "cuLaunchKernel + sync", check};
}

// NVRTC cold compile (empty cache) and warm cache hits, in a private cache directory.
std::vector<Row> cache_rows(const std::string& argv0) {
    std::vector<Row> rows;
    std::string dir = "/tmp/kiln-bench-cache-" + std::to_string(::getpid());
    ::setenv("KILN_CACHE_DIR", dir.c_str(), 1);
    Tensor<f32> y({1});
    auto yd = y.to(cuda());
    auto k = kernel("bench_cold", [](View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("one", 1)))) y(coord(nest.index()), shape(1)).store(full<f32>(shape(1), 3.0f));
    });
    auto t0 = Clock::now();
    k.launch(cuda(), yd);
    double cold_ms = seconds_since(t0) * 1e3;
    rows.push_back({"first launch, empty cache (NVRTC compile)", cold_ms, 0, "ms", "", "-"});

    // Fill the cache for the children, each kernel checked.
    second_probe_kernel().launch(cuda(), yd);
    double got_second = yd.to(host())[0];
    probe_kernel().launch(cuda(), yd);
    double got = yd.to(host())[0];
    std::vector<double> fresh, fresh_second;
    for (int i = 0; i < 21; ++i) {
        FILE* p = ::popen((argv0 + " x --probe-cache").c_str(), "r");
        double ms = -1, second_ms = -1;
        if (p && std::fscanf(p, "%lf %lf", &ms, &second_ms) == 2) {
            fresh.push_back(ms);
            fresh_second.push_back(second_ms);
        }
        if (p) ::pclose(p);
    }
    auto least = [](const std::vector<double>& v) { return v.empty() ? -1.0 : *std::min_element(v.begin(), v.end()); };
    char check[96];
    std::snprintf(check, sizeof check, "median of %zu processes, min %.3f ms; y = %.1f (want 4.0)", fresh.size(), least(fresh), got);
    rows.push_back({"warm cache hit, fresh process (first launch)", median(fresh), 1.0, "ms", "issue #5 bar", check});
    std::snprintf(check, sizeof check, "median of %zu processes, min %.3f ms; y = %.1f (want 5.0)", fresh_second.size(), least(fresh_second),
                  got_second);
    rows.push_back({"warm cache hit, fresh process (a second kernel)", median(fresh_second), 0.2, "ms", "issue #11 bar", check});

    std::vector<double> in_process;
    for (int i = 0; i < 50; ++i) {
        t0 = Clock::now();
        probe_kernel().launch(cuda(), yd);
        in_process.push_back(seconds_since(t0) * 1e3);
    }
    rows.push_back({"warm cache hit, in process, new kernel object", median(in_process), 0, "ms", "", "traces the lambda again"});
    std::string rm = "rm -rf " + dir;
    if (std::system(rm.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir.c_str());
    return rows;
}

void print_rows(const std::vector<Row>& rows, const std::string& json) {
    std::printf("%-58s %14s %14s %8s  %s\n", "what", "kiln", "peer", "ratio", "check");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        double ratio = r.peer > 0 && r.kiln > 0 ? r.kiln / r.peer : 0;
        std::printf("%-58s %10.3f %-3s %10.3f %-3s %8.3f  %s (%s)\n", r.what.c_str(), r.kiln, r.unit.c_str(), r.peer, r.unit.c_str(), ratio,
                    r.check.c_str(), r.peer_name.c_str());
    }
    write_rows_json(rows, json, [](const Row& r) { return r.peer > 0 && r.kiln > 0 ? r.kiln / r.peer : 0; });
}

}  // namespace

int main(int argc, char** argv) {
    std::string json = argc > 1 ? argv[1] : "bench-cuda.json";
    if (argc > 2 && std::string(argv[2]) == "--probe-cache") {
        // Child: a fresh process whose cache is populated by the parent. The device
        // buffer's allocation creates the CUDA context before the clock starts:
        // a process pays for that once, whether or not kiln is in it.
        Tensor<f32> y({1});
        auto yd = y.to(cuda());
        auto t0 = Clock::now();
        probe_kernel().launch(cuda(), yd);
        double first_ms = seconds_since(t0) * 1e3;
        t0 = Clock::now();
        second_probe_kernel().launch(cuda(), yd);
        std::printf("%.6f %.6f\n", first_ms, seconds_since(t0) * 1e3);
        return 0;
    }
    std::vector<Row> rows;
    if (!cuda().available()) {
        std::fprintf(stderr, "no CUDA device: %s\n", cuda().unavailable_reason().c_str());
        return 2;
    }
    if (argc > 2 && std::string(argv[2]) == "--cache") {
        rows.push_back(launch_overhead_row());
        for (Row& r : cache_rows(argv[0])) rows.push_back(std::move(r));
        print_rows(rows, json);
        return 0;
    }

    // -- device copy bandwidth (bytes read + written), the ceiling for the row kernels.
    const std::size_t copy_bytes = std::size_t{2} << 30;
    void *src, *dst;
    CHECK_CUDA(cudaMalloc(&src, copy_bytes));
    CHECK_CUDA(cudaMalloc(&dst, copy_bytes));
    CHECK_CUDA(cudaMemset(src, 1, copy_bytes));
    double copy_ms = median_ms([&] { cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice); }, 3, 20);
    double copy_tbs = 2.0 * copy_bytes / (copy_ms * 1e-3) / 1e12;
    cudaFree(src);
    cudaFree(dst);
    rows.push_back({"device copy", 0, copy_tbs, "TB/s", "cudaMemcpy D2D", "-"});

    // -- bf16 GEMM 4096^3 vs cuBLAS.
    {
        const int N = 4096;
        auto A = random_tensor<bf16>({N, N}, 1), B = random_tensor<bf16>({N, N}, 2);
        const auto Ad = A.to(cuda()), Bd = B.to(cuda());
        Tensor<bf16> C({N, N});
        auto Cd = C.to(cuda()), Cref = C.to(cuda());
        // Tiles the Hopper lowering takes as they are (emit_gemm.h): two consumer
        // warpgroups of wgmma m64n256k16, k steps of one 128-byte swizzle row.
        auto k = gemm_bf16(128, 256, 64);
        auto t0 = Clock::now();
        k.launch(cuda(), Ad, Bd, Cd);
        double first = seconds_since(t0);
        cublasHandle_t h;
        cublasCreate(&h);
        float one = 1, zero = 0;
        // Row-major C = A B is column-major C^T = B^T A^T.
        auto cublas = [&] {
            cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, Bd.data(), CUDA_R_16BF, N, Ad.data(), CUDA_R_16BF, N, &zero,
                         Cref.data(), CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        };
        cublas();
        CHECK_CUDA(cudaDeviceSynchronize());
        auto got = Cd.to(host()), want = Cref.to(host());
        std::vector<double> g, w;
        for (std::int64_t i = 0; i < N * N; i += 97) g.push_back(got[i].to_double()), w.push_back(want[i].to_double());
        double err = rel_l2(g, w);
        double kiln_ms = median_ms([&] { k.launch(cuda(), Ad, Bd, Cd); }, 2, 10);
        double peer_ms = median_ms(cublas, 3, 20);
        double flops = 2.0 * N * N * N;
        char check[96];
        std::snprintf(check, sizeof check, "rel L2 vs cuBLAS %.2e; first call %.0f ms", err, first * 1e3);
        rows.push_back({"bf16 GEMM 4096^3", flops / kiln_ms / 1e9, flops / peer_ms / 1e9, "TFLOP/s", "cuBLAS", check});
        cublasDestroy(h);
    }

    // -- softmax and RMSNorm bf16 32768x8192 vs copy bandwidth.
    for (int which = 0; which < 2; ++which) {
        const std::int64_t R = 32768, C = 8192;
        auto x = random_tensor<bf16>({R, C}, 3 + which, -4, 4);
        const auto xd = x.to(cuda());
        Tensor<bf16> y({R, C});
        auto yd = y.to(cuda());
        auto k = which == 0 ? softmax_bf16() : rmsnorm_bf16();
        k.launch(cuda(), xd, yd);
        auto out = yd.to(host());
        // Check 64 rows against f64 on the bf16 inputs.
        std::vector<double> g, w;
        for (std::int64_t r = 0; r < R; r += R / 64) {
            double m = -INFINITY, s = 0, ss = 0;
            for (std::int64_t c = 0; c < C; ++c) m = std::max(m, x[r * C + c].to_double());
            for (std::int64_t c = 0; c < C; ++c) s += std::exp(x[r * C + c].to_double() - m), ss += x[r * C + c].to_double() * x[r * C + c].to_double();
            for (std::int64_t c = 0; c < C; ++c) {
                double v = x[r * C + c].to_double();
                w.push_back(which == 0 ? std::exp(v - m) / s : v / std::sqrt(ss / C + 1e-6));
                g.push_back(out[r * C + c].to_double());
            }
        }
        double err = rel_l2(g, w);
        double ms = median_ms([&] { k.launch(cuda(), xd, yd); }, 2, 20);
        double tbs = 2.0 * R * C * 2 / (ms * 1e-3) / 1e12;
        char check[64];
        std::snprintf(check, sizeof check, "rel L2 vs f64 %.2e", err);
        rows.push_back({which == 0 ? "softmax bf16 32768x8192" : "RMSNorm bf16 32768x8192", tbs, copy_tbs, "TB/s", "device copy", check});
    }

    rows.push_back(launch_overhead_row());
    for (Row& r : cache_rows(argv[0])) rows.push_back(std::move(r));
    print_rows(rows, json);
    return 0;
}
