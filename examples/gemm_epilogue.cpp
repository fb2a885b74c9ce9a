// gemm_epilogue: C = relu(A B + bias[n] + residual) in bf16 with an f32 accumulator
// (issue 11's fused epilogue): a bias vector along the columns and a residual
// matrix are read in the epilogue, the sum is activated and cast once. Written as
// a user writes it, with 128x128x64 tiles and a pipelined K loop; on sm_90 it is
// lowered to the Hopper GEMM (TMA + wgmma) with the epilogue fused.
#include "catalog.h"
#include "typed_gemm.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("gemm_epilogue", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias,
                                       View<const bf16, 2> residual, View<bf16, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm));
        auto gn = axis("block_n", ceil_div(B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            auto pre = acc + cast<f32>(bias[coord(n0), shape(n)]) + cast<f32>(residual[coord(m0, n0), shape(m, n)]);
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(max(pre, 0.0f)));
        }
    });
}

Entry make_gemm_epilogue() {
    Entry e;
    e.name = "gemm_epilogue";
    e.description = "bf16 C = relu(A B + bias[n] + residual), f32 accumulation, epilogue fused";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 3>> shapes;  // M, N, K
        switch (size) {
            case Size::small: shapes = {{16, 16, 16}, {13, 10, 21}, {1, 33, 7}}; break;
            case Size::medium: shapes = {{128, 128, 64}, {100, 70, 45}, {257, 131, 129}}; break;
            case Size::large: shapes = {{2048, 2048, 2048}, {1000, 999, 517}, {64, 4096, 2048}}; break;
        }
        std::vector<Case> cases;
        for (auto [M, N, K] : shapes) {
            Case c;
            c.shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
            c.kernel = make_kernel(128, 128, 64);
            c.args = {input(Kind::BF16, {M, K}, uniform(seed, -1, 1)), input(Kind::BF16, {K, N}, uniform(seed + 1, -1, 1)),
                      input(Kind::BF16, {N}, uniform(seed + 2, -1, 1)), input(Kind::BF16, {M, N}, uniform(seed + 3, -2, 2)),
                      output(Kind::BF16, {M, N})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [M, N, K](const Case& in) {
                auto a = values(*in.args[0]), b = values(*in.args[1]), bias = values(*in.args[2]), r = values(*in.args[3]);
                std::vector<double> out(static_cast<std::size_t>(M * N));
                for (std::int64_t i = 0; i < M; ++i)
                    for (std::int64_t j = 0; j < N; ++j) {
                        double s = 0;
                        for (std::int64_t kk = 0; kk < K; ++kk) s += a[i * K + kk] * b[kk * N + j];
                        out[i * N + j] = std::max(s + bias[j] + r[i * N + j], 0.0);
                    }
                return std::vector<std::vector<double>>{out};
            };
            // The products' sums (tensor cores may truncate: two roundings per
            // addition), two f32 additions, relu (1-Lipschitz) and one bf16
            // rounding: about 3.9e-3 |C|. A bias taken along rows instead of
            // columns, or a residual dropped, is off by ~0.5 (hundreds of bounds).
            c.error_bound = [M, N, K](const Case& in) {
                auto sums = matrix_product(values(*in.args[0]), values(*in.args[1]), M, N, K, kTensorCoreRoundings * reduction_depth(K));
                auto bias = values(*in.args[2]), r = values(*in.args[3]);
                return Bounds{each_element(M * N, [&](std::int64_t i) {
                    return cast(max(sums[static_cast<std::size_t>(i)] + exact(bias[i % N]) + exact(r[i]), 0.0), Kind::BF16);
                })};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    e.tune_space = gemm_tile_space(128, 128, 64);
    e.tune_kernel = [](const Config& c) { return make_kernel(c["bm"], c["bn"], c["bk"]); };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_gemm_epilogue);

}  // namespace kiln::catalog
