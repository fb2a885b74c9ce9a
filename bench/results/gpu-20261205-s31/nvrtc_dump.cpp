#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
int main(int argc, char** argv) {
    std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string src = ss.str();
    std::vector<const char*> opts = {"--gpu-architecture=sm_90a", "--std=c++17", "--fmad=true", "--prec-div=true", "--prec-sqrt=true", "--ftz=false", "--generate-line-info", "--diag-suppress=550", "--ptxas-options=-v"};
    for (int i = 2; i < argc; ++i) opts.push_back(argv[i]);
    for (int rep = 0; rep < 2; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    nvrtcProgram p; nvrtcCreateProgram(&p, src.c_str(), "k.cu", 0, nullptr, nullptr);
    nvrtcResult r = nvrtcCompileProgram(p, (int)opts.size(), opts.data());
    auto t1 = std::chrono::steady_clock::now();
    size_t n; nvrtcGetProgramLogSize(p, &n); std::string log(n, 0); nvrtcGetProgramLog(p, log.data());
    size_t cb = 0; nvrtcGetCUBINSize(p, &cb);
    std::printf("rc %d  %.3f s  cubin %zu\n", (int)r, std::chrono::duration<double>(t1 - t0).count(), cb);
    if (rep == 1) { std::string cub(cb, 0); nvrtcGetCUBIN(p, cub.data()); std::ofstream(std::string(argv[1]) + ".cubin", std::ios::binary) << cub; }
    nvrtcDestroyProgram(&p);
    }
}
