// GCC 12.2 wrong-code reproduction (kiln fuzz program 81640822, session 30): the headers kiln
// pastes into every cpu kernel, then the kernel's instance body reduced by hand to f() below.
// From the repository root:
//   g++ -std=c++20 -O2 -fno-math-errno -fno-trapping-math -w -I. -Iinclude bench/results/fuzz-cpu-20261205-s30/gcc_vrp_repro.cpp && ./a.out 0   -> 1 1 (wrong: x = 0 gives 2)
//   the same with -fno-tree-vrp, -fno-ssa-phiopt or -O1, or clang++ -O2                    -> 2 2
#define KILN_HD inline
#include "kiln/detail/kround.h"
#include "kiln/detail/kmath.h"
#include "src/targets/cpu/cpu_abi.h"
#include "src/targets/cpu/cpu_prelude.h"
#include <cstdio>
#include <cstdlib>
__attribute__((noinline)) void f(const signed char* in, signed char* out, unsigned short* hout, long long n) {
    for (long long pid = 0; pid < n; ++pid) {
        const signed char x = in[pid];
        const unsigned char v40 = (unsigned char)(x != 0);
        const signed char v41 = (v40 ? x : (signed char)-1);
        const unsigned char v42 = (unsigned char)((signed char)69 < v41);
        const double v43 = (double)x;
        const double v45 = kiln_rt::k_pow(v43, v43);
        const double v46 = v45 + v45;
        const unsigned char v47 = (unsigned char)(v43 != 0);
        const double v48 = (v47 ? v45 : v46);
        const long long a = (long long)kiln_rt::f64_to_int_sat(v48, 64);
        hout[pid] = kiln_cpu::K_f16::store(kiln_cpu::r16((double)v42));
        out[pid] = (signed char)a;
    }
}
int main(int argc, char** argv) {
    signed char in[2] = {(signed char)atoi(argc > 1 ? argv[1] : "0"), 0}, out[2];
    unsigned short h[2];
    f(in, out, h, 2);
    printf("%d %d (want 2 for a zero)\n", out[0], out[1]);
}
