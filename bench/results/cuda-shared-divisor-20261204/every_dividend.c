// Every dividend significand in [1, 2) against chosen divisors in [1, 2): the
// shared-reciprocal quotient fma(fma(-q0, b, a), y, q0), q0 = a*y, y = RN(1/b),
// against RN(a/b). Within |a|, |b| in [2^-62, 2^62] nothing underflows or
// overflows, so the result scales exactly with the exponents: these cases stand
// for every pair in that range with these significands.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static long check_b(float b) {
  float y = 1.0f / b; long bad = 0;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    float a = f_of(0x3f800000u | m);
    float q0 = a * y, r = fmaf(-q0, b, a), q1 = fmaf(r, y, q0);
    if (u_of(q1) != u_of(a / b)) { if (bad++ < 3) printf("a=%a b=%a got %a want %a\n", a, b, q1, a / b); }
  }
  return bad;
}
int main(int argc, char** argv) {
  int lo = atoi(argv[1]), hi = atoi(argv[2]); long bad = 0, nb = 0;
  uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(lo + 1);
  for (int k = lo; k < hi; ++k) {
    uint32_t m;
    if (k < 600) m = (uint32_t)k;                        // 1 + k ulp
    else if (k < 1200) m = 0x7fffffu - (uint32_t)(k - 600);  // 2 - (k+1) ulp, all ones first
    else { s ^= s << 13; s ^= s >> 7; s ^= s << 17; m = (uint32_t)s & 0x7fffffu; }
    bad += check_b(f_of(0x3f800000u | m)); ++nb;
  }
  printf("divisors %d..%d: %ld divisors x 2^23 dividends, %ld differ\n", lo, hi, nb, bad);
}
