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
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

#include "fuzz/differential.h"
#include "fuzz/program.h"
#include "fuzz/recipe.h"
#include "targets/cuda/emit.h"
#include "targets/cuda/launch_args.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
    return h;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: digests exact|standard < SEEDS\n";
        return 2;
    }
    const Precision precision = std::string(argv[1]) == "exact" ? Precision::exact : Precision::standard;
    for (std::string line; std::getline(std::cin, line);) {
        if (line.empty()) continue;
        const auto dots = line.find("..");
        const std::uint64_t a = std::stoull(line.substr(0, dots)), b = dots == std::string::npos ? a : std::stoull(line.substr(dots + 2));
        for (std::uint64_t seed = a; seed <= b; ++seed) {
            fuzz::Limits limits;
            limits.device = true;  // as `kiln fuzz --targets interp,cuda` generates them
            const fuzz::Recipe recipe = fuzz::make_recipe(seed, limits);
            Kernel k = fuzz::build_kernel(recipe);
            fuzz::Launch l = fuzz::make_launch(recipe);
            try {
                auto program = detail::specialize(*k.shared_impl(), l.args, Loc::here());
                CompileOptions c{.precision = precision};
                if (recipe.wide_index) c.index_width = IndexWidth::wide;
                char hex[17];
                std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(cu::emit_kernel(*program, cu::emit_options(l.args, c)).source)));
                std::cout << seed << " " << hex << "\n";
            } catch (const Error&) {
                std::cout << seed << " refused\n";
            }
        }
    }
}
