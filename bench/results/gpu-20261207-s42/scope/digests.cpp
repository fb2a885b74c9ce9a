// Session 42, not part of the suite: a digest of each fuzzed program's first-choice
// cuda kernel (its whole source, prelude included, emitted offline under the options
// its launch gets; no ptxas), for scoping issue 15's counts across the next emitter
// change: list the counted programs' digests with a build of the code they were run
// on and with the changed build, and keep the programs whose digests agree (the same
// source compiles to the same kernel under the same NVRTC, ladder steps included).
// A change to the prelude changes every digest (conservative: unused helpers did not
// change the SASS in session 40).
//
// Build as scope.cpp (g++ ... digests.cpp build/fuzz/libkiln_fuzz.a build/libkiln.a ...).
// Run: xzcat scope/counted-exact.txt.xz | /tmp/digests exact > DIGESTS (SEEDS on stdin,
// one seed or a..b range a line: the programs issue 15's counts stand on, as
// scope.cpp's SCOPE_LIST wrote them); prints "seed digest" lines ("seed refused" where
// cuda refuses the program, which the campaign compared as a refusal). Then
// `join` the two builds' lists: the lines that agree are the programs still counted.
#include <iostream>
#include <string>

#include "cache/sha256.h"
#include "fuzzed_program.h"

using namespace kiln;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: digests exact|standard < SEEDS\n";
        return 2;
    }
    const Precision precision = std::string(argv[1]) == "exact" ? Precision::exact : Precision::standard;
    for (std::string line; std::getline(std::cin, line);) {
        if (line.empty()) continue;
        const auto [a, b] = scope::seed_range(line);
        for (std::uint64_t seed = a; seed <= b; ++seed) {
            try {
                const scope::FuzzedProgram f = scope::fuzzed_program(seed, precision);
                // 64 bits of the source's SHA-256: a chance collision among 10^5 programs is about 10^-9.
                std::cout << seed << " " << cache::sha256_hex(cu::emit_kernel(*f.program, scope::emit_options(f)).source).substr(0, 16) << "\n";
            } catch (const Error&) {
                std::cout << seed << " refused\n";
            }
        }
    }
}
