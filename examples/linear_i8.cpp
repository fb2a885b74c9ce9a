// linear_i8: a W8A8 quantised linear layer (SmoothQuant's): Y = (X W^T) * x_scale[m] *
// w_scale[n] + bias[n] in bf16, X [M, K] and W [N, K] i8, the sum in i32 (exact: every
// case keeps K * 128 * 128 below 2^31), dequantised in f32 by a per-token and a
// per-channel scale. On sm_90 the Hopper GEMM reads both operands K-major through TMA
// as bytes and sums them on wgmma s8 -> s32 (passes/gemm_match.h); the epilogue runs on
// the i32 accumulator. Tiles 128x128x128 (128 bytes of k a step).
#include <cmath>

#include "catalog.h"
#include "typed_gemm.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("linear_i8", [=](View<const i8, 2> X, View<const i8, 2> W, View<const f32, 1> x_scale, View<const f32, 1> w_scale,
                                   View<const bf16, 1> bias, View<bf16, 2> Y) {
        auto gm = axis("block_m", ceil_div(X.extent(0), bm));
        auto gn = axis("block_n", ceil_div(W.extent(0), bn));
        auto kt = axis("k_tiles", ceil_div(X.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<i32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 4})) {
                auto k0 = step.index() * bk;
                acc = mma(X[coord(m0, k0), shape(m, k)], W[coord(n0, k0), shape(n, k)], acc);
            }
            auto y = cast<f32>(acc) * x_scale[coord(m0), shape(m)] * w_scale[coord(n0), shape(n)] + cast<f32>(bias[coord(n0), shape(n)]);
            Y(coord(m0, n0), shape(m, n)).store(cast<bf16>(y));
        }
    });
}

// Uniform integers in [-128, 127].
std::function<double(std::int64_t)> int8_values(std::uint64_t seed) {
    auto u = uniform(seed, -128, 128);
    return [u](std::int64_t i) { return std::floor(u(i)); };
}

Entry make_linear_i8() {
    Entry e;
    e.name = "linear_i8";
    e.description = "W8A8 linear layer: i8 X W^T (W stored [N, K]) summed in i32, dequantised by per-token and per-channel f32 scales, bf16 bias and output";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 3>> shapes;  // M, N, K
        switch (size) {
            case Size::small: shapes = {{16, 16, 32}, {13, 10, 21}, {1, 33, 7}}; break;
            case Size::medium: shapes = {{128, 128, 256}, {100, 70, 45}, {257, 131, 144}}; break;
            case Size::large: shapes = {{2048, 2048, 2048}, {1000, 999, 517}, {16, 4096, 4096}}; break;
        }
        std::vector<Case> cases;
        for (auto [M, N, K] : shapes) {
            Case c;
            c.shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
            c.kernel = make_kernel(128, 128, 128);
            // Scales of a symmetric quantisation: about max|x| / 127 for values of magnitude ~1.
            c.args = {input(Kind::I8, {M, K}, int8_values(seed)), input(Kind::I8, {N, K}, int8_values(seed + 1)),
                      input(Kind::F32, {M}, uniform(seed + 2, 0.002, 0.02)), input(Kind::F32, {N}, uniform(seed + 3, 0.002, 0.02)),
                      input(Kind::BF16, {N}, uniform(seed + 4, -1, 1)), output(Kind::BF16, {M, N})};
            c.scalars.assign(c.args.size(), 0);
            // The exact sum of products (an integer below 2^31), then the dequantisation.
            auto sum = [M, N, K](const Case& in) {
                auto x = values(*in.args[0]), w = values(*in.args[1]);
                std::vector<double> s(static_cast<std::size_t>(M * N));
                for (std::int64_t i = 0; i < M; ++i)
                    for (std::int64_t j = 0; j < N; ++j) {
                        double t = 0;
                        for (std::int64_t kk = 0; kk < K; ++kk) t += x[i * K + kk] * w[j * K + kk];
                        s[i * N + j] = t;
                    }
                return s;
            };
            c.reference = [M, N, sum](const Case& in) {
                auto s = sum(in);
                auto sx = values(*in.args[2]), sw = values(*in.args[3]), b = values(*in.args[4]);
                std::vector<double> y(s.size());
                for (std::int64_t i = 0; i < M; ++i)
                    for (std::int64_t j = 0; j < N; ++j) y[i * N + j] = s[i * N + j] * sx[i] * sw[j] + b[j];
                return std::vector<std::vector<double>>{y};
            };
            // The sum is exact in any order (integers); its conversion to f32, the two
            // scalings, the bias's add and the bf16 store each round once.
            c.error_bound = [M, N, sum](const Case& in) {
                auto s = sum(in);
                auto sx = values(*in.args[2]), sw = values(*in.args[3]), b = values(*in.args[4]);
                std::vector<Bounded> y(s.size());
                for (std::int64_t i = 0; i < M; ++i)
                    for (std::int64_t j = 0; j < N; ++j) {
                        const Bounded scaled = cast(exact(s[i * N + j]), Kind::F32) * exact(sx[i]) * exact(sw[j]);
                        y[i * N + j] = cast(scaled + exact(b[j]), Kind::BF16);
                    }
                return Bounds{y};
            };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    e.tune_space = gemm_tile_space(128, 128, 128);
    e.tune_kernel = [](const Config& c) { return make_kernel(c["bm"], c["bn"], c["bk"]); };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_linear_i8);

}  // namespace kiln::catalog
