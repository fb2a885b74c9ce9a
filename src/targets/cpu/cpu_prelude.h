// Helpers shared by every generated CPU kernel. Pasted after cpu_abi.h, kround.h
// and kmath.h (so it includes nothing): element conversions between views and
// tiles, the f32 NaN rule, bounds windows and the out-of-range report, and the
// stable line sort. Each helper reproduces the interpreter's definition
// (src/interp) exactly; the generated code adds only loop structure.
#ifndef KILN_CPU_PRELUDE_H
#define KILN_CPU_PRELUDE_H

namespace kiln_cpu {

// ---- element kinds: the value type a tile holds, the type a view stores, and
// the conversions between them (interp/run_kernel.cpp read_* / write_*).
// f16 and bf16 live in tiles as the exact double, like the interpreter's.
struct K_bool {
    typedef unsigned char val;
    typedef unsigned char mem;
    static val load(mem m) { return m != 0; }
    static mem store(val v) { return v; }
};
struct K_i8 {
    typedef signed char val;
    typedef signed char mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
struct K_i32 {
    typedef int val;
    typedef int mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
struct K_i64 {
    typedef long long val;
    typedef long long mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
struct K_f16 {
    typedef double val;
    typedef unsigned short mem;
    static val load(mem m) { return kiln_rt::f16_bits_to_double(m); }
    static mem store(val v) { return kiln_rt::f16_bits_from_double(v); }
};
struct K_bf16 {
    typedef double val;
    typedef unsigned short mem;
    static val load(mem m) { return kiln_rt::bf16_bits_to_double(m); }
    static mem store(val v) { return kiln_rt::bf16_bits_from_double(v); }
};
struct K_f32 {
    typedef float val;
    typedef float mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};
struct K_f64 {
    typedef double val;
    typedef double mem;
    static val load(mem m) { return m; }
    static mem store(val v) { return v; }
};

// ---- rounding. f32 arithmetic runs natively in float: + - * / of floats is the
// correctly rounded f32 result, the same number as the interpreter's f64 result
// rounded once. Only NaN differs (x86 makes a negative default NaN and
// propagates payloads), so results pass through c32, kiln_rt::round_f32's rule.
inline float c32(float x) { return x != x ? __builtin_bit_cast(float, 0x7fc00000u) : x; }
inline float r32(double x) { return (float)kiln_rt::round_f32(x); }
inline double r16(double x) { return kiln_rt::round_f16(x); }
inline double rbf16(double x) { return kiln_rt::round_bf16(x); }

// |x| as the interpreter defines it: -0 -> +0, NaN keeps its sign.
template <class T> inline T abs_float(T x) { return x < 0 || (x == 0 && __builtin_signbit(x)) ? -x : x; }

// ---- bounds. An access covers the box [o, o + n) of its view; the part inside
// the view is again a box, so a partial access is a fill plus a smaller copy.
inline bool inside(int rank, const long long* o, const int* n, const long long* extent) {
    for (int k = 0; k < rank; ++k)
        if (o[k] < 0 || o[k] > extent[k] - n[k]) return false;
    return true;
}

// The in-range index window [lo, hi) of one dimension; false when empty. Written
// with comparisons only, so no origin (any i64) can overflow.
inline bool window(long long o, int n, long long extent, int& lo, int& hi) {
    if (o >= extent || o <= -(long long)n) return false;
    lo = o < 0 ? (int)-o : 0;
    hi = o > extent - n ? (int)(extent - o) : n;
    return lo < hi;
}

// Walks the in-range elements of a partial access in row-major order, calling
// f(tile element, view offset). Offsets are 64-bit here: this path is rare.
template <class F>
inline void for_each_inside(int rank, const long long* o, const int* n, const long long* extent, const long long* stride, F f) {
    int lo[max_rank], hi[max_rank], idx[max_rank];
    for (int k = 0; k < rank; ++k)
        if (!window(o[k], n[k], extent[k], lo[k], hi[k])) return;
    for (int k = 0; k < rank; ++k) idx[k] = lo[k];
    for (;;) {
        long long e = 0, off = 0;
        for (int k = 0; k < rank; ++k) {
            e = e * n[k] + idx[k];
            off += (o[k] + idx[k]) * stride[k];
        }
        f(e, off);
        int k = rank - 1;
        while (k >= 0 && ++idx[k] == hi[k]) idx[k] = lo[k], --k;
        if (k < 0) return;
    }
}

// bounds::zero: out-of-range elements read as `fill`, writes to them are dropped.
template <class K>
inline void load_window(typename K::val* dst, long long count, const void* data, int rank, const long long* o, const int* n,
                        const long long* extent, const long long* stride, typename K::val fill) {
    for (long long e = 0; e < count; ++e) dst[e] = fill;
    const typename K::mem* src = (const typename K::mem*)data;
    for_each_inside(rank, o, n, extent, stride, [&](long long e, long long off) { dst[e] = K::load(src[off]); });
}
template <class K>
inline void store_window(void* data, const typename K::val* src, int rank, const long long* o, const int* n,
                         const long long* extent, const long long* stride) {
    typename K::mem* dst = (typename K::mem*)data;
    for_each_inside(rank, o, n, extent, stride, [&](long long e, long long off) { dst[off] = K::store(src[e]); });
}

// bounds::check / bounds::assume: reports the first element, in row-major order,
// outside the view, as the interpreter does (it stops at that element).
inline int out_of_range(Status* st, int access, int phase, long long pid, int rank, const long long* o, const int* n,
                        const long long* extent) {
    int idx[max_rank];
    for (int k = 0; k < rank; ++k) idx[k] = 0;
    for (;;) {
        bool in = true;
        for (int k = 0; k < rank; ++k)
            if (o[k] + idx[k] < 0 || o[k] + idx[k] >= extent[k]) in = false;
        if (!in) break;
        int k = rank - 1;
        while (k >= 0 && ++idx[k] == n[k]) idx[k] = 0, --k;
        if (k < 0) break;  // unreachable: the access was known to leave the view
    }
    st->access = access;
    st->phase = phase;
    st->pid = pid;
    for (int k = 0; k < rank; ++k) st->coord[k] = o[k] + idx[k];
    return 1;
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

}  // namespace kiln_cpu

#endif  // KILN_CPU_PRELUDE_H
