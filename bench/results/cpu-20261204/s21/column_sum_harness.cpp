#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
#include "/work/main/src/targets/cpu/cpu_abi.h"
int main(int argc, char** argv) {
    const long long R = 4096, C = 4096;
    std::vector<float> x(R * C), y(C), yp(C);
    std::mt19937 rng(1); std::uniform_real_distribution<float> u(-4, 4);
    for (auto& v : x) v = u(rng);
    std::vector<kiln_cpu::RunFn> fns;
    for (int i = 1; i < argc; ++i) { void* h = dlopen(argv[i], RTLD_NOW); if (!h) { std::printf("%s\n", dlerror()); return 1; } fns.push_back((kiln_cpu::RunFn)dlsym(h, "kiln_run")); }
    kiln_cpu::Arg args[2] = {};
    args[0].view.data = x.data(); args[0].view.extent[0] = R; args[0].view.extent[1] = C; args[0].view.stride[0] = C; args[0].view.stride[1] = 1;
    args[1].view.data = y.data(); args[1].view.extent[0] = C; args[1].view.stride[0] = 1;
    std::vector<std::vector<double>> t(fns.size() + 1);
    for (int rep = 0; rep < 41; ++rep)
        for (size_t f = 0; f <= fns.size(); ++f) {
            auto a = std::chrono::steady_clock::now();
            if (f == fns.size()) { for (long long c = 0; c < C; ++c) yp[c] = 0; for (long long r = 0; r < R; ++r) for (long long c = 0; c < C; ++c) yp[c] += x[r * C + c]; }
            else { kiln_cpu::Status st{}; fns[f](args, 0, 16, 16, &st); }
            t[f].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
        }
    for (auto& v : t) std::sort(v.begin(), v.end());
    const double plain = t.back()[20];
    for (size_t f = 0; f < fns.size(); ++f) std::printf("%-12s %6.2f ms  vs plain %.3f\n", argv[f + 1], t[f][20] * 1e3, plain / t[f][20]);
    std::printf("plain %.2f ms (%g)\n", plain * 1e3, yp[7]);
}
