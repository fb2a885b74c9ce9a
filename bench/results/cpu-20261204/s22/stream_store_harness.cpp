#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
typedef long long v8di __attribute__((vector_size(64)));
const long R = 4096, C = 4096;
template <class M> inline void stream_store(M* dst, const M* src, long long n) {
    char* d = (char*)dst; const char* s = (const char*)src; long long bytes = n * (long long)sizeof(M);
    long long head = (long long)(-(unsigned long long)d & 63u); if (head > bytes) head = bytes;
    __builtin_memcpy(d, s, head); d += head, s += head, bytes -= head;
    for (; bytes >= 64; bytes -= 64, d += 64, s += 64) { v8di v; __builtin_memcpy(&v, s, 64); __builtin_ia32_movntdq512((v8di*)d, v); }
    __builtin_memcpy(d, s, bytes);
}
__attribute__((noinline)) void plain(const float* x, const float* v, float* y) {
  for (long r = 0; r < R; ++r) for (long c = 0; c < C; ++c) y[r * C + c] = x[r * C + c] + v[c];
}
template <int CH> __attribute__((noinline)) void buffered(const float* x, const float* v, float* y) {
  alignas(64) float row[CH];
  for (long r = 0; r < R; ++r) for (long c0 = 0; c0 < C; c0 += CH) {
    for (long c = 0; c < CH; ++c) row[c] = x[r * C + c0 + c] + v[c0 + c];
    stream_store(y + r * C + c0, row, CH);
  }
  __asm__ __volatile__("sfence" ::: "memory");
}
template <class F> double best(F f, int reps) { std::vector<double> t; for (int i = 0; i < reps; ++i) { auto a = std::chrono::steady_clock::now(); f(); t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count()); } std::sort(t.begin(), t.end()); return t[t.size() / 2]; }
int main() {
  float* x = (float*)aligned_alloc(64, R * C * 4); float* y = (float*)aligned_alloc(64, R * C * 4); float* v = (float*)aligned_alloc(64, C * 4);
  for (long i = 0; i < R * C; ++i) { x[i] = i * 0.5f; y[i] = 0; } for (long c = 0; c < C; ++c) v[c] = c;
  for (int round = 0; round < 3; ++round) {
    double a = best([&] { plain(x, v, y); }, 15), b = best([&] { buffered<4096>(x, v, y); }, 15), c = best([&] { buffered<256>(x, v, y); }, 15), d = best([&] { buffered<64>(x, v, y); }, 15);
    std::printf("plain %.2f ms  buf4096 %.2fx  buf256 %.2fx  buf64 %.2fx\n", a * 1e3, a / b, a / c, a / d);
  }
}
