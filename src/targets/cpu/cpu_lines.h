// Helpers of the generated CPU kernels that work along one line of a tile: order
// keys for max/min, scans in vector lanes, and the stable sort and top-k. Pasted
// after cpu_prelude.h (so it includes nothing). Each helper reproduces the
// interpreter's definition (src/interp) exactly.
#ifndef KILN_CPU_LINES_H
#define KILN_CPU_LINES_H

namespace kiln_cpu {

// ---- order keys: integers that compare as the float values do in the total
// order -inf < ... < -0 < +0 < ... < +inf, NaNs beyond both ends. A non-NaN max
// or min is then one integer max or min in any order (kiln_rt::k_max returns
// +0 for -0 and +0 either way round), which vectorises. The map flips the
// magnitude bits of negative values and is its own inverse.
inline int order_key(float x) {
    const int b = __builtin_bit_cast(int, x);
    return b ^ ((b >> 31) & 0x7fffffff);
}
inline long long order_key(double x) {
    const long long b = __builtin_bit_cast(long long, x);
    return b ^ ((b >> 63) & 0x7fffffffffffffffLL);
}
inline float from_order_key(int k) { return __builtin_bit_cast(float, k ^ ((k >> 31) & 0x7fffffff)); }
inline double from_order_key(long long k) { return __builtin_bit_cast(double, k ^ ((k >> 63) & 0x7fffffffffffffffLL)); }
// NaN keys lie beyond those of +inf (0x7f800000) and -inf (0xff800000 flipped: -0x7f800001).
inline bool order_key_is_nan(int k) { return k > 0x7f800000 || k < -0x7f800001; }
inline bool order_key_is_nan(long long k) { return k > 0x7ff0000000000000LL || k < -0x7ff0000000000001LL; }

// ---- scans along a line in vector lanes: y[j] = x[0] op x[1] op ... op x[j].
// Each vector of W elements is scanned in its lanes in log2(W) steps (lane i
// combined with lane i - s, the first s lanes with the identity), then
// combined with the carry, the last prefix of the vector before. Integer sums
// (wrapping: unsigned lanes) and max/min give the interpreter's bits in any
// order; float max/min run on order keys (as reduce does) and report a NaN
// (false), for the caller to scan that line again in order; float sums are
// reassociated, which only precision standard allows (emit_ops.cpp).
// (These inline helpers pass 64-byte vectors by value; code built without
// AVX-512, such as a test including this header, is told the ABI differs,
// which no call across objects ever meets.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
typedef int i32x16 __attribute__((vector_size(64)));
typedef unsigned u32x16 __attribute__((vector_size(64)));
typedef long long i64x8 __attribute__((vector_size(64)));
typedef unsigned long long u64x8 __attribute__((vector_size(64)));
typedef double f64x8 __attribute__((vector_size(64)));

template <class V, class Op> inline V prefix_in_lanes(V v, V id, Op op) {
    if constexpr (sizeof(v[0]) == 4) {
        v = op(v, __builtin_shufflevector(v, id, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14));
        v = op(v, __builtin_shufflevector(v, id, 16, 17, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13));
        v = op(v, __builtin_shufflevector(v, id, 16, 17, 18, 19, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
        return op(v, __builtin_shufflevector(v, id, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7));
    } else {
        v = op(v, __builtin_shufflevector(v, id, 8, 0, 1, 2, 3, 4, 5, 6));
        v = op(v, __builtin_shufflevector(v, id, 8, 9, 0, 1, 2, 3, 4, 5));
        return op(v, __builtin_shufflevector(v, id, 8, 9, 10, 11, 0, 1, 2, 3));
    }
}

// The line in vectors of V (lanes of type L): get(j) reads element j as a lane
// value, put(j, lane value) writes it; `id` is op's identity.
template <class V, class L, class Get, class Put, class Op> inline void scan_lanes(int n, L id, Get get, Put put, Op op) {
    constexpr int W = sizeof(V) / sizeof(L);
    V ids;
    for (int l = 0; l < W; ++l) ids[l] = id;
    L carry = id;
    int j = 0;
    for (; j + W <= n; j += W) {
        V v;
        for (int l = 0; l < W; ++l) v[l] = get(j + l);
        v = prefix_in_lanes(v, ids, op);
        V c = ids;
        for (int l = 0; l < W; ++l) c[l] = carry;
        v = op(c, v);
        for (int l = 0; l < W; ++l) put(j + l, v[l]);
        carry = v[W - 1];
    }
    for (; j < n; ++j) {
        carry = op(carry, get(j));
        put(j, carry);
    }
}

struct Add { template <class V> V operator()(V a, V b) const { return a + b; } };
struct Max { template <class V> V operator()(V a, V b) const { return a > b ? a : b; } };
struct Min { template <class V> V operator()(V a, V b) const { return a < b ? a : b; } };

// Integer scans (i8 in i32 lanes: its sums wrap the same modulo 2^8).
template <class T, class Op> inline void scan_int_lanes(const T* x, T* y, int n, Op op) {
    if constexpr (sizeof(T) == 8) {
        typedef unsigned long long U;
        if constexpr (__is_same(Op, Add)) scan_lanes<u64x8, U>(n, U(0), [&](int j) { return (U)x[j]; }, [&](int j, U v) { y[j] = (T)v; }, op);
        else scan_lanes<i64x8, long long>(n, (long long)(__is_same(Op, Max) ? -0x7fffffffffffffffLL - 1 : 0x7fffffffffffffffLL),
                                          [&](int j) { return (long long)x[j]; }, [&](int j, long long v) { y[j] = (T)v; }, op);
    } else {
        if constexpr (__is_same(Op, Add)) scan_lanes<u32x16, unsigned>(n, 0u, [&](int j) { return (unsigned)x[j]; }, [&](int j, unsigned v) { y[j] = (T)v; }, op);
        else scan_lanes<i32x16, int>(n, __is_same(Op, Max) ? -0x7fffffff - 1 : 0x7fffffff, [&](int j) { return (int)x[j]; }, [&](int j, int v) { y[j] = (T)v; }, op);
    }
}

// Float max/min on order keys; false when the line holds a NaN (y is then to be redone).
template <class T, class Op> inline bool scan_float_lanes(const T* x, T* y, int n, Op op) {
    if constexpr (sizeof(T) == 4) {
        int nan = 0;
        scan_lanes<i32x16, int>(n, __is_same(Op, Max) ? -0x7fffffff - 1 : 0x7fffffff,
                                [&](int j) { const int k = order_key(x[j]); nan |= order_key_is_nan(k); return k; },
                                [&](int j, int k) { y[j] = from_order_key(k); }, op);
        return !nan;
    } else {
        int nan = 0;
        scan_lanes<i64x8, long long>(n, __is_same(Op, Max) ? -0x7fffffffffffffffLL - 1 : 0x7fffffffffffffffLL,
                                     [&](int j) { const long long k = order_key((double)x[j]); nan |= order_key_is_nan(k); return k; },
                                     [&](int j, long long k) { y[j] = (T)from_order_key(k); }, op);
        return !nan;
    }
}

// Float sums, reassociated (precision standard): -0 is the identity (-0 + x = x
// for every x, +0 and -0 included); a NaN result is made canonical as c32 does.
inline void scan_add_lanes(const float* x, float* y, int n) {
    scan_lanes<f32x16, float>(n, -0.0f, [&](int j) { return x[j]; }, [&](int j, float v) { y[j] = c32(v); }, Add{});
}
inline void scan_add_lanes(const double* x, double* y, int n) {
    scan_lanes<f64x8, double>(n, -0.0, [&](int j) { return x[j]; }, [&](int j, double v) { y[j] = v; }, Add{});
}
#pragma GCC diagnostic pop

// ---- f32 line reductions in vector registers (emit_reduce.cpp, lines whose
// elements lie contiguously in an array). Written with vector types: as scalar
// lanes in arrays, GCC kept them in registers only while its SLP vectoriser
// succeeded, which more live values around the loop (a prefetch's) undid.
// The largest and the smallest order key of x[0, n), n >= 1: either is a NaN's
// key when x holds one (order_key_is_nan).
inline void order_key_extremes(const float* x, int n, int& hi, int& lo) {
    auto keys = [&](int at, i32x16& key) {  // (a vector return would change the ABI without AVX-512: -Wpsabi)
        i32x16 b;
        __builtin_memcpy(&b, x + at, sizeof b);
        key = b ^ ((b >> 31) & 0x7fffffff);
    };
    int h = order_key(x[0]), l = h, j = 0;
    if (n >= 64) {
        i32x16 hv[4], lv[4];  // the loops over k unrolled: only then do these stay in registers
        _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) keys(16 * k, hv[k]), lv[k] = hv[k];
        for (j = 64; j + 64 <= n; j += 64)
            _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) {
                i32x16 key;
                keys(j + 16 * k, key);
                hv[k] = key > hv[k] ? key : hv[k];
                lv[k] = key < lv[k] ? key : lv[k];
            }
        for (int k = 0; k < 4; ++k)
            for (int i = 0; i < 16; ++i) h = hv[k][i] > h ? hv[k][i] : h, l = lv[k][i] < l ? lv[k][i] : l;
    }
    for (; j < n; ++j) {
        const int key = order_key(x[j]);
        h = key > h ? key : h, l = key < l ? key : l;
    }
    hi = h, lo = l;
}
// 256 bytes of partial sums in vector registers, lane l of a chunk added to lane l
// (emit_reduce's lanes for a line computed as it is summed: the chunk's values go
// through a buffer into these vector adds). Not scalar lanes `acc[l] = acc[l] +
// (m ? x : 0)` fully unrolled, as before: GCC 12.2's loop vectoriser turned those,
// with a select in the element, into code that lost lanes (16-63 of 64 with AVX2,
// 32-63 with AVX-512: a cross entropy's picked logit and a segmented sum came out
// 0 on the catalog's medium sizes; tests/unit/cpu_lane_sum_test.cpp). The lanes and
// the order of each lane's additions are the same.
inline void lanes_add(f32x16 (&a)[4], const float* chunk) {
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) {
        f32x16 v;
        __builtin_memcpy(&v, chunk + 16 * k, sizeof v);
        a[k] = a[k] + v;
    }
}
inline void lanes_add(f64x8 (&a)[4], const double* chunk) {
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) {
        f64x8 v;
        __builtin_memcpy(&v, chunk + 8 * k, sizeof v);
        a[k] = a[k] + v;
    }
}
template <class T> struct LaneVectors;
template <> struct LaneVectors<float> { typedef f32x16 type; };
template <> struct LaneVectors<double> { typedef f64x8 type; };

// The sum of x[0, n), n >= 128, in emit_reduce's order for lanes of 64 partial
// sums: lane l adds x[l], x[l + 64], ... (the last n % 64 elements go to the
// first lanes), then the lanes in a tree (l + 32 into l, then 16, ... 1). The
// same bits as that scalar form.
inline float lane_sum64(const float* x, int n) {
    f32x16 a[4];
    __builtin_memcpy(a, x, sizeof a);
    const int full = n - n % 64;
    for (int j = 64; j < full; j += 64)
        _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) {
            f32x16 v;
            __builtin_memcpy(&v, x + j + 16 * k, sizeof v);
            a[k] = a[k] + v;
        }
    float lanes[64];
    __builtin_memcpy(lanes, a, sizeof lanes);
    for (int l = 0; l < n % 64; ++l) lanes[l] = lanes[l] + x[full + l];
    for (int w = 32; w >= 1; w /= 2)
        for (int l = 0; l < w; ++l) lanes[l] = lanes[l] + lanes[l + w];
    return lanes[0];
}

// ---- sort and topk: a stable order of one line. NaN sorts above +inf; ties keep
// source order (std::stable_sort in the interpreter; a stable sort's result is
// unique, so this bottom-up merge sort gives the same permutation).
template <class T> inline bool less_nan_last(T a, T b) { return (!(a != a) && b != b) || a < b; }

template <class T> inline void sort_line(const T* x, long long* order, long long* scratch, int n, bool descending) {
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            const int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, k = lo;
            while (a < mid && b < hi) {
                // The right run goes first only when strictly before: stability.
                const bool right = descending ? less_nan_last(x[order[a]], x[order[b]]) : less_nan_last(x[order[b]], x[order[a]]);
                scratch[k++] = right ? order[b++] : order[a++];
            }
            while (a < mid) scratch[k++] = order[a++];
            while (b < hi) scratch[k++] = order[b++];
        }
        for (int i = 0; i < n; ++i) order[i] = scratch[i];
    }
}

// ---- topk: the first k of a line's descending stable order (NaN above +inf,
// ties in source order), found by selection rather than a sort. The order is
// total on (value, index), so whatever finds its first k gives the
// interpreter's result. Up to 8 (a router's top-2): keys that compare as the
// order does (-0 as +0, every NaN one key above +inf), then k vectorised
// passes, each taking the largest key's first index and striking it out.
// Beyond, and for i64 (whose keys leave no value free to strike out with): a
// heap of the k first so far (its root the last of them), sorted at the end.
inline int topk_key(float x) {
    x = x + 0.0f;  // -0 -> +0
    const int b = __builtin_bit_cast(int, x);
    return x != x ? 0x7fffffff : b ^ ((b >> 31) & 0x7fffffff);
}
inline long long topk_key(double x) {
    x = x + 0.0;
    const long long b = __builtin_bit_cast(long long, x);
    return x != x ? 0x7fffffffffffffffLL : b ^ ((b >> 63) & 0x7fffffffffffffffLL);
}
inline int topk_key(signed char x) { return x; }
inline long long topk_key(int x) { return x; }

template <class T> inline bool before_in_topk(const T* x, long long p, long long q) {  // element p before element q
    return less_nan_last(x[q], x[p]) || (!less_nan_last(x[p], x[q]) && p < q);
}

template <class T> inline void topk_sift_down(const T* x, long long* heap, int k, int at) {
    for (;;) {
        int last = at;
        const int l = 2 * at + 1, r = l + 1;
        if (l < k && before_in_topk(x, heap[last], heap[l])) last = l;
        if (r < k && before_in_topk(x, heap[last], heap[r])) last = r;
        if (last == at) return;
        const long long t = heap[at];
        heap[at] = heap[last];
        heap[last] = t;
        at = last;
    }
}

// `scratch` holds n keys (8 bytes each at most).
template <class T> inline void top_line(const T* x, long long* order, int n, int k, long long* scratch) {
    if constexpr (sizeof(T) < 8 || !(T(0.5) == 0)) {  // every kind but i64
        if (k <= 8) {
            typedef decltype(topk_key(x[0])) K;
            K* key = (K*)scratch;
            const K taken = sizeof(K) == 4 ? (K)(-0x7fffffff - 1) : (K)(-0x7fffffffffffffffLL - 1);  // below every key
            for (int i = 0; i < n; ++i) key[i] = topk_key(x[i]);
            for (int t = 0; t < k; ++t) {
                K m = taken;
                for (int i = 0; i < n; ++i) m = key[i] > m ? key[i] : m;
                int first = n;
                for (int i = 0; i < n; ++i) {
                    const int at = key[i] == m ? i : n;
                    first = at < first ? at : first;
                }
                order[t] = first;
                key[first] = taken;
            }
            return;
        }
    }
    for (int i = 0; i < k; ++i) order[i] = i;
    for (int i = k / 2 - 1; i >= 0; --i) topk_sift_down(x, order, k, i);
    for (int i = k; i < n; ++i)
        if (less_nan_last(x[order[0]], x[i])) {  // i comes after every kept index: only a larger value passes
            order[0] = i;
            topk_sift_down(x, order, k, 0);
        }
    for (int end = k - 1; end > 0; --end) {  // the last of the heap to the end, repeatedly
        const long long t = order[0];
        order[0] = order[end];
        order[end] = t;
        topk_sift_down(x, order, end, 0);
    }
}

}  // namespace kiln_cpu

#endif  // KILN_CPU_LINES_H
