// linear: Y = X W^T in bf16 with an f32 accumulator, the weight stored [N, K] as in
// every linear layer. mma contracts by the shared axis k, so the user loads W's
// tile as W[coord(n0, k0), shape(n, k)] and nothing is transposed in memory; on
// sm_90 the Hopper GEMM reads W K-major through TMA. Tiles 64x128x64 (one
// consumer warpgroup), as a decode-leaning user might pick.
#include "catalog.h"
#include "typed_gemm.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("linear", [=](View<const bf16, 2> X, View<const bf16, 2> W, View<bf16, 2> Y) {
        auto gm = axis("block_m", ceil_div(X.extent(0), bm));
        auto gn = axis("block_n", ceil_div(W.extent(0), bn));
        auto kt = axis("k_tiles", ceil_div(X.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 4})) {
                auto k0 = step.index() * bk;
                acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc);
            }
            Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

Entry make_linear() {
    Entry e;
    e.name = "linear";
    e.description = "bf16 Y = X W^T with W stored [N, K], f32 accumulation";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 3>> shapes;  // M, N, K
        switch (size) {
            case Size::small: shapes = {{16, 16, 16}, {13, 10, 21}, {1, 33, 7}}; break;
            case Size::medium: shapes = {{128, 128, 64}, {100, 70, 45}, {257, 131, 129}}; break;
            case Size::large: shapes = {{2048, 2048, 2048}, {1000, 999, 517}, {16, 4096, 4096}}; break;
        }
        std::vector<Case> cases;
        for (auto [M, N, K] : shapes) {
            Case c;
            c.shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
            c.kernel = make_kernel(64, 128, 64);
            c.args = {input(Kind::BF16, {M, K}, uniform(seed, -1, 1)), input(Kind::BF16, {N, K}, uniform(seed + 1, -1, 1)),
                      output(Kind::BF16, {M, N})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [M, N, K](const Case& in) {
                auto x = values(*in.args[0]), w = values(*in.args[1]);
                std::vector<double> y(static_cast<std::size_t>(M * N));
                for (std::int64_t i = 0; i < M; ++i)
                    for (std::int64_t j = 0; j < N; ++j) {
                        double s = 0;
                        for (std::int64_t kk = 0; kk < K; ++kk) s += x[i * K + kk] * w[j * K + kk];
                        y[i * N + j] = s;
                    }
                return std::vector<std::vector<double>>{y};
            };
            // The bound of X (W^T): W transposed on the host into the [K, N] the
            // analysis takes, the sums on tensor cores, one bf16 rounding. W read
            // as [K, N] (the transpose forgotten) is off by ~1 (hundreds of bounds).
            c.error_bound = [M, N, K](const Case& in) {
                auto w = values(*in.args[1]);
                std::vector<double> wt(w.size());
                for (std::int64_t j = 0; j < N; ++j)
                    for (std::int64_t kk = 0; kk < K; ++kk) wt[kk * N + j] = w[j * K + kk];
                auto sums = matrix_product(values(*in.args[0]), wt, M, N, K, kTensorCoreRoundings * reduction_depth(K));
                for (auto& s : sums) s = cast(s, Kind::BF16);
                return Bounds{sums};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    e.tune_space = gemm_tile_space(64, 128, 64);
    e.tune_kernel = [](const Config& c) { return make_kernel(c["bm"], c["bn"], c["bk"]); };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_linear);

}  // namespace kiln::catalog
