// manual_gemm: seed 004, section 2.1, the f32 GEMM with optional explicit memory. The
// execution structure is gemm's; each pipeline step stores its A and B tiles into
// two resources declared in the output program and feeds mma from snapshots of
// them. As holds A tiles in rows padded by one element (stride block_k + 1), Bs holds
// B tiles column-major (stride 1 along k); kiln proves each layout total, in bounds
// and injective when the kernel is captured. The logical operand shapes, and so the
// result, do not change: the layouts only place the data.
#include "catalog.h"

namespace kiln::catalog {
namespace {

struct ManualGemmConfig {
    std::uint32_t block_m{16u};
    std::uint32_t block_n{16u};
    std::uint32_t block_k{8u};
    std::uint32_t window{2u};
};

Kernel make_kernel(ManualGemmConfig cfg, exec::Scope scope = exec::Scope::AUTOMATIC, mem::Resource resource = mem::auto_) {
    return kernel("manual_gemm", [=](View<const f32, 2> A, View<const f32, 2> B, View<f32, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent<0>(), cfg.block_m));
        auto gn = axis("block_n", ceil_div(B.extent<1>(), cfg.block_n));
        auto kt = axis("k_tiles", ceil_div(A.extent<1>(), cfg.block_k));
        auto m = axis("m", cfg.block_m);
        auto n = axis("n", cfg.block_n);
        auto k = axis("k", cfg.block_k);
        for (auto& nest : parallel(shape(gm, gn), scope)) {
            auto m0 = nest.index(gm) * cfg.block_m;
            auto n0 = nest.index(gn) * cfg.block_n;
            // Distinct local address maps; the logical operand shapes do not change.
            auto As = memory<f32>(layout(shape(m, k), stride(cfg.block_k + 1, 1)), resource);
            auto Bs = memory<f32>(layout(shape(k, n), stride(1, cfg.block_k)), resource);
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = cfg.window, .interval = 1u})) {
                auto k0 = step.index() * cfg.block_k;
                step.stage("load");
                As.store(A[coord(m0, k0), shape(m, k)]);
                Bs.store(B[coord(k0, n0), shape(k, n)]);
                step.stage("compute");
                acc = mma(As.load(), Bs.load(), acc);
            }
            C(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
}

Entry make_manual_gemm() {
    Entry e;
    e.name = "manual_gemm";
    e.description = "f32 matrix product through explicit memory: padded A tiles, column-major B tiles";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 3>> shapes;  // M, N, K
        switch (size) {
            case Size::small: shapes = {{16, 16, 8}, {13, 10, 11}, {1, 33, 7}}; break;
            case Size::medium: shapes = {{128, 128, 64}, {100, 70, 45}, {257, 31, 129}}; break;
            case Size::large: shapes = {{1024, 1024, 1024}, {1000, 999, 517}, {2048, 64, 4096}}; break;
        }
        std::vector<Case> cases;
        for (auto [M, N, K] : shapes) {
            Case c;
            c.shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
            c.kernel = make_kernel({});
            c.args = {input(Kind::F32, {M, K}, uniform(seed, -1, 1)), input(Kind::F32, {K, N}, uniform(seed + 1, -1, 1)),
                      output(Kind::F32, {M, N})};
            c.reference = [M, N, K](const Case& in) {
                auto a = values(*in.args[0]), b = values(*in.args[1]);
                std::vector<double> out(static_cast<std::size_t>(M * N), 0.0);
                for (std::int64_t i = 0; i < M; ++i)
                    for (std::int64_t kk = 0; kk < K; ++kk)
                        for (std::int64_t j = 0; j < N; ++j)
                            out[static_cast<std::size_t>(i * N + j)] += a[static_cast<std::size_t>(i * K + kk)] * b[static_cast<std::size_t>(kk * N + j)];
                return std::vector<std::vector<double>>{out};
            };
            // gemm's bound: gamma(K) sum_k |a b| for any order and FMA; a layout that
            // placed one element wrongly is off by a product (~0.25), 10^5 bounds.
            c.error_bound = [M, N, K](const Case& in) {
                return Bounds{matrix_product(values(*in.args[0]), values(*in.args[1]), M, N, K, reduction_depth(K))};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_manual_gemm);

}  // namespace kiln::catalog
