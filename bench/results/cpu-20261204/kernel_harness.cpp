// Alternates dumped kiln cpu kernels (x[4096x4096] f32 -> y) and a copy; medians.
#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include <random>
#include <algorithm>
#include <thread>
#include <cstdlib>
#include "/work/main/src/targets/cpu/cpu_abi.h"
int main(int argc, char** argv) {
    const long long R = 4096, C = 4096;
    std::vector<float> x(R * C), y(R * C), z(R * C);
    std::mt19937 rng(1); std::uniform_real_distribution<float> u(-4, 4);
    for (auto& v : x) v = u(rng);
    int T = std::getenv("T") ? std::atoi(std::getenv("T")) : 1;
    std::vector<kiln_cpu::RunFn> fns;
    for (int i = 1; i < argc; ++i) { void* h = dlopen(argv[i], RTLD_NOW); if (!h) { std::printf("%s\n", dlerror()); return 1; } fns.push_back((kiln_cpu::RunFn)dlsym(h, "kiln_run")); }
    kiln_cpu::Arg args[2] = {};
    args[0].view.data = x.data(); args[0].view.extent[0] = R; args[0].view.extent[1] = C; args[0].view.stride[0] = C; args[0].view.stride[1] = 1;
    args[1].view.data = y.data(); args[1].view.extent[0] = R; args[1].view.extent[1] = C; args[1].view.stride[0] = C; args[1].view.stride[1] = 1;
    std::vector<std::vector<double>> t(fns.size() + 1);
    std::vector<float> ref;
    for (int rep = 0; rep < 31; ++rep) {
        for (size_t f = 0; f <= fns.size(); ++f) {
            auto a = std::chrono::steady_clock::now();
            if (f == fns.size()) std::memcpy(z.data(), x.data(), x.size() * 4);
            else if (T == 1) { kiln_cpu::Status st{}; fns[f](args, 0, R, R, &st); }
            else { std::vector<std::thread> th; for (int k = 0; k < T; ++k) th.emplace_back([&, k] { kiln_cpu::Status s2{}; fns[f](args, R * k / T, R * (k + 1) / T, R, &s2); }); for (auto& q : th) q.join(); }
            t[f].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
            if (rep == 0 && f < fns.size()) {
                if (f == 0) ref = y;
                else { double e = 0; for (size_t i = 0; i < y.size(); ++i) e = std::max(e, (double)std::abs(y[i] - ref[i]) / std::max(1e-30f, std::abs(ref[i]))); if (e > 1e-6) std::printf("%s differs from %s: max rel %g\n", argv[f + 1], argv[1], e); }
            }
        }
    }
    for (auto& v : t) std::sort(v.begin(), v.end());
    const double copy = t.back()[15];
    for (size_t f = 0; f < fns.size(); ++f) std::printf("%-10s %6.2f ms  %5.1f GB/s  vs memcpy %.3f\n", argv[f + 1], t[f][15] * 1e3, 2.0 * R * C * 4 / t[f][15] / 1e9, copy / t[f][15]);
    std::printf("memcpy     %6.2f ms  %5.1f GB/s (T=%d)\n", copy * 1e3, 2.0 * R * C * 4 / copy / 1e9, T);
}
