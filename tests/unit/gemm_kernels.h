// GEMM kernels written as users write them (bf16 in, f32 accumulate), with B
// stored [K, N] or [N, K] and a range of epilogues: shared by the matcher's
// tests, the NVRTC compile tests and the device tests of the Hopper GEMM.
#pragma once

#include <string>

#include <kiln/kiln.h>

namespace kiln::gemm_test {

// start_from_residual: C = A B + R written as C += A B, the accumulator starting from R.
// masked_operands: C = A B with each operand's load masked by k < K as Triton ports write it.
enum class Epilogue {
    plain,
    bias_relu,
    residual_scale,
    two_outputs,
    row_scale,
    reduction,
    wrong_origin,
    scalar_of_index,
    start_from_residual,
    masked_operands
};

// C = cast<bf16>(A B + shift) at a bm x bn x bk tile, B [K, N]: the plain GEMM (shift
// 0), or with a constant of the caller's that makes its source one of a kind.
inline Kernel plain_gemm(const std::string& name, std::int64_t bm, std::int64_t bn, std::int64_t bk, float shift = 0.0f) {
    return kernel(name, [=](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm)), gn = axis("block_n", ceil_div(B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 2})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            if (shift == 0.0f) C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
            else C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc + shift));
        }
    });
}

// A bf16 GEMM written as a user writes one, with B either [K, N] or [N, K] (a
// linear layer's weight) and one of several epilogues.
inline Kernel gemm(Epilogue e, bool b_nk = false, std::int64_t bm = 128, std::int64_t bn = 128, std::int64_t bk = 64) {
    return kernel("gemm", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias, View<const bf16, 2> R,
                             View<bf16, 2> C, View<bf16, 2> D, Scalar<f32> alpha) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm));
        auto gn = axis("block_n", ceil_div(b_nk ? B.extent(0) : B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = e == Epilogue::start_from_residual ? cast<f32>(R[coord(m0, n0), shape(m, n)]) : zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                auto a = A[coord(m0, k0), shape(m, k)];
                auto b = b_nk ? B[coord(n0, k0), shape(n, k)] : B[coord(k0, n0), shape(k, n)];
                if (e == Epilogue::masked_operands) {
                    auto inside = iota(k) + k0 < A.extent(1);
                    acc = mma(ite(inside, a, 0.0f), ite(inside, b, 0.0f), acc);
                } else {
                    acc = mma(a, b, acc);
                }
            }
            switch (e) {
                case Epilogue::plain:
                case Epilogue::start_from_residual:
                case Epilogue::masked_operands: C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc)); break;
                case Epilogue::bias_relu: {
                    auto b = cast<f32>(bias[coord(n0), shape(n)]);
                    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(max(acc + b, 0.0f)));
                    break;
                }
                case Epilogue::residual_scale:
                    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc * alpha + cast<f32>(R[coord(m0, n0), shape(m, n)])));
                    break;
                case Epilogue::two_outputs: {
                    auto pre = acc + cast<f32>(bias[coord(n0), shape(n)]);
                    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(pre));
                    D(coord(m0, n0), shape(m, n)).store(cast<bf16>(max(pre, 0.0f)));
                    break;
                }
                case Epilogue::row_scale:
                    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc * cast<f32>(bias[coord(m0), shape(m)])));
                    break;
                case Epilogue::reduction:
                    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc - reduce(acc, n, maximum)));
                    break;
                case Epilogue::wrong_origin:
                    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc + cast<f32>(R[coord(m0, 0), shape(m, n)])));
                    break;
                case Epilogue::scalar_of_index:
                    C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc * cast<f32>(m0)));
                    break;
            }
        }
    });
}

// The plain GEMM on a 1-D grid over the tiles, as a Triton port numbers them: tile pid
// at m-block pid / tiles_n and n-block pid % tiles_n (row-major), or pid % tiles_m and
// pid / tiles_m (column-major); `extra` tiles past the whole rectangle (a grid that is
// not whole rows). The same parameters as gemm().
inline Kernel flat_gemm(bool row_major, std::int64_t extra = 0) {
    return kernel("flat_gemm", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1>, View<const bf16, 2>, View<bf16, 2> C,
                                   View<bf16, 2>, Scalar<f32>) {
        auto tiles_m = ceil_div(A.extent(0), 128), tiles_n = ceil_div(B.extent(1), 128);
        auto tiles = axis("tiles", tiles_m * tiles_n + extra), kt = axis("k_tiles", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
        for (auto& nest : parallel(shape(tiles))) {
            auto pid = nest.index();
            auto m0 = (row_major ? pid / tiles_n : pid % tiles_m) * 128, n0 = (row_major ? pid % tiles_n : pid / tiles_m) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * 64;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

// The plain GEMM on a 1-D grid whose pid visits the tiles in another order, as
// Triton ports write it. The same parameters as gemm().
enum class TileOrder {
    grouped,        // Triton's tutorial: groups of `group` rows of blocks, column-major inside a group
    reversed,       // pid from the last tile back, row-major
    repeats,        // pid % (tiles - 1): the last pid computes the first tile again, and the last tile is never computed
    one_too_many,   // row-major (written + 0 * pid, past the (pid / G, pid % G) form), the grid one pid longer than the tiles
};
inline Kernel mapped_gemm(TileOrder order, std::int64_t group = 8) {
    return kernel("mapped_gemm", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1>, View<const bf16, 2>, View<bf16, 2> C,
                                     View<bf16, 2>, Scalar<f32>) {
        auto num_pid_m = ceil_div(A.extent(0), 128), num_pid_n = ceil_div(B.extent(1), 128);
        auto tiles = axis("tiles", num_pid_m * num_pid_n + (order == TileOrder::one_too_many ? 1 : 0));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
        for (auto& nest : parallel(shape(tiles))) {
            auto pid = nest.index();
            auto pid_m = pid / num_pid_n, pid_n = pid % num_pid_n;
            switch (order) {
                case TileOrder::grouped: {
                    auto in_group = group * num_pid_n;
                    auto first_m = (pid / in_group) * group;
                    auto size_m = min(num_pid_m - first_m, group);
                    pid_m = first_m + (pid % in_group) % size_m;
                    pid_n = (pid % in_group) / size_m;
                    break;
                }
                case TileOrder::reversed: {
                    auto back = num_pid_m * num_pid_n - 1 - pid;
                    pid_m = back / num_pid_n;
                    pid_n = back % num_pid_n;
                    break;
                }
                case TileOrder::repeats: {
                    auto idx = pid % (num_pid_m * num_pid_n - 1);
                    pid_m = idx / num_pid_n;
                    pid_n = idx % num_pid_n;
                    break;
                }
                case TileOrder::one_too_many: {
                    pid_m = (pid / num_pid_n) + 0 * pid;
                    pid_n = (pid % num_pid_n) + 0 * pid;
                    break;
                }
            }
            auto m0 = pid_m * 128, n0 = pid_n * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * 64;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

// The plain GEMM with no k loop: the whole k range (the view's extent) in one tile,
// one mma from zeros in the nest. The same parameters as gemm().
inline Kernel single_step_gemm() {
    return kernel("single_step_gemm", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1>, View<const bf16, 2>, View<bf16, 2> C,
                                         View<bf16, 2>, Scalar<f32>) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 128)), gn = axis("block_n", ceil_div(B.extent(1), 128));
        auto m = axis("m", 128), n = axis("n", 128), k = axis("k", A.extent(1));
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = mma(A[coord(m0, 0), shape(m, k)], B[coord(0, n0), shape(k, n)], zeros<f32>(shape(m, n)));
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

}  // namespace kiln::gemm_test
