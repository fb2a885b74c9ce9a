// GCC 12.2 wrong code (session 29): g++ -std=c++20 -O2 -mavx2 -DMASK=int -DDATA=float -DBF16=0 lane_sum_miscompile.cpp && ./a.out
// prints "bad 4424 of 5120" (with -march=native on an AVX-512 Zen 4: 3792); 0 with clang++, -O1 or -fno-tree-loop-vectorize.
#include <cstdio>
#include <cstring>
typedef MASK M;
typedef DATA D;
static inline float conv(D x) {
#if BF16
    unsigned u = (unsigned)x << 16; float f; __builtin_memcpy(&f, &u, 4); return f;
#else
    return (float)x;
#endif
}
extern "C" __attribute__((noinline)) float picked(const M* m, const D* x) {
    float acc[64];
    _Pragma("GCC unroll 64") for (int l = 0; l < 64; ++l) acc[l] = m[l] ? conv(x[l]) : 0.0f;
    for (int r = 64; r < 5120; r += 64)
        _Pragma("GCC unroll 64") for (int l = 0; l < 64; ++l) acc[l] = acc[l] + (m[r + l] ? conv(x[r + l]) : 0.0f);
    for (int l = 0; l < 32; ++l) acc[l] = acc[l] + acc[l + 32];
    for (int l = 0; l < 16; ++l) acc[l] = acc[l] + acc[l + 16];
    for (int l = 0; l < 8; ++l) acc[l] = acc[l] + acc[l + 8];
    for (int l = 0; l < 4; ++l) acc[l] = acc[l] + acc[l + 4];
    for (int l = 0; l < 2; ++l) acc[l] = acc[l] + acc[l + 2];
    for (int l = 0; l < 1; ++l) acc[l] = acc[l] + acc[l + 1];
    return acc[0];
}
int main() {
    static M m[5120]; static D x[5120];
    for (int i = 0; i < 5120; ++i) {
#if BF16
        float f = 1.0f + i % 7; unsigned u; std::memcpy(&u, &f, 4); x[i] = (D)(u >> 16);
#else
        x[i] = (D)(1 + i % 7);
#endif
    }
    int bad = 0;
    for (int at = 0; at < 5120; ++at) {
        for (int i = 0; i < 5120; ++i) m[i] = i == at;
        float got = picked(m, x), want = 1.0f + at % 7;
        if (got != want) ++bad;
    }
    std::printf("bad %d of 5120\n", bad);
}
