// Session 43, not part of the suite: which of issue 15's counted fuzzed programs take
// the Hopper GEMM or attention kernel as their first choice (emitted offline under the
// options their launches get, as ../../gpu-20261207-s42/scope/digests.cpp does). A
// change confined to those kernels (emit_gemm*, emit_attention*, their .cuh files)
// leaves every other counted program's kernel as it was; session 43 found none of the
// 203,686 counted programs there (1 min 52 s on the 2-core machine).
//
// Build as digests.cpp, from the repository root:
//   g++ -std=c++20 -O1 -I include -I . -I src -I lib -I third_party/dlpack/include -I build/generated \
//     -I bench/results/gpu-20261207-s42/scope bench/results/gpu-20261207-s43/scope/specialised.cpp \
//     build/fuzz/libkiln_fuzz.a build/libkiln.a -lcrypto -ldl -o /tmp/specialised
// Run: xzcat bench/results/gpu-20261207-s42/scope/counted-exact.txt.xz | /tmp/specialised exact
// (seeds or a..b ranges on stdin); prints "seed gemm" or "seed attention" for each
// program that takes one, and the count of programs read on stderr.
#include <iostream>
#include <string>

#include "fuzzed_program.h"

using namespace kiln;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: specialised exact|standard < SEEDS\n";
        return 2;
    }
    const Precision precision = std::string(argv[1]) == "exact" ? Precision::exact : Precision::standard;
    std::int64_t read = 0;
    for (std::string line; std::getline(std::cin, line);) {
        if (line.empty()) continue;
        const auto [a, b] = scope::seed_range(line);
        for (std::uint64_t seed = a; seed <= b; ++seed, ++read) {
            try {
                const scope::FuzzedProgram f = scope::fuzzed_program(seed, precision);
                const cu::EmittedKernel k = cu::emit_kernel(*f.program, scope::emit_options(f));
                if (!k.gemm.entry.empty()) std::cout << seed << " gemm\n";
                if (!k.attention.entry.empty()) std::cout << seed << " attention\n";
            } catch (const Error&) {
                // (cuda refuses it: no kernel of either kind)
            }
        }
    }
    std::cerr << read << " programs read\n";
}
