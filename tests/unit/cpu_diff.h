// Differential testing of the cpu target against the interpreter: a kernel runs
// on both from identical buffers, and every output must match byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "kiln/detail/identical.h"
#include "interp/run_kernel.h"

namespace cpu_diff {

using namespace kiln;

// A launch argument with its own storage: a view (bytes, extents, strides) or a scalar.
struct Buffer {
    detail::Arg arg;
    std::vector<unsigned char> bytes;
    bool output = false;
};

inline std::vector<std::int64_t> row_major(const std::vector<std::int64_t>& extents) { return detail::row_major_strides(extents); }

// Random elements of `kind` in [lo, hi); with `specials`, about one in eight is
// an edge value (floats: NaN of either sign, +-inf, -0, huge; integers: the
// kind's min and max, -1, 0), so NaN, overflow and wrapping rules are exercised.
inline Buffer input(Kind kind, std::vector<std::int64_t> extents, unsigned seed, double lo = -4, double hi = 4, bool specials = false,
                    std::vector<std::int64_t> strides = {}) {
    Buffer b;
    b.arg.kind = kind;
    b.arg.extents = extents;
    b.arg.strides = strides.empty() ? row_major(extents) : strides;
    b.arg.read_only = true;
    std::int64_t span = 1;
    for (std::size_t k = 0; k < extents.size(); ++k) span += (extents[k] - 1) * b.arg.strides[k];
    b.bytes.assign(static_cast<std::size_t>(span * kind_bytes(kind)), 0);
    b.arg.data = b.bytes.data();
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    const double special[] = {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), -0.0, 1e30, -3e38};
    for (std::int64_t e = 0; e < span; ++e) {
        double v = u(g);
        if (specials && g() % 8 == 0) v = special[g() % 7];
        if (is_float(kind)) {
            ref::write_float(b.arg, e, v);
            continue;
        }
        std::int64_t i = kind == Kind::Bool ? static_cast<std::int64_t>(g() & 1) : static_cast<std::int64_t>(std::floor(v));
        if (specials && kind != Kind::Bool && g() % 8 == 0) {
            const int bits = kind == Kind::I8 ? 8 : kind == Kind::I32 ? 32 : 64;
            const std::int64_t edge[] = {kiln_rt::int_min_of(bits), kiln_rt::int_max_of(bits), -1, 0};
            i = edge[g() % 4];
        }
        ref::write_int(b.arg, e, i);
    }
    return b;
}

// An output view, pre-filled with a byte pattern so that dropped and missing
// writes are visible.
inline Buffer output(Kind kind, std::vector<std::int64_t> extents) {
    Buffer b = input(kind, extents, 0);
    std::fill(b.bytes.begin(), b.bytes.end(), kind == Kind::Bool ? 1 : 0x5a);
    b.arg.read_only = false;
    b.output = true;
    return b;
}

// A view read and written by the kernel (y = a * x + y).
inline Buffer inout(Kind kind, std::vector<std::int64_t> extents, unsigned seed, double lo = -4, double hi = 4) {
    Buffer b = input(kind, std::move(extents), seed, lo, hi);
    b.arg.read_only = false;
    b.output = true;
    return b;
}

inline Buffer scalar(Kind kind, double f, std::int64_t i = 0) {
    Buffer b;
    b.arg.is_view = false;
    b.arg.kind = kind;
    b.arg.f = f;
    b.arg.i = i;
    return b;
}

// The launch arguments of `bufs`, each view pointing at its buffer's bytes.
inline std::vector<detail::Arg> buffer_args(std::vector<Buffer>& bufs) {
    std::vector<detail::Arg> args;
    for (auto& b : bufs) {
        if (b.arg.is_view) b.arg.data = b.bytes.data();
        args.push_back(b.arg);
    }
    return args;
}

// Runs `k` on a target from copies of `bufs`; returns the buffers afterwards.
inline std::vector<Buffer> run_on(const Kernel& k, const Target& t, std::vector<Buffer> bufs, CompileOptions opts = {}) {
    run_kernel(k, t, buffer_args(bufs), opts, Loc::here());
    return bufs;
}

inline std::string hex_diff(const Buffer& a, const Buffer& b) {
    const int w = kind_bytes(a.arg.kind);
    for (std::size_t e = 0; e * static_cast<std::size_t>(w) < a.bytes.size(); ++e)
        if (!detail::identical_elements(a.arg.kind, &a.bytes[e * w], &b.bytes[e * w])) {
            auto value = [&](const Buffer& x) {
                detail::Arg arg = x.arg;
                arg.data = const_cast<unsigned char*>(x.bytes.data());
                return is_float(x.arg.kind) ? std::to_string(ref::read_float(arg, static_cast<std::int64_t>(e)))
                                            : std::to_string(ref::read_int(arg, static_cast<std::int64_t>(e)));
            };
            return "first difference at element " + std::to_string(e) + ": interp " + value(a) + ", cpu " + value(b);
        }
    return "";
}

// The contract: the cpu target writes exactly the bytes the interpreter writes,
// in exact precision. Standard precision (the default here) may reassociate long
// f32/f64 sums; kernels without them compare byte for byte in it too.
inline void expect_same(const Kernel& k, const std::vector<Buffer>& bufs, CompileOptions opts = {}) {
    auto want = run_on(k, interp(), bufs, opts);
    auto got = run_on(k, cpu(), bufs, opts);
    for (std::size_t i = 0; i < bufs.size(); ++i) {
        if (!bufs[i].output) continue;
        EXPECT_EQ(hex_diff(want[i], got[i]), "") << k.name() << ": argument " << i << " differs";
    }
}

// Standard precision lets mma fuse a product with its sum (FMA): the cpu target
// then differs from the interpreter by at most the rounding of each product, so
// its outputs must agree within `rel` of the larger magnitude plus `abs` (for
// results that cancel to far below their terms' size), NaN with NaN.
inline void expect_close(const Kernel& k, const std::vector<Buffer>& bufs, double rel, double abs,
                         CompileOptions opts = {.precision = Precision::standard}) {
    auto want = run_on(k, interp(), bufs, opts);
    auto got = run_on(k, cpu(), bufs, opts);
    for (std::size_t i = 0; i < bufs.size(); ++i) {
        if (!bufs[i].output) continue;
        detail::Arg a = want[i].arg, b = got[i].arg;
        a.data = want[i].bytes.data();
        b.data = got[i].bytes.data();
        const auto count = static_cast<std::int64_t>(want[i].bytes.size()) / kind_bytes(a.kind);
        for (std::int64_t e = 0; e < count; ++e) {
            const double x = ref::read_float(a, e), y = ref::read_float(b, e);
            if (x == y || (std::isnan(x) && std::isnan(y))) continue;
            ASSERT_LE(std::fabs(x - y), rel * std::max(std::fabs(x), std::fabs(y)) + abs) << k.name() << ": argument " << i << " element " << e
                                                                                 << ": interp " << x << ", cpu " << y;
        }
    }
}

}  // namespace cpu_diff
