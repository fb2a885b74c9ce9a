#!/bin/bash
# kc::fdiv and its wide path (src/targets/cuda/prelude.cpp) compiled on the host from the
# prelude's own text, the reciprocal the host's correctly rounded 1/b, against the host's
# a / b on N random pairs per thread (two threads): random bit patterns, divisors near 1,
# tiny dividends. Session 32 ran N = 100000000: 0 differences in 2 x 2e8 quotients.
# usage: bash fdiv_host_check.sh N   (from the repository root)
set -e
dir=$(mktemp -d)
python3 - "$dir" <<'PY'
import sys
src = open('src/targets/cuda/prelude.cpp').read()
part = src[src.index("__device__ __forceinline__ float fdiv_core("):src.index("// ---- end of plain C++")]
head = r'''#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
inline unsigned __float_as_uint(float x) { unsigned u; std::memcpy(&u, &x, 4); return u; }
inline float __uint_as_float(unsigned u) { float x; std::memcpy(&x, &u, 4); return x; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float rcp_approx(float b) { return 1.0f / b; }
namespace kc {
'''
tail = r'''
}
int main(int argc, char** argv) {
    const long per = std::atol(argv[1]);
    std::atomic<long> bad{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < 2; ++t) ts.emplace_back([&, t] {
        std::mt19937_64 g(1234 + t);
        for (long i = 0; i < per; ++i) {
            unsigned ua = (unsigned)g(), ub = (unsigned)g();
            if (i % 4 == 1) ub = (ub & 0x807fffffu) | ((unsigned)((g() % 40) + 107) << 23);
            if (i % 4 == 2) ua = (ua & 0x807fffffu) | ((unsigned)(g() % 30) << 23);
            const float a = __uint_as_float(ua), b = __uint_as_float(ub), want = a / b;
            for (float got : {kc::fdiv(a, b), kc::fdiv_wide(a, b)})
                if (!(std::isnan(want) && std::isnan(got)) && __float_as_uint(want) != __float_as_uint(got) && bad++ < 10)
                    std::printf("%a / %a: %a, want %a\n", a, b, got, want);
        }
    });
    for (auto& t : ts) t.join();
    std::printf("checked %ld pairs, each through fdiv and fdiv_wide: %ld differences\n", 2 * per, bad.load());
    return bad != 0;
}
'''
open(sys.argv[1] + '/check.cpp', 'w').write(head + part + tail)
PY
g++ -O2 -std=c++20 -ffp-contract=off "$dir/check.cpp" -o "$dir/check" -lpthread
"$dir/check" "${1:-10000000}"
