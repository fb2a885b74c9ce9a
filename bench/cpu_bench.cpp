// CPU benchmark (issue 4), one run on this machine, peers in the same run:
//   - f32 GEMM 1024^3: kiln cpu target vs OpenBLAS cblas_sgemm
//   - row softmax and RMSNorm 4096x4096 f32: kiln cpu vs memcpy bandwidth
//   - the cpu target vs the interpreter (same kernel)
//   - cold compile (empty cache); warm cache hit in a fresh process (populated
//     cache: what a user's program meets) and in-process; the per-launch overhead
//     of a trivial kernel over calling its compiled function directly
// Correctness is checked before timing; times are medians of repeated runs on fresh
// random inputs. Prints a table and writes JSON (argv[1], default bench-cpu.json);
// `kiln_cpu_bench out.json --cache` runs only the cache and launch rows.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cblas.h>
#include <unistd.h>

#include <kiln/kiln.h>

#include "bench_common.h"
#include "cache/disk_cache.h"
#include "targets/cpu/module_cache.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using namespace kiln_bench;

namespace {

double rel_l2(const std::vector<float>& got, const std::vector<double>& want) {
    double n = 0, d = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(got[i])) return INFINITY;
        n += (got[i] - want[i]) * (got[i] - want[i]);
        d += want[i] * want[i];
    }
    return std::sqrt(n / d);
}

Kernel gemm(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("bench_gemm", [=](View<const f32, 2> A, View<const f32, 2> B, View<f32, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm)), gn = axis("block_n", ceil_div(B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt)))
                acc = mma(A[coord(m0, step.index() * bk), shape(m, k)], B[coord(step.index() * bk, n0), shape(k, n)], acc);
            C(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
}

Kernel softmax_rows_kernel() {
    return kernel("bench_softmax", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = x[o, shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(o, shape(r, c)).store(e / reduce(e, c, add));
        }
    });
}

Kernel rmsnorm_kernel() {
    return kernel("bench_rmsnorm", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        const float inv_n = 1.0f / static_cast<float>(x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = x[o, shape(r, c)];
            y(o, shape(r, c)).store(v * rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f));
        }
    });
}

Kernel tiny() {
    return kernel("bench_tiny", [](View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("one", 1)))) y(coord(nest.index()), shape(1)).store(full<f32>(shape(1), 2.0f));
    });
}

// The first launch in a fresh process of this program (argv0 --probe-cache), in
// ms: the user's view of a warm cache hit, tracing included. Median of `runs`.
std::vector<double> fresh_process_launches(const std::string& argv0, int runs) {
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        FILE* p = ::popen((argv0 + " x --probe-cache").c_str(), "r");
        double v = -1;
        if (p && std::fscanf(p, "%lf", &v) == 1) ms.push_back(v);
        if (p) ::pclose(p);
    }
    return ms;
}

// Cold compile, warm cache hits and the launch overhead, on a one-instance
// kernel, with a private cache directory.
std::vector<Row> cache_rows(const std::string& argv0) {
    std::vector<Row> rows;
    std::string dir = "/tmp/kiln-cpu-bench-cache-" + std::to_string(::getpid());
    ::setenv("KILN_CACHE_DIR", dir.c_str(), 1);
    Tensor<f32> y({1});
    auto t0 = Clock::now();
    tiny().launch(cpu(), y.view());
    double cold = std::chrono::duration<double>(Clock::now() - t0).count() * 1e3;
    char check[96];
    std::snprintf(check, sizeof check, "y = %.1f (want 2.0)", y[0]);
    rows.push_back({"first launch, empty cache (trace+emit+compile+load)", cold, 0, "ms", "", check});

    const int runs = 21;
    std::vector<double> fresh = fresh_process_launches(argv0, runs);
    std::snprintf(check, sizeof check, "median of %zu processes, min %.3f ms", fresh.size(),
                  fresh.empty() ? -1.0 : *std::min_element(fresh.begin(), fresh.end()));
    rows.push_back({"warm cache hit, fresh process (first launch)", median(fresh), 1.0, "ms", "issue #4 bar", check});

    double new_object = median_s([&] { tiny().launch(cpu(), y.view()); }, 1, 50) * 1e3;
    rows.push_back({"warm cache hit, in process, new kernel object", new_object, 0, "ms", "", "traces the lambda again"});

    // The same kernel object launched again, against its compiled function called
    // as the launcher calls it for a one-instance grid.
    auto k = tiny();
    k.launch(cpu(), y.view());
    const int n = 20000;
    double launch_us = median_s([&] { for (int i = 0; i < n; ++i) k.launch(cpu(), y.view()); }, 1, 7) / n * 1e6;
    std::vector<detail::Arg> args{detail::to_arg(y.view())};
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    std::string plan = cpu().impl().plan(*program, args, {});
    auto at = plan.find("cache key: ");
    const cache::DiskCache disk = cache::DiskCache::open();
    const native::Module* m = at == std::string::npos ? nullptr : native::find_module(&disk, plan.substr(at + 11, 64));
    double direct_us = -1;
    if (m) {
        kiln_cpu::Arg abi[1] = {};
        abi[0].view.data = y.data();
        abi[0].view.extent[0] = 1;
        abi[0].view.stride[0] = 1;
        direct_us = median_s([&] {
            for (int i = 0; i < n; ++i) {
                long long ext[kiln_cpu::max_rank];
                kiln_cpu::Status st;
                if (m->grid(abi, ext, &st) < 0 || m->run(abi, 0, 1, 1, &st) != 0) std::abort();
            }
        }, 1, 7) / n * 1e6;
    }
    std::snprintf(check, sizeof check, "overhead %.2f us per launch", launch_us - direct_us);
    rows.push_back({"launch, trivial kernel, same kernel object", launch_us, direct_us, "us", "its compiled function called directly", check});

    std::string rm = "rm -rf " + dir;
    if (std::system(rm.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", dir.c_str());
    return rows;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 2 && std::string(argv[2]) == "--probe-cache") {
        Tensor<f32> y({1});
        auto t0 = Clock::now();
        tiny().launch(cpu(), y.view());
        std::printf("%.6f\n", std::chrono::duration<double>(Clock::now() - t0).count() * 1e3);
        return 0;
    }
    std::string json = argc > 1 ? argv[1] : "bench-cpu.json";
    if (!cpu().available()) {
        std::fprintf(stderr, "cpu target unavailable: %s\n", cpu().unavailable_reason().c_str());
        return 2;
    }
    if (argc > 2 && std::string(argv[2]) == "--cache") {
        print_rows(cache_rows(argv[0]), json);
        return 0;
    }
    std::vector<Row> rows;

    // memcpy bandwidth (bytes read + written) over 4096x4096 f32, the row kernels' ceiling.
    const std::int64_t R = 4096, C = 4096;
    std::vector<float> a(static_cast<std::size_t>(R * C), 1.0f), b(a.size());
    double copy_s = median_s([&] { std::memcpy(b.data(), a.data(), a.size() * 4); }, 2, 10);
    double copy_gbs = 2.0 * a.size() * 4 / copy_s / 1e9;

    // f32 GEMM 1024^3.
    {
        const int N = 1024;
        auto A = random_tensor({N, N}, 1), B = random_tensor({N, N}, 2);
        Tensor<f32> Ck({N, N}), Cb({N, N});
        double best = 1e9;
        std::string best_cfg, check;
        for (auto [bm, bn, bk] : {std::array<int, 3>{32, 32, 32}, {64, 64, 32}, {32, 128, 64}}) {
            auto k = gemm(bm, bn, bk);
            k.launch(cpu(), std::as_const(A).view(), std::as_const(B).view(), Ck.view());
            double s = median_s([&] { k.launch(cpu(), std::as_const(A).view(), std::as_const(B).view(), Ck.view()); }, 1, 5);
            if (s < best) best = s, best_cfg = std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk);
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, A.data(), N, B.data(), N, 0.0f, Cb.data(), N);
        std::vector<double> ref(Cb.values().begin(), Cb.values().end());
        char buf[96];
        std::snprintf(buf, sizeof buf, "rel L2 vs OpenBLAS %.1e, best tiles %s", rel_l2(Ck.values(), ref), best_cfg.c_str());
        double blas = median_s([&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, A.data(), N, B.data(), N, 0.0f, Cb.data(), N);
        }, 1, 5);
        double flops = 2.0 * N * N * N;
        rows.push_back({"f32 GEMM 1024^3", flops / best / 1e9, flops / blas / 1e9, "GFLOP/s", "OpenBLAS sgemm", buf});
    }

    // Row softmax and RMSNorm 4096x4096 f32, and the interpreter on the same kernel.
    for (int which = 0; which < 2; ++which) {
        auto x = random_tensor({R, C}, 3 + which, -4, 4);
        Tensor<f32> y({R, C});
        auto k = which == 0 ? softmax_rows_kernel() : rmsnorm_kernel();
        k.launch(cpu(), std::as_const(x).view(), y.view());
        std::vector<double> want;
        std::vector<float> got;
        for (std::int64_t r = 0; r < R; r += 64) {
            double m = -INFINITY, s = 0, ss = 0;
            for (std::int64_t c = 0; c < C; ++c) m = std::max(m, double(x[r * C + c]));
            for (std::int64_t c = 0; c < C; ++c) s += std::exp(double(x[r * C + c]) - m), ss += double(x[r * C + c]) * x[r * C + c];
            for (std::int64_t c = 0; c < C; ++c) {
                double v = x[r * C + c];
                want.push_back(which == 0 ? std::exp(v - m) / s : v / std::sqrt(ss / C + 1e-6));
                got.push_back(y[r * C + c]);
            }
        }
        char buf[64];
        std::snprintf(buf, sizeof buf, "rel L2 vs f64 %.1e", rel_l2(got, want));
        double s = median_s([&] { k.launch(cpu(), std::as_const(x).view(), y.view()); }, 1, 7);
        double gbs = 2.0 * R * C * 4 / s / 1e9;
        rows.push_back({which == 0 ? "softmax 4096x4096 f32" : "RMSNorm 4096x4096 f32", gbs, copy_gbs, "GB/s", "memcpy", buf});
        if (which == 0) {
            // The interpreter on a 256-row slice (it is a reference, not a fast path).
            auto xs = view(x.data(), {256, C});
            auto ys = view(y.data(), {256, C});
            double si = median_s([&] { k.launch(interp({.checked = false}), xs, ys); }, 0, 1);
            double sc = median_s([&] { k.launch(cpu(), xs, ys); }, 1, 5);
            rows.push_back({"softmax 256x4096: cpu vs interpreter", sc * 1e3, si * 1e3, "ms", "interp (unchecked)", "-"});
        }
    }

    for (Row& r : cache_rows(argv[0])) rows.push_back(std::move(r));
    print_rows(rows, json);
}
