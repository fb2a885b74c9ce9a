// Kernels traced from seed-004 syntax and run on the interpreter, against host
// references computed independently in f64.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <kiln/kiln.h>

using namespace kiln;

namespace {
std::vector<float> random_floats(std::size_t n, unsigned seed, float lo = -1, float hi = 1) {
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = d(g);
    return v;
}
}  // namespace

TEST(Kernel, RowSoftmaxMatchesF64WithinF32Rounding) {
    auto k = kernel("softmax", [](View<const f32, 2> x, View<f32, 2> y) {
        auto rows = axis("rows", x.extent(0));
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(rows))) {
            auto v = x[coord(nest.index(), 0), shape(r, c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(coord(nest.index(), 0), shape(r, c)).store(e / reduce(e, c, add));
        }
    });
    for (auto [rows, cols] : {std::pair{3, 7}, std::pair{5, 33}}) {
        Tensor<f32> x({rows, cols}, random_floats(static_cast<std::size_t>(rows * cols), 1, -4, 4));
        Tensor<f32> y({rows, cols});
        k.launch(interp(), x.view(), y.view());
        for (int i = 0; i < rows; ++i) {
            double m = -1e300, s = 0;
            for (int j = 0; j < cols; ++j) m = std::max(m, double(x[i * cols + j]));
            for (int j = 0; j < cols; ++j) s += std::exp(double(x[i * cols + j]) - m);
            for (int j = 0; j < cols; ++j) {
                double ref = std::exp(double(x[i * cols + j]) - m) / s;
                EXPECT_NEAR(y[i * cols + j], ref, 4e-7 * cols * ref + 1e-12) << i << "," << j;
            }
        }
    }
}

TEST(Kernel, SeedGemmWithPipelineAndCarriedAccumulator) {
    struct GemmConfig {
        std::uint32_t block_m{8u}, block_n{8u}, block_k{8u}, window{2u};
    };
    auto make_gemm = [](GemmConfig cfg) {
        return tile_kernel("gemm", [=](TensorView<const float, 2> A, TensorView<const float, 2> B, TensorView<float, 2> C) {
            auto gm = axis("block_m", ceil_div(A.extent<0>(), cfg.block_m));
            auto gn = axis("block_n", ceil_div(B.extent<1>(), cfg.block_n));
            auto kt = axis("k_tiles", ceil_div(A.extent<1>(), cfg.block_k));
            auto m = axis("m", cfg.block_m);
            auto n = axis("n", cfg.block_n);
            auto k = axis("k", cfg.block_k);
            for (auto& nest : parallel(shape(gm, gn))) {
                auto m0 = nest.index(gm) * cfg.block_m;
                auto n0 = nest.index(gn) * cfg.block_n;
                auto acc = zeros<float>(shape(m, n));
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
    };
    auto gemm = make_gemm({8, 4, 4, 2});
    const int M = 13, N = 10, K = 11;  // ragged everywhere
    Tensor<f32> A({M, K}, random_floats(M * K, 2)), B({K, N}, random_floats(K * N, 3)), C({M, N});
    gemm.launch(interp(), A.view(), B.view(), C.view());
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            // Pinned order: acc, then + round(a*b) for k = 0..K-1, f32 after each step.
            float acc = 0;
            for (int kk = 0; kk < K; ++kk) acc = acc + static_cast<float>(double(A[i * K + kk]) * B[kk * N + j]);
            EXPECT_EQ(C[i * N + j], acc) << i << "," << j;
        }
    auto text = gemm.ir(A.view(), B.view(), C.view());
    EXPECT_NE(text.find("loop pipeline"), std::string::npos) << text;
    EXPECT_NE(text.find("carry("), std::string::npos) << text;
}

TEST(Kernel, NestedTemporalComposition) {
    auto k = tile_kernel("nested", [](TensorView<const float, 4> source, TensorView<float, 1> result) {
        auto row = axis("row", source.extent<0>());
        auto phase = axis("phase", source.extent<1>());
        auto step = axis("step", source.extent<2>());
        auto lane = axis("lane", source.extent<3>());
        auto r = axis("local_row", 1);
        auto p = axis("local_phase", 1);
        auto s = axis("local_step", 1);
        for (auto& nest : parallel(shape(row))) {
            auto sum = zeros<float>(shape(r));
            for (auto& phase_nest : nest.serial(shape(phase))) {
                for (auto& step_nest : phase_nest.pipeline(shape(step), {.window = 2, .interval = 1})) {
                    step_nest.stage("load");
                    auto value = source[coord(nest.index(row), phase_nest.index(phase), step_nest.index(step), 0), shape(r, p, s, lane)];
                    step_nest.stage("consume");
                    sum += reshape(reduce(value, lane, add), shape(r));
                }
            }
            result(coord(nest.index(row)), shape(r)).store(sum);
        }
    });
    const int R = 3, P = 2, S = 3, L = 4;
    std::vector<float> src(R * P * S * L);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 11) - 3.5f;
    Tensor<f32> x({R, P, S, L}, src), y({R});
    k.launch(interp(), x.view(), y.view());
    for (int i = 0; i < R; ++i) {
        float sum = 0;
        for (int ph = 0; ph < P; ++ph)
            for (int st = 0; st < S; ++st) {
                float lane_sum = src[((i * P + ph) * S + st) * L];
                for (int l = 1; l < L; ++l) lane_sum += src[((i * P + ph) * S + st) * L + l];
                sum += lane_sum;
            }
        EXPECT_EQ(y[i], sum);
    }
}

TEST(Kernel, TracedLambdasRoundInNarrowModeLikeEagerTiles) {
    // map/zip/reduce_rows inside a kernel compute exactly what the eager forms compute.
    auto f = [](Scalar<f32> x) { return exp(x) * 0.1 + 1.0; };
    auto g = [](Scalar<f32> a, Scalar<f32> b) { return a * b - 0.3; };
    auto k = kernel("lambdas", [=](View<const f32, 2> x, View<f32, 2> y, View<f32, 2> z, View<f32, 2> w) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto v = x[o, shape(r, c)];
            y(o, shape(r, c)).store(map(v, f));
            z(o, shape(r, c)).store(zip(v, v, g));
            w(o, shape(r, 1)).store(reduce_rows(v, 0.0, [](Scalar<f32> a, Scalar<f32> b) { return a + b * b; }));
        }
    });
    const int R = 3, C = 5;
    Tensor<f32> x({R, C}, random_floats(R * C, 9, -3, 3)), y({R, C}), z({R, C}), w({R, C});
    k.launch(interp(), std::as_const(x).view(), y.view(), z.view(), w.view());
    auto t = from_vec(x.values(), R, C);
    EXPECT_EQ(y.values(), map(t, f).to_vector());
    EXPECT_EQ(z.values(), zip(t, t, g).to_vector());
    auto rr = reduce_rows(t, 0.0, [](Scalar<f32> a, Scalar<f32> b) { return a + b * b; }).to_vector();
    for (int i = 0; i < R; ++i) EXPECT_EQ(w[i * C], rr[static_cast<std::size_t>(i)]);
}

TEST(Kernel, LoopTripCountComputedFromTheProgramIndex) {
    // Instance i sums x[0..i]: the serial loop's extent depends on the program index.
    auto k = kernel("prefix", [](View<const f32, 1> x, View<f32, 1> y) {
        auto one = axis("one", 1);
        for (auto& nest : parallel(shape(axis("i", x.extent(0))))) {
            auto acc = zeros<f32>(shape(one));
            auto upto = axis("upto", nest.index() + 1);
            for (auto& s : nest.serial(shape(upto))) acc = acc + x[coord(s.index()), shape(one)];
            y(coord(nest.index()), shape(one)).store(acc);
        }
    });
    Tensor<f32> x({5}, {1, 2, 3, 4, 5}), y({5});
    k.launch(interp(), std::as_const(x).view(), y.view());
    EXPECT_EQ(y.values(), (std::vector<float>{1, 3, 6, 10, 15}));
}
