// Markstein-style division with a reciprocal shared by many dividends: is
// q1 = fma(fma(-q0, b, a), y, q0), q0 = a*y, y = RN(1/b) equal to RN(a/b)?
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t s = 88172645463325252ull;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static int safe(float a, float b, float y, float q1) {
  // guard: b and y normal and finite, q1 within [2^-100, 2^100] in magnitude
  float ab = fabsf(b), ay = fabsf(y), aq = fabsf(q1);
  (void)a; (void)ay;
  float aa = fabsf(a); (void)aq;
  return ab >= 0x1p-62f && ab <= 0x1p62f && aa >= 0x1p-62f && aa <= 0x1p62f;
}
int main(int argc, char** argv) {
  long n = atol(argv[1]); int mode = atoi(argv[2]);
  long bad = 0, fell = 0;
  for (long i = 0; i < n; ++i) {
    uint32_t ua = (uint32_t)rnd(), ub = (uint32_t)rnd();
    if (mode == 1) ub = (ub & 0xff800000u) | 0x7fffffu;          // all-ones significand
    if (mode == 2) ub = (ub & 0xff800000u) | ((uint32_t)rnd() & 0xfu);  // near a power of two
    if (mode == 3) ub = (ub & 0xff800000u) | (0x7fffffu - ((uint32_t)rnd() & 0xffu)); // near all ones
    if (mode == 4) { ua = (ua & 0x80ffffffu) | 0x3f000000u; ub = (ub & 0x807fffffu) | 0x40000000u; } // softmax-like ranges
    float a = f_of(ua), b = f_of(ub);
    if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) continue;
    float y = 1.0f / b;
    float q0 = a * y;
    float r = fmaf(-q0, b, a);
    float q1 = fmaf(r, y, q0);
    float want = a / b;
    if (!safe(a, b, y, q1)) { ++fell; continue; }
    if (u_of(q1) != u_of(want)) { if (++bad < 10) printf("a=%a b=%a got %a want %a\n", a, b, q1, want); }
  }
  printf("mode %d: %ld pairs, %ld differ, %ld to the slow path\n", mode, n, bad, fell);
}
