// gemm: f32 C = A B, blocked, a pipelined K loop with the accumulator carried in
// registers (seed 004, section 2). Built from a host configuration.
#include "catalog.h"

namespace kiln::catalog {

struct GemmConfig {
    std::uint32_t block_m{16u};
    std::uint32_t block_n{16u};
    std::uint32_t block_k{8u};
    std::uint32_t window{2u};
};

Kernel make_gemm_kernel(GemmConfig cfg) {
    return kernel("gemm", [=](View<const f32, 2> A, View<const f32, 2> B, View<f32, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent<0>(), cfg.block_m));
        auto gn = axis("block_n", ceil_div(B.extent<1>(), cfg.block_n));
        auto kt = axis("k_tiles", ceil_div(A.extent<1>(), cfg.block_k));
        auto m = axis("m", cfg.block_m);
        auto n = axis("n", cfg.block_n);
        auto k = axis("k", cfg.block_k);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * cfg.block_m;
            auto n0 = nest.index(gn) * cfg.block_n;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = cfg.window, .interval = 1u})) {
                auto k0 = step.index() * cfg.block_k;
                step.stage("load");
                auto a = A[coord(m0, k0), shape(m, k)];
                auto b = B[coord(k0, n0), shape(k, n)];
                step.stage("compute");
                acc = mma(a, b, acc);
            }
            C(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
}

Entry make_gemm() {
    Entry e;
    e.name = "gemm";
    e.description = "f32 matrix product, blocked, pipelined K loop, f32 accumulation";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 3>> shapes;
        switch (size) {
            case Size::small: shapes = {{16, 16, 8}, {13, 10, 11}, {1, 33, 7}}; break;
            case Size::medium: shapes = {{128, 128, 64}, {100, 70, 45}, {257, 31, 129}}; break;
            case Size::large: shapes = {{1024, 1024, 1024}, {1000, 999, 517}, {2048, 64, 4096}}; break;
        }
        std::vector<Case> cases;
        for (auto [M, N, K] : shapes) {
            Case c;
            c.shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
            c.kernel = make_gemm_kernel({});
            c.args = {input(Kind::F32, {M, K}, uniform(seed, -1, 1)), input(Kind::F32, {K, N}, uniform(seed + 1, -1, 1)),
                      output(Kind::F32, {M, N})};
            c.scalars.assign(3, 0);
            c.reference = [M, N, K](const Case& c) {
                auto a = values(*c.args[0]), b = values(*c.args[1]);
                std::vector<double> out(static_cast<std::size_t>(M * N), 0.0);
                for (std::int64_t i = 0; i < M; ++i)
                    for (std::int64_t kk = 0; kk < K; ++kk)
                        for (std::int64_t j = 0; j < N; ++j)
                            out[static_cast<std::size_t>(i * N + j)] += a[static_cast<std::size_t>(i * K + kk)] * b[static_cast<std::size_t>(kk * N + j)];
                return std::vector<std::vector<double>>{out};
            };
            // Any order and FMA (precision standard): |C - ref| <= ~gamma(K) sum_k |a b|,
            // 2e-6 to 3e-6 at K = 11 with entries in [-1, 1). A dropped k step or a
            // tile read at the wrong offset is off by a product (~0.25, 10^5 bounds).
            c.error_bound = [M, N, K](const Case& c) {
                return Bounds{matrix_product(values(*c.args[0]), values(*c.args[1]), M, N, K, reduction_depth(K))};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

KILN_CATALOG_ENTRY(make_gemm);

}  // namespace kiln::catalog
