#ifndef KILN_HD
#if defined(__CUDACC__)
#define KILN_HD __host__ __device__ __forceinline__
#else
#define KILN_HD inline
#endif
#endif
// Correctly rounded f32 division by a divisor shared by many quotients (a row's sum
// in softmax, a norm's scale): the division's reciprocal work done once per divisor,
// three operations per quotient. Pasted into the cuda target's generated source
// after kround.h (it uses kround.h's bit casts); the unit tests compile it on the
// host against a / b.
//
// With y = RN(1/b), q = RN(a y) and the exact residual r = a - b q (one FMA),
// RN(q + r y) is the correctly rounded a / b (Markstein's theorem: y within half an
// ulp of 1/b and q within an ulp of a/b) provided nothing over- or underflows: b
// and y normal, |a| >= 2^-102 so that r is exact, and the quotient well inside the
// normal range. Quotients outside that window (zeros, infinities, NaNs, subnormals,
// near overflow) take the IEEE division itself. tests/unit/divide_by_test.cpp checks
// it against a / b on 8 million random pairs and on the window's edges.
#ifndef KILN_DIVIDE_BY_H
#define KILN_DIVIDE_BY_H

namespace kiln_rt {

struct Divisor {
    float b, y;    // the divisor and its correctly rounded reciprocal
    float lo, hi;  // dividends a with lo <= |a| < hi take the fast path (lo > hi: none)
};

KILN_HD float fmaf_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return __builtin_fmaf(a, b, c);
#endif
}

KILN_HD Divisor divisor(float b) {
#if defined(__CUDA_ARCH__)
    const float y = __frcp_rn(b);
#else
    const float y = 1.0f / b;
#endif
    Divisor d{b, y, 1.0f, 0.0f};
    const int e = (int)((f32_bits(b) >> 23) & 0xffu);  // biased exponent
    if (e >= 1 && e <= 252) {
        // The quotient's biased exponent is e_a - e + 127 (+-1): keep it within [3, 251]
        // and e_a >= 25.
        const int lo = e - 124 > 25 ? e - 124 : 25, hi = e + 124 < 253 ? e + 124 : 253;
        d.lo = f32_of((unsigned)lo << 23);
        d.hi = f32_of((unsigned)hi << 23);
    }
    return d;
}

KILN_HD float divide(float a, Divisor d) {
    const float m = a < 0 ? -a : a;
    if (!(m >= d.lo && m < d.hi)) {
#if defined(__CUDA_ARCH__)
        return __fdiv_rn(a, d.b);
#else
        return a / d.b;
#endif
    }
#if defined(__CUDA_ARCH__)
    const float q = __fmul_rn(a, d.y);
#else
    const float q = a * d.y;
#endif
    const float r = fmaf_rn(-q, d.b, a);
    return fmaf_rn(r, d.y, q);
}

}  // namespace kiln_rt

#endif
