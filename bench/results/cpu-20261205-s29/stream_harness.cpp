#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include <random>
#include <algorithm>
#include <cstdlib>
#include "/work/main/src/targets/cpu/cpu_abi.h"
int main(int argc, char** argv) {
    const long long R = 4096, C = 4096;
    int off = std::getenv("OFF") ? std::atoi(std::getenv("OFF")) : 0; float* x = (float*)aligned_alloc(64, R*C*4 + 64) + off; float* y = (float*)aligned_alloc(64, R*C*4 + 64) + off; float* v = (float*)aligned_alloc(64, C*4);
    std::mt19937 rng(1); std::uniform_real_distribution<float> u(-4, 4);
    for (long long i = 0; i < R*C; ++i) x[i] = u(rng), y[i] = 0; for (long long i = 0; i < C; ++i) v[i] = u(rng);
    std::vector<kiln_cpu::RunFn> fns;
    for (int i = 1; i < argc; ++i) { void* h = dlopen(argv[i], RTLD_NOW); if (!h) { std::printf("%s\n", dlerror()); return 1; } fns.push_back((kiln_cpu::RunFn)dlsym(h, "kiln_run")); }
    kiln_cpu::Arg args[3] = {};
    args[0].view.data = x; args[0].view.extent[0] = R; args[0].view.extent[1] = C; args[0].view.stride[0] = C; args[0].view.stride[1] = 1;
    args[1].view.data = v; args[1].view.extent[0] = C; args[1].view.stride[0] = 1;
    args[2].view.data = y; args[2].view.extent[0] = R; args[2].view.extent[1] = C; args[2].view.stride[0] = C; args[2].view.stride[1] = 1;
    int reps = 41;
    std::vector<std::vector<double>> t(fns.size());
    for (int rep = 0; rep < reps; ++rep)
        for (size_t f = 0; f < fns.size(); ++f) {
            auto a = std::chrono::steady_clock::now();
            kiln_cpu::Status st{}; fns[f](args, 0, R / 4, R / 4, &st);
            t[f].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
        }
    for (auto& q : t) std::sort(q.begin(), q.end());
    for (size_t f = 0; f < fns.size(); ++f) std::printf("%-10s %6.3f ms  %5.1f GB/s  vs first %.3f\n", argv[f + 1], t[f][reps/2] * 1e3, 2.0 * R * C * 4 / t[f][reps/2] / 1e9, t[0][reps/2] / t[f][reps/2]);
}
