// GEMM kernels written the way different users write them (a sweep of 66 spellings:
// tile sizes, element kinds, k-loop forms, epilogues, layouts, grids), kept as the
// users wrote them. gemm_variants_test.cpp says, for each, whether the cuda target
// takes it to the Hopper GEMM kernel (passes/gemm_match.h) or why not, and checks
// each on the cpu target against the interpreter and, on a device, on cuda.
// Each function returns a new kiln::Kernel; each kernel's name is its function's.
#pragma once

#include <cstdint>

#include <kiln/kiln.h>

namespace kiln::variants::gemm {

// ---------------------------------------------------------------- tiles, element kinds, k-loop forms
// A user's tile-size-parametrised GEMM: C(bf16) = A B, pipeline window 3.
inline Kernel plain(const char* name, std::int64_t BM, std::int64_t BN, std::int64_t BK) {
    return kernel(name, [=](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto M = A.extent(0), N = B.extent(1), K = A.extent(1);
        auto gm = axis("gm", ceil_div(M, BM)), gn = axis("gn", ceil_div(N, BN)), gk = axis("gk", ceil_div(K, BK));
        auto m = axis("m", BM), n = axis("n", BN), k = axis("k", BK);
        for (auto& pid : parallel(shape(gm, gn))) {
            auto row = pid.index(gm) * BM, col = pid.index(gn) * BN;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& it : pid.pipeline(shape(gk), {.window = 3})) {
                auto kk = it.index() * BK;
                acc = mma(A[coord(row, kk), shape(m, k)], B[coord(kk, col), shape(k, n)], acc);
            }
            C(coord(row, col), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

// plain(): 64x64x32 tiles.
inline Kernel t64x64x32() { return plain("t64x64x32", 64, 64, 32); }
// plain(): 128x128x64 tiles (the catalog's).
inline Kernel t128x128x64() { return plain("t128x128x64", 128, 128, 64); }
// plain(): 128x256x64 tiles (the Hopper kernel's own).
inline Kernel t128x256x64() { return plain("t128x256x64", 128, 256, 64); }
// plain(): 256x128x64 tiles (tall).
inline Kernel t256x128x64() { return plain("t256x128x64", 256, 128, 64); }
// plain(): 64x256x64 tiles (short and wide).
inline Kernel t64x256x64() { return plain("t64x256x64", 64, 256, 64); }

// f16 operands, f16 output.
inline Kernel f16_ops() { return kernel("f16_ops", [](View<const f16, 2> a, View<const f16, 2> b, View<f16, 2> c) {
    constexpr std::int64_t BM = 128, BN = 128, BK = 64;
    auto bm = axis("bm", ceil_div(a.extent(0), BM)), bn = axis("bn", ceil_div(b.extent(1), BN));
    auto kt = axis("kt", ceil_div(a.extent(1), BK));
    auto m = axis("m", BM), n = axis("n", BN), k = axis("k", BK);
    for (auto& nest : parallel(shape(bm, bn))) {
        auto m0 = nest.index(bm) * BM, n0 = nest.index(bn) * BN;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 4})) {
            auto k0 = step.index() * BK;
            acc = mma(a[coord(m0, k0), shape(m, k)], b[coord(k0, n0), shape(k, n)], acc);
        }
        c(coord(m0, n0), shape(m, n)).store(cast<f16>(acc));
    }
}); }

// bf16 in, f32 out: the accumulator stored directly.
inline Kernel out_f32() { return kernel("out_f32", [](View<const bf16, 2> A, View<const bf16, 2> B, View<f32, 2> C) {
    auto gm = axis("gm", ceil_div(C.extent(0), 128)), gn = axis("gn", ceil_div(C.extent(1), 128));
    auto kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// K loop as a serial nest with a carried accumulator (no pipeline), bf16 cast.
inline Kernel out_bf16_serial() { return kernel("out_bf16_serial", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * 64;
            auto a = A[coord(m0, k0), shape(m, k)];
            auto b = B[coord(k0, n0), shape(k, n)];
            acc = mma(a, b, acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Pipeline with named stages and explicit interval (as examples/gemm.cpp).
inline Kernel kloop_pipeline_stages() { return kernel("kloop_pipeline_stages", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("block_m", ceil_div(A.extent<0>(), 128u)), gn = axis("block_n", ceil_div(B.extent<1>(), 256u));
    auto kt = axis("k_tiles", ceil_div(A.extent<1>(), 64u));
    auto m = axis("m", 128u), n = axis("n", 256u), k = axis("k", 64u);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128u, n0 = nest.index(gn) * 256u;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 2u, .interval = 1u})) {
            auto k0 = step.index() * 64u;
            step.stage("load");
            auto a = A[coord(m0, k0), shape(m, k)];
            auto b = B[coord(k0, n0), shape(k, n)];
            step.stage("compute");
            acc = mma(a, b, acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Accumulate with acc = acc + dot(a, b) (block_matmul's style) in a serial loop.
inline Kernel kloop_dot_f32() { return kernel("kloop_dot_f32", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * 64;
            auto a = cast<f32>(A[coord(m0, k0), shape(m, k)]);
            auto b = cast<f32>(B[coord(k0, n0), shape(k, n)]);
            acc = acc + dot(a, b);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// The operands widened to f32 before an f32 mma (a port of code that multiplies in
// f32), with reassociation allowed (mma's default), 128x128x64.
inline Kernel kloop_mma_widened() { return kernel("kloop_mma_widened", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt))) {
            auto k0 = step.index() * 64;
            acc = mma(cast<f32>(A[coord(m0, k0), shape(m, k)]), cast<f32>(B[coord(k0, n0), shape(k, n)]), acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// acc = acc + mma(a, b, 0): each k tile's product formed from zero, then added.
inline Kernel kloop_mma_add() { return kernel("kloop_mma_add", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = acc + mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], zeros<f32>(shape(m, n)));
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Pipeline with default options (no window given).
inline Kernel kloop_pipeline_default() { return kernel("kloop_pipeline_default", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt))) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// i8 x i8 -> i32.
inline Kernel i8_i32() { return kernel("i8_i32", [](View<const i8, 2> A, View<const i8, 2> B, View<i32, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<i32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// i8 x i8 -> i32 as a quantised linear layer: X [M, K] against W [N, K] (both
// K-major, as wgmma reads 8-bit operands), the sum stored as it is.
inline Kernel i8_linear() { return kernel("i8_linear", [](View<const i8, 2> X, View<const i8, 2> W, View<i32, 2> Y) {
    auto gm = axis("gm", ceil_div(X.extent(0), 128)), gn = axis("gn", ceil_div(W.extent(0), 128));
    auto kt = axis("kt", ceil_div(X.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<i32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc);
        }
        Y(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// W8A8 dequantisation (SmoothQuant's linear layer): the i32 sum times a per-row
// (token) scale and a per-column (channel) scale, plus a bias, stored as bf16;
// 64 x 256 x 128 tiles, `acc += mma(x, w, 0)` as Triton writes it.
inline Kernel i8_dequant() { return kernel("i8_dequant", [](View<const i8, 2> X, View<const i8, 2> W, View<const f32, 1> x_scale,
                                                            View<const f32, 1> w_scale, View<const bf16, 1> bias, View<bf16, 2> Y) {
    constexpr std::int64_t BM = 64, BN = 256, BK = 128;
    auto gm = axis("gm", ceil_div(X.extent(0), BM)), gn = axis("gn", ceil_div(W.extent(0), BN));
    auto kt = axis("kt", ceil_div(X.extent(1), BK));
    auto m = axis("m", BM), n = axis("n", BN), k = axis("k", BK);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * BM, n0 = nest.index(gn) * BN;
        auto acc = zeros<i32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * BK;
            acc = acc + mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], zeros<i32>(shape(m, n)));
        }
        auto scaled = cast<f32>(acc) * x_scale[coord(m0), shape(m)] * w_scale[coord(n0), shape(n)];
        Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(scaled + cast<f32>(bias[coord(n0), shape(n)])));
    }
}); }

// i8 C += X W^T: the i32 accumulator starts from the C tile (read and written), a
// 64 x 128 tile with a 32-wide k step (the kernel's is 128 bytes).
inline Kernel i8_acc_from_c() { return kernel("i8_acc_from_c", [](View<const i8, 2> X, View<const i8, 2> W, View<i32, 2> C) {
    auto gm = axis("gm", ceil_div(X.extent(0), 64)), gn = axis("gn", ceil_div(W.extent(0), 128)), kt = axis("kt", ceil_div(X.extent(1), 32));
    auto m = axis("m", 64), n = axis("n", 128), k = axis("k", 32);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 64, n0 = nest.index(gn) * 128;
        auto acc = C[coord(m0, n0), shape(m, n)];
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * 32;
            acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// An int8 linear layer over a batch of sequences: X [batch, M, K] against one weight
// W [N, K], the sum times a per-channel scale stored f32.
inline Kernel i8_batched() { return kernel("i8_batched", [](View<const i8, 3> X, View<const i8, 2> W, View<const f32, 1> scale, View<f32, 3> Y) {
    auto gb = axis("batch", X.extent(0));
    auto gm = axis("gm", ceil_div(X.extent(1), 128)), gn = axis("gn", ceil_div(W.extent(0), 128)), kt = axis("kt", ceil_div(X.extent(2), 128));
    auto one = axis("one", 1), m = axis("m", 128), n = axis("n", 128), k = axis("k", 128);
    for (auto& nest : parallel(shape(gb, gm, gn))) {
        auto b = nest.index(gb), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<i32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 128;
            acc = mma(reshape(X[coord(b, m0, k0), shape(one, m, k)], shape(m, k)), W[coord(n0, k0), shape(n, k)], acc);
        }
        Y(coord(b, m0, n0), shape(one, m, n)).store(reshape(cast<f32>(acc) * scale[coord(n0), shape(n)], shape(one, m, n)));
    }
}); }

// i8 with both operands stored k outermost: At [K, M], B [K, N] (wgmma reads 8-bit
// operands K-major only: both are copied transposed at each launch), 64x128x64 tiles.
inline Kernel i8_kouter() { return kernel("i8_kouter", [](View<const i8, 2> At, View<const i8, 2> B, View<i32, 2> C) {
    auto M = At.extent(1), K = At.extent(0), N = B.extent(1);
    auto gm = axis("gm", ceil_div(M, 64)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 64));
    auto m = axis("m", 64), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 64, n0 = nest.index(gn) * 128;
        auto acc = zeros<i32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(At[coord(k0, m0), shape(k, m)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// A batch of i8 products with B [batch, K, N] (each matrix copied transposed) and a
// dequantising epilogue, 128x128x128 tiles.
inline Kernel i8_bmm_kn() { return kernel("i8_bmm_kn", [](View<const i8, 3> X, View<const i8, 3> B, View<const f32, 1> scale, View<f32, 3> Y) {
    auto gb = axis("batch", X.extent(0));
    auto gm = axis("gm", ceil_div(X.extent(1), 128)), gn = axis("gn", ceil_div(B.extent(2), 128)), kt = axis("kt", ceil_div(X.extent(2), 128));
    auto one = axis("one", 1), m = axis("m", 128), n = axis("n", 128), k = axis("k", 128);
    for (auto& nest : parallel(shape(gb, gm, gn))) {
        auto b = nest.index(gb), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<i32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 128;
            acc = mma(reshape(X[coord(b, m0, k0), shape(one, m, k)], shape(m, k)), reshape(B[coord(b, k0, n0), shape(one, k, n)], shape(k, n)), acc);
        }
        Y(coord(b, m0, n0), shape(one, m, n)).store(reshape(cast<f32>(acc) * scale[coord(n0), shape(n)], shape(one, m, n)));
    }
}); }

// f32 operands with allow_tf32 (wgmma k8 tf32): C = A B as a plain f32 GEMM is written,
// B [K, N] copied transposed at each launch, 128x128x32 tiles.
inline Kernel tf32_plain() { return kernel("tf32_plain", [](View<const f32, 2> A, View<const f32, 2> B, View<f32, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 32));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 32);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 32;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc, MmaOptions{.allow_tf32 = true});
        }
        C(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// tf32 as a linear layer: Y = X W^T, W [N, K] read in place, a bias and ReLU
// epilogue into bf16, 128x256x64 tiles.
inline Kernel tf32_linear() { return kernel("tf32_linear", [](View<const f32, 2> X, View<const f32, 2> W, View<const f32, 1> bias, View<bf16, 2> Y) {
    auto gm = axis("gm", ceil_div(X.extent(0), 128)), gn = axis("gn", ceil_div(W.extent(0), 256)), kt = axis("kt", ceil_div(X.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 256), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 256;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt))) {
            auto k0 = step.index() * 64;
            acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc, MmaOptions{.allow_tf32 = true});
        }
        Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(max(acc + bias[coord(n0), shape(n)], 0.0f)));
    }
}); }

// tf32 with A stored [K, M] (copied transposed) and B [N, K] (in place), 64x128x32 tiles.
inline Kernel tf32_at_bt() { return kernel("tf32_at_bt", [](View<const f32, 2> At, View<const f32, 2> Bt, View<f32, 2> C) {
    auto M = At.extent(1), K = At.extent(0), N = Bt.extent(0);
    auto gm = axis("gm", ceil_div(M, 64)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 32));
    auto m = axis("m", 64), n = axis("n", 128), k = axis("k", 32);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 64, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt))) {
            auto k0 = step.index() * 32;
            acc = mma(At[coord(k0, m0), shape(k, m)], Bt[coord(n0, k0), shape(n, k)], acc, MmaOptions{.allow_tf32 = true});
        }
        C(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// ---------------------------------------------------------------- epilogues
// Common prologue for the epilogue variants: 128x128x64 tiles, pipeline window 3.
#define GEMM_HEAD(A, B)                                                                              \
    constexpr std::int64_t BM = 128, BN = 128, BK = 64;                                              \
    auto gm = axis("gm", ceil_div(A.extent(0), BM)), gn = axis("gn", ceil_div(B.extent(1), BN));     \
    auto kt = axis("kt", ceil_div(A.extent(1), BK));                                                 \
    auto m = axis("m", BM), n = axis("n", BN), k = axis("k", BK);                                    \
    for (auto& nest : parallel(shape(gm, gn))) {                                                     \
        auto m0 = nest.index(gm) * BM, n0 = nest.index(gn) * BN;                                     \
        auto acc = zeros<f32>(shape(m, n));                                                          \
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {                                 \
            auto k0 = step.index() * BK;                                                             \
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);            \
        }
#define GEMM_TAIL }

// bias along N (per output column), f32 bias vector.
inline Kernel bias_n() { return kernel("bias_n", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 1> bias, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto out = acc + bias[coord(n0), shape(n)];
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(out));
    GEMM_TAIL
}); }

// bias along M (per output row), bf16 vector.
inline Kernel bias_m() { return kernel("bias_m", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto out = acc + cast<f32>(bias[coord(m0), shape(m)]);
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(out));
    GEMM_TAIL
}); }

// bias stored [1, N] (PyTorch's broadcastable bias), read as a [1, n] tile whose
// unit dim is anonymous: it broadcasts over the tile's rows.
inline Kernel bias_row_2d() { return kernel("bias_row_2d", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 2> bias, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto one = axis("one", 1);
    auto out = acc + bias[coord(0, n0), shape(one, n)];
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(out));
    GEMM_TAIL
}); }

// per-row scale stored [M, 1], read as an [m, 1] tile.
inline Kernel scale_col_2d() { return kernel("scale_col_2d", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 2> scale, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto one = axis("one", 1);
    auto out = acc * scale[coord(m0, 0), shape(m, one)];
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(out));
    GEMM_TAIL
}); }

// A per-tensor dequantisation scale read from memory (as fp8/int8 recipes keep it on
// the device), a one-element tile on a named unit axis.
inline Kernel scale_from_memory() { return kernel("scale_from_memory", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 1> scale, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto one = axis("one", 1);
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc * scale[coord(0), shape(one)]));
    GEMM_TAIL
}); }

// Triton's store mask ported literally: the output's rows and columns from the block
// origins and iota, the tile zeroed outside [M, N] before a store that drops it anyway.
inline Kernel epi_iota_mask() { return kernel("epi_iota_mask", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto inside = (iota(m) + m0 < C.extent(0)) && (iota(n) + n0 < C.extent(1));
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(ite(inside, acc, 0.0f)));
    GEMM_TAIL
}); }

// An epilogue by output position: the lower triangle kept (a causal score matrix as a GEMM).
inline Kernel epi_lower_triangle() { return kernel("epi_lower_triangle", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto row = iota(m) + m0, col = iota(n) + n0;
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(ite(row >= col, acc, 0.0f)));
    GEMM_TAIL
}); }

// The same with the comparison's operands the other way round: col <= row is a tile
// over [n, m] (broadcasts follow the first operand's axes), which the matcher does not
// take yet.
inline Kernel epi_lower_triangle_nm() { return kernel("epi_lower_triangle_nm", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto row = iota(m) + m0, col = iota(n) + n0;
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(ite(col <= row, acc, 0.0f)));
    GEMM_TAIL
}); }

// The bias written first: bias + acc, the vector's axis leading.
inline Kernel bias_first() { return kernel("bias_first", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 1> bias, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(bias[coord(n0), shape(n)] + acc));
    GEMM_TAIL
}); }

// Seed 000's block matmul: anonymous 128x128 tiles, k steps of 64, acc + dot(a, b).
#define SEED_GEMM_HEAD(A, B)                                                                                           \
    constexpr std::int64_t BM = 128, BN = 128, BK = 64;                                                                \
    auto gm = axis("gm", ceil_div(A.extent(0), BM)), gn = axis("gn", ceil_div(B.extent(1), BN));                       \
    auto kt = axis("kt", ceil_div(A.extent(1), BK));                                                                   \
    for (auto& nest : parallel(shape(gm, gn))) {                                                                       \
        auto m0 = nest.index(gm) * BM, n0 = nest.index(gn) * BN;                                                       \
        auto acc = zeros<f32>(shape(BM, BN));                                                                          \
        for (auto& step : nest.serial(shape(kt))) {                                                                    \
            auto k0 = step.index() * BK;                                                                               \
            acc = acc + dot(cast<f32>(A[coord(m0, k0), shape(BM, BK)]), cast<f32>(B[coord(k0, n0), shape(BK, BN)])); \
        }

// Seed 000's style throughout: anonymous 2-D tiles, acc + dot(a, b), a [1, N] bias
// added by broadcast_cols and a ReLU by map.
inline Kernel seed_bias_relu() { return kernel("seed_bias_relu", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 2> bias, View<bf16, 2> C) {
    SEED_GEMM_HEAD(A, B)
        auto biased = broadcast_cols(acc, bias[coord(0, n0), shape(1, BN)], [](auto x, auto b) { return x + b; });
        auto out = map(biased, [](auto x) { return max(x, 0.0f); });
        C(coord(m0, n0), shape(BM, BN)).store(cast<bf16>(out));
    GEMM_TAIL
}); }

// Seed 000's style with a per-row [M, 1] scale by broadcast_rows.
inline Kernel seed_row_scale() { return kernel("seed_row_scale", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 2> scale, View<bf16, 2> C) {
    SEED_GEMM_HEAD(A, B)
        auto scaled = broadcast_rows(acc, scale[coord(m0, 0), shape(BM, 1)], [](auto x, auto s) { return x * s; });
        C(coord(m0, n0), shape(BM, BN)).store(cast<bf16>(scaled));
    GEMM_TAIL
}); }

// A vector loaded at the n origin but along m (square tiles let it fit either way):
// out(r, c) = acc + bias[n0 + r - m0]. The Hopper kernel reads its column vectors at c,
// so this one must stay on the generic kernel (and be right there).
inline Kernel vector_crossed() { return kernel("vector_crossed", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 1> bias, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto out = acc + bias[coord(n0), shape(m)];
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(out));
    GEMM_TAIL
}); }

// D = alpha * A B + beta * C (BLAS gemm), scalars as kernel parameters.
inline Kernel alpha_beta() { return kernel("alpha_beta", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 2> Cin, View<bf16, 2> D,
                                            Scalar<f32> alpha, Scalar<f32> beta) {
    GEMM_HEAD(A, B)
    auto c = cast<f32>(Cin[coord(m0, n0), shape(m, n)]);
    D(coord(m0, n0), shape(m, n)).store(cast<bf16>(alpha * acc + beta * c));
    GEMM_TAIL
}); }

// gelu (tanh form, kiln's std::gelu) after bias.
inline Kernel gelu_tanh() { return kernel("gelu_tanh", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto x = acc + cast<f32>(bias[coord(n0), shape(n)]);
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(gelu(x)));
    GEMM_TAIL
}); }

// exact gelu (erf form), no bias.
inline Kernel gelu_erf() { return kernel("gelu_erf", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(kiln::gelu_erf(acc)));
    GEMM_TAIL
}); }

// silu written by hand: x * sigmoid(x) = x / (1 + exp(-x)).
inline Kernel silu() { return kernel("silu", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    auto y = acc / (1.0f + exp(-acc));
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(y));
    GEMM_TAIL
}); }

// relu via max(x, 0).
inline Kernel relu() { return kernel("relu", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(max(acc, 0.0f)));
    GEMM_TAIL
}); }

// residual matrix add.
inline Kernel residual() { return kernel("residual", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 2> R, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc + cast<f32>(R[coord(m0, n0), shape(m, n)])));
    GEMM_TAIL
}); }

// two outputs: the pre-activation (kept for backward) and gelu of it.
inline Kernel two_outputs() { return kernel("two_outputs", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias,
                                              View<bf16, 2> pre, View<bf16, 2> post) {
    GEMM_HEAD(A, B)
    auto x = acc + cast<f32>(bias[coord(n0), shape(n)]);
    pre(coord(m0, n0), shape(m, n)).store(cast<bf16>(x));
    post(coord(m0, n0), shape(m, n)).store(cast<bf16>(gelu(x)));
    GEMM_TAIL
}); }

// per-token (row) quant scale, f32 vector along M, multiplied after accumulation.
inline Kernel row_scale() { return kernel("row_scale", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 1> scale, View<bf16, 2> C) {
    GEMM_HEAD(A, B)
    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc * scale[coord(m0), shape(m)]));
    GEMM_TAIL
}); }

// per-channel (column) scale, f32 output.
inline Kernel col_scale_f32() { return kernel("col_scale_f32", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 1> scale, View<f32, 2> C) {
    GEMM_HEAD(A, B)
    C(coord(m0, n0), shape(m, n)).store(acc * scale[coord(n0), shape(n)]);
    GEMM_TAIL
}); }

// C += A B: the accumulator starts from the loaded C tile (f32 C, read and written).
inline Kernel acc_from_c() { return kernel("acc_from_c", [](View<const bf16, 2> A, View<const bf16, 2> B, View<f32, 2> C) {
    constexpr std::int64_t BM = 128, BN = 128, BK = 64;
    auto gm = axis("gm", ceil_div(A.extent(0), BM)), gn = axis("gn", ceil_div(B.extent(1), BN));
    auto kt = axis("kt", ceil_div(A.extent(1), BK));
    auto m = axis("m", BM), n = axis("n", BN), k = axis("k", BK);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * BM, n0 = nest.index(gn) * BN;
        auto acc = C[coord(m0, n0), shape(m, n)];
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * BK;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(acc);
    }
}); }

// ---------------------------------------------------------------- layouts and ragged shapes
// A stored transposed, [K, M]; tile loaded as (k, m) and contracted by axis identity.
inline Kernel a_trans() { return kernel("a_trans", [](View<const bf16, 2> At, View<const bf16, 2> B, View<bf16, 2> C) {
    auto M = At.extent(1), K = At.extent(0), N = B.extent(1);
    auto gm = axis("gm", ceil_div(M, 128)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(At[coord(k0, m0), shape(k, m)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// A stored [K, M], the tile transposed explicitly with transpose() before mma.
inline Kernel a_trans_op() { return kernel("a_trans_op", [](View<const bf16, 2> At, View<const bf16, 2> B, View<bf16, 2> C) {
    auto M = At.extent(1), K = At.extent(0), N = B.extent(1);
    auto gm = axis("gm", ceil_div(M, 128)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            auto a = transpose(At[coord(k0, m0), shape(k, m)]);
            acc = mma(a, B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Y = X W^T, W stored [N, K] (nn.Linear), 128x256x64.
inline Kernel linear_bnk() { return kernel("linear_bnk", [](View<const bf16, 2> X, View<const bf16, 2> W, View<bf16, 2> Y) {
    auto gm = axis("gm", ceil_div(X.extent(0), 128)), gn = axis("gn", ceil_div(W.extent(0), 256)), kt = axis("kt", ceil_div(X.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 256), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 256;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc);
        }
        Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Both transposed: At [K, M], Bt [N, K].
inline Kernel both_trans() { return kernel("both_trans", [](View<const bf16, 2> At, View<const bf16, 2> Bt, View<bf16, 2> C) {
    auto M = At.extent(1), K = At.extent(0), N = Bt.extent(0);
    auto gm = axis("gm", ceil_div(M, 128)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(At[coord(k0, m0), shape(k, m)], Bt[coord(n0, k0), shape(n, k)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Batched GEMM over 3-D views [batch, M, K] x [batch, K, N], batch in the grid.
inline Kernel batched() { return kernel("batched", [](View<const bf16, 3> A, View<const bf16, 3> B, View<bf16, 3> C) {
    auto gb = axis("batch", A.extent(0));
    auto gm = axis("gm", ceil_div(A.extent(1), 128)), gn = axis("gn", ceil_div(B.extent(2), 128)), kt = axis("kt", ceil_div(A.extent(2), 64));
    auto one = axis("one", 1), m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gb, gm, gn))) {
        auto b0 = nest.index(gb), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            auto a = reshape(A[coord(b0, m0, k0), shape(one, m, k)], shape(m, k));
            auto b = reshape(B[coord(b0, k0, n0), shape(one, k, n)], shape(k, n));
            acc = mma(a, b, acc);
        }
        C(coord(b0, m0, n0), shape(one, m, n)).store(reshape(cast<bf16>(acc), shape(one, m, n)));
    }
}); }

// Ragged: plain kernel, relying on out-of-range loads reading 0 and stores being dropped.
inline Kernel ragged() { return kernel("ragged", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    const std::int64_t M = 0;  // (unused; extents come from the views)
    (void)M;
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 256)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 256), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 256;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 4})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Ragged with the fallback spelled out: (...).load(0.0f) on bf16 views.
inline Kernel ragged_fallback() { return kernel("ragged_fallback", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            auto a = A(coord(m0, k0), shape(m, k)).load(0.0f);
            auto b = B(coord(k0, n0), shape(k, n)).load(0.0f);
            acc = mma(a, b, acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Decode-leaning: 64-row M tile, 64x128x64, X W^T.
inline Kernel decode64() { return kernel("decode64", [](View<const bf16, 2> X, View<const bf16, 2> W, View<bf16, 2> Y) {
    auto gm = axis("gm", ceil_div(X.extent(0), 64)), gn = axis("gn", ceil_div(W.extent(0), 128)), kt = axis("kt", ceil_div(X.extent(1), 64));
    auto m = axis("m", 64), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 64, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 4})) {
            auto k0 = step.index() * 64;
            acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc);
        }
        Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// A transformer MLP up-projection: gelu(X W^T + b) + residual, W [N, K].
inline Kernel linear_bias_gelu_res() { return kernel("linear_bias_gelu_res", [](View<const bf16, 2> X, View<const bf16, 2> W, View<const bf16, 1> b,
                                                                View<const bf16, 2> R, View<bf16, 2> Y) {
    auto gm = axis("gm", ceil_div(X.extent(0), 128)), gn = axis("gn", ceil_div(W.extent(0), 128)), kt = axis("kt", ceil_div(X.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * 64;
            acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc);
        }
        auto h = gelu(acc + cast<f32>(b[coord(n0), shape(n)]));
        Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(h + cast<f32>(R[coord(m0, n0), shape(m, n)])));
    }
}); }

// Triton-style explicit masks (ite over iota) on the loads for ragged shapes.
inline Kernel ragged_mask() { return kernel("ragged_mask", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto M = A.extent(0), K = A.extent(1), N = B.extent(1);
    auto gm = axis("gm", ceil_div(M, 128)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            auto ka = iota(k) + k0;
            auto a = ite(ka < K, A[coord(m0, k0), shape(m, k)], zeros<bf16>(shape(m, k)));
            auto b = ite(ka < K, B[coord(k0, n0), shape(k, n)], zeros<bf16>(shape(k, n)));
            acc = mma(a, b, acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// ---------------------------------------------------------------- more tiles, batches, grids, accumulator starts
// Another user's tile-size-parametrised GEMM: as plain(), with the k loop a serial nest.
inline Kernel plain2(const char* name, std::int64_t BM, std::int64_t BN, std::int64_t BK) {
    return kernel(name, [=](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto gm = axis("gm", ceil_div(A.extent(0), BM)), gn = axis("gn", ceil_div(B.extent(1), BN)), gk = axis("gk", ceil_div(A.extent(1), BK));
        auto m = axis("m", BM), n = axis("n", BN), k = axis("k", BK);
        for (auto& pid : parallel(shape(gm, gn))) {
            auto row = pid.index(gm) * BM, col = pid.index(gn) * BN;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& it : pid.serial(shape(gk))) {
                auto kk = it.index() * BK;
                acc = mma(A[coord(row, kk), shape(m, k)], B[coord(kk, col), shape(k, n)], acc);
            }
            C(coord(row, col), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

// plain2(): 128x192x64 tiles (an n tile not a power of two).
inline Kernel t128x192x64() { return plain2("t128x192x64", 128, 192, 64); }
// plain2(): 128x128x128 tiles (a deep k tile).
inline Kernel t128x128x128() { return plain2("t128x128x128", 128, 128, 128); }
// plain2(): 32x32x32 tiles (tiny).
inline Kernel t32x32x32() { return plain2("t32x32x32", 32, 32, 32); }
// plain2(): 128x64x64 tiles (narrow).
inline Kernel t128x64x64() { return plain2("t128x64x64", 128, 64, 64); }

// Batch in a 3-D grid, but the views are 2-D ([batch*M, K], [batch*K, N], [batch*M, N]) with per-batch offsets.
inline Kernel batched_flat() { return kernel("batched_flat", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto batch = B.extent(0) / A.extent(1);  // B is [batch*K, N]
    auto M = C.extent(0) / batch, N = C.extent(1), K = A.extent(1);
    auto gb = axis("batch", batch), gm = axis("gm", ceil_div(M, 128)), gn = axis("gn", ceil_div(N, 128)), kt = axis("kt", ceil_div(K, 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gb, gm, gn))) {
        auto b0 = nest.index(gb);
        auto m0 = b0 * M + nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(b0 * K + k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Output stored transposed: Ct [N, M] (the store accepts the same axes in another order).
inline Kernel store_transposed() { return kernel("store_transposed", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> Ct) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        Ct(coord(n0, m0), shape(n, m)).store(cast<bf16>(acc));
    }
}); }

// Bias folded into the accumulator's start: acc = bias broadcast, then the K loop.
inline Kernel acc_init_bias() { return kernel("acc_init_bias", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const f32, 1> bias, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n)) + bias[coord(n0), shape(n)];
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Fused gate/up projection (SwiGLU MLP): silu(X Wg^T) * (X Wu^T), two accumulators in one k loop.
inline Kernel swiglu_dual() { return kernel("swiglu_dual", [](View<const bf16, 2> X, View<const bf16, 2> Wg, View<const bf16, 2> Wu, View<bf16, 2> Y) {
    auto gm = axis("gm", ceil_div(X.extent(0), 128)), gn = axis("gn", ceil_div(Wg.extent(0), 128)), kt = axis("kt", ceil_div(X.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto g = zeros<f32>(shape(m, n)), u = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            auto x = X[coord(m0, k0), shape(m, k)];
            g = mma(x, Wg[coord(n0, k0), shape(n, k)], g);
            u = mma(x, Wu[coord(n0, k0), shape(n, k)], u);
        }
        Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(g / (1.0f + exp(-g)) * u));
    }
}); }

// Explicit MmaOptions (a user copying the docs' signature), tf32 off, reassociation on.
inline Kernel mma_options() { return kernel("mma_options", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc, MmaOptions{.allow_reassociation = true, .allow_tf32 = false});
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Grid axes in the other order (gn outer, gm inner), as a user wanting column-major raster might write.
inline Kernel grid_nm() { return kernel("grid_nm", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gn, gm))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// One flat grid axis over all tiles (Triton's pid -> (pid_m, pid_n) decomposition).
inline Kernel grid_flat() { return kernel("grid_flat", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto tiles_n = ceil_div(B.extent(1), 128);
    auto g = axis("tiles", ceil_div(A.extent(0), 128) * tiles_n), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(g))) {
        auto pid = nest.index();
        auto m0 = (pid / tiles_n) * 128, n0 = (pid % tiles_n) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Triton's matmul tutorial as ported: a 1-D grid whose pid visits the tiles in
// groups of GROUP_M rows of blocks (for L2 reuse), the last group shorter.
inline Kernel grid_grouped() { return kernel("grid_grouped", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    constexpr std::int64_t BM = 128, BN = 128, BK = 64, GROUP_M = 8;
    auto num_pid_m = ceil_div(A.extent(0), BM), num_pid_n = ceil_div(B.extent(1), BN);
    auto g = axis("pid", num_pid_m * num_pid_n), kt = axis("kt", ceil_div(A.extent(1), BK));
    auto m = axis("m", BM), n = axis("n", BN), k = axis("k", BK);
    for (auto& nest : parallel(shape(g))) {
        auto pid = nest.index();
        auto num_pid_in_group = GROUP_M * num_pid_n;
        auto group_id = pid / num_pid_in_group;
        auto first_pid_m = group_id * GROUP_M;
        auto group_size_m = min(num_pid_m - first_pid_m, GROUP_M);
        auto pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m;
        auto pid_n = (pid % num_pid_in_group) / group_size_m;
        auto m0 = pid_m * BM, n0 = pid_n * BN;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * BK;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// No k loop: the whole (small) K in one tile, one mma from zeros.
inline Kernel kloop_none() { return kernel("kloop_none", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", A.extent(1));
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = mma(A[coord(m0, 0), shape(m, k)], B[coord(0, n0), shape(k, n)], zeros<f32>(shape(m, n)));
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// Output plus a per-row absolute maximum of the tile (fp8 quantisation's amax), one amax per (row, n-block).
inline Kernel epi_rowmax() { return kernel("epi_rowmax", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C, View<f32, 2> amax) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64), one = axis("one", 1);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        amax(coord(m0, nest.index(gn)), shape(m, one)).store(reshape(reduce(abs(acc), n, maximum), shape(m, one)));
    }
}); }

// ---------------------------------------------------------------- writable operands, static k, bf16 epilogue, split k
// Operands declared writable (const forgotten), acc from full(0.0f).
inline Kernel nonconst_full0() { return kernel("nonconst_full0", [](View<bf16, 2> A, View<bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = full<f32>(shape(m, n), 0.0f);
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// K taken with static_extent (specialised), k loop bound K / 64 (user assumes divisibility).
inline Kernel static_k() { return kernel("static_k", [](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto kt = axis("kt", A.static_extent(1) / 64);
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
    }
}); }

// bf16 epilogue arithmetic: cast first, then add a bf16 bias and clamp in bf16.
inline Kernel bf16_epilogue() { return kernel("bf16_epilogue", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias, View<bf16, 2> C) {
    auto gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128)), kt = axis("kt", ceil_div(A.extent(1), 64));
    auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn))) {
        auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        auto y = cast<bf16>(acc) + bias[coord(n0), shape(n)];
        C(coord(m0, n0), shape(m, n)).store(min(max(y, -4.0), 4.0));
    }
}); }

// Manual split-K: a third grid axis over K ranges, f32 partials [split, M, N] summed by a later launch.
inline Kernel split_k() { return kernel("split_k", [](View<const bf16, 2> A, View<const bf16, 2> B, View<f32, 3> P) {
    auto S = P.extent(0);
    auto gs = axis("split", S), gm = axis("gm", ceil_div(A.extent(0), 128)), gn = axis("gn", ceil_div(B.extent(1), 128));
    auto per = ceil_div(ceil_div(A.extent(1), 64), S);
    auto kt = axis("kt", per);
    auto one = axis("one", 1), m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gs, gm, gn))) {
        auto s = nest.index(gs), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = (s * per + step.index()) * 64;
            acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
        }
        P(coord(s, m0, n0), shape(one, m, n)).store(reshape(acc, shape(one, m, n)));
    }
}); }

// ---------------------------------------------------------------- batches (session 25, written beside the batched kernel)

// A linear layer over a batch of sequences: X [batch, M, K] against one weight W [N, K]
// (2-D, shared by every batch), a bias and a ReLU.
inline Kernel batched_shared_weight() { return kernel("batched_shared_weight", [](View<const bf16, 3> X, View<const bf16, 2> W, View<const f32, 1> bias, View<bf16, 3> Y) {
    auto gb = axis("batch", X.extent(0));
    auto gm = axis("gm", ceil_div(X.extent(1), 128)), gn = axis("gn", ceil_div(W.extent(0), 128)), kt = axis("kt", ceil_div(X.extent(2), 64));
    auto one = axis("one", 1), m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gb, gm, gn))) {
        auto b = nest.index(gb), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            acc = mma(reshape(X[coord(b, m0, k0), shape(one, m, k)], shape(m, k)), W[coord(n0, k0), shape(n, k)], acc);
        }
        auto y = max(acc + bias[coord(n0), shape(n)], 0.0f);
        Y(coord(b, m0, n0), shape(one, m, n)).store(reshape(cast<bf16>(y), shape(one, m, n)));
    }
}); }

// Attention scores per (batch, head): S = Q K^T * scale over 4-D views [batch, head, seq, d],
// K read K-major, f32 scores; the grid's batch axes first.
inline Kernel batched_heads_4d() { return kernel("batched_heads_4d", [](View<const bf16, 4> Q, View<const bf16, 4> K, View<f32, 4> S) {
    auto gb = axis("batch", Q.extent(0)), gh = axis("head", Q.extent(1));
    auto gm = axis("gm", ceil_div(Q.extent(2), 128)), gn = axis("gn", ceil_div(K.extent(2), 128)), kt = axis("kt", ceil_div(Q.extent(3), 64));
    auto one = axis("one", 1), one2 = axis("one2", 1), m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gb, gh, gm, gn))) {
        auto b = nest.index(gb), h = nest.index(gh), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.serial(shape(kt))) {
            auto k0 = step.index() * 64;
            auto q = reshape(Q[coord(b, h, m0, k0), shape(one, one2, m, k)], shape(m, k));
            auto kk = reshape(K[coord(b, h, n0, k0), shape(one, one2, n, k)], shape(n, k));
            acc = mma(q, kk, acc);
        }
        S(coord(b, h, m0, n0), shape(one, one2, m, n)).store(reshape(acc * 0.125f, shape(one, one2, m, n)));
    }
}); }

// Grouped heads: A [batch, heads, M, K] against B [batch, heads / group, K, N] (a head
// group shares B, at h / group), the batch axes last in the grid.
inline Kernel batched_grouped() { return kernel("batched_grouped", [](View<const bf16, 4> A, View<const bf16, 4> B, View<bf16, 4> C) {
    auto group = A.extent(1) / B.extent(1);
    auto gm = axis("gm", ceil_div(A.extent(2), 128)), gn = axis("gn", ceil_div(B.extent(3), 128)), kt = axis("kt", ceil_div(A.extent(3), 64));
    auto gb = axis("batch", A.extent(0)), gh = axis("head", A.extent(1));
    auto one = axis("one", 1), one2 = axis("one2", 1), m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
    for (auto& nest : parallel(shape(gm, gn, gb, gh))) {
        auto b = nest.index(gb), h = nest.index(gh), m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
        auto acc = zeros<f32>(shape(m, n));
        for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
            auto k0 = step.index() * 64;
            auto a = reshape(A[coord(b, h, m0, k0), shape(one, one2, m, k)], shape(m, k));
            auto bb = reshape(B[coord(b, h / group, k0, n0), shape(one, one2, k, n)], shape(k, n));
            acc = mma(a, bb, acc);
        }
        C(coord(b, h, m0, n0), shape(one, one2, m, n)).store(reshape(cast<bf16>(acc), shape(one, one2, m, n)));
    }
}); }

#undef GEMM_HEAD
#undef GEMM_TAIL

}  // namespace kiln::variants::gemm
