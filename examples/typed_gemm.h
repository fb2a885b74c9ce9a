// The GEMM shared by gemm_f16, gemm_bf16 and gemm_i8 (seed 004, "Migrated examples":
// "the same execution structure serves each dtype"): C = A B with narrow inputs, a
// wider accumulator (f16/bf16 -> f32, i8 -> i32) carried through a pipelined K loop,
// and an explicit conversion of the result to the output kind with cast<>.
#pragma once

#include <array>
#include <string>

#include "catalog.h"

namespace kiln::catalog {

struct TypedGemmConfig {
    std::uint32_t block_m{16u};
    std::uint32_t block_n{16u};
    std::uint32_t block_k{16u};  // the K of one f16/bf16/i8 tensor-core step
    std::uint32_t window{2u};
};

// (extent(d) rather than extent<d>(): inside a template the latter needs the
// `template` disambiguator.)
template <Element In, Element Acc, Element Out> Kernel make_typed_gemm_kernel(std::string name, TypedGemmConfig cfg) {
    return kernel(std::move(name), [=](View<const In, 2> A, View<const In, 2> B, View<Out, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(0), cfg.block_m));
        auto gn = axis("block_n", ceil_div(B.extent(1), cfg.block_n));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), cfg.block_k));
        auto m = axis("m", cfg.block_m);
        auto n = axis("n", cfg.block_n);
        auto k = axis("k", cfg.block_k);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * cfg.block_m;
            auto n0 = nest.index(gn) * cfg.block_n;
            auto acc = zeros<Acc>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = cfg.window, .interval = 1u})) {
                auto k0 = step.index() * cfg.block_k;
                step.stage("load");
                auto a = A[coord(m0, k0), shape(m, k)];
                auto b = B[coord(k0, n0), shape(k, n)];
                step.stage("compute");
                acc = mma(a, b, acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<Out>(acc));
        }
    });
}

// What `kiln tune` searches for a typed GEMM entry: the cases' configuration first,
// then the tiles the Hopper lowering serves (a 3-deep pipeline, as users write them).
inline std::vector<Config> typed_gemm_tune_space() {
    const TypedGemmConfig d;
    std::vector<Config> space = {Config{{"bm", d.block_m}, {"bn", d.block_n}, {"bk", d.block_k}, {"window", d.window}}};
    for (auto [bm, bn, bk] : {std::array<std::int64_t, 3>{128, 256, 64}, {128, 128, 64}, {64, 128, 64}, {128, 64, 64}, {64, 64, 32}})
        space.push_back(Config{{"bm", bm}, {"bn", bn}, {"bk", bk}, {"window", 3}});
    return space;
}
template <Element In, Element Acc, Element Out> std::function<Kernel(const Config&)> typed_gemm_tune_kernel(std::string name) {
    return [name](const Config& c) {
        auto u32 = [&](const char* p) { return static_cast<std::uint32_t>(c[p]); };
        return make_typed_gemm_kernel<In, Acc, Out>(name, {u32("bm"), u32("bn"), u32("bk"), u32("window")});
    };
}

// How many roundings of the accumulator kind one addition on tensor cores may cost:
// in precision standard the cuda target sums f16/bf16 products there, in the
// hardware's own order and precision, which may truncate rather than round to
// nearest (an error of up to 2u per addition instead of u).
inline constexpr double kTensorCoreRoundings = 2;

// The cases of a typed GEMM entry: random inputs from `gen` (rounded to the input
// kind when stored), and an f64 reference computed from those stored inputs.
// Integer products must be exact; float ones are bounded by the error analysis:
// products rounded to Acc (f16/bf16 products are exact in f32; the bound counts a
// rounding anyway), K of them summed in any order, the sum rounded to Out once.
template <Element In, Element Acc, Element Out>
std::vector<Case> typed_gemm_cases(const std::string& name, Size size, std::uint64_t seed,
                                   const std::function<std::function<double(std::int64_t)>(std::uint64_t)>& gen) {
    std::vector<std::array<std::int64_t, 3>> shapes;  // M, N, K
    switch (size) {
        case Size::small: shapes = {{16, 16, 16}, {13, 10, 21}, {1, 33, 7}}; break;
        case Size::medium: shapes = {{128, 128, 64}, {100, 70, 45}, {257, 31, 129}}; break;
        case Size::large: shapes = {{2048, 2048, 2048}, {1000, 999, 517}, {64, 4096, 2048}}; break;
    }
    std::vector<Case> cases;
    for (auto [M, N, K] : shapes) {
        Case c;
        c.shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
        c.kernel = make_typed_gemm_kernel<In, Acc, Out>(name, {});
        c.args = {input(kind_of<In>, {M, K}, gen(seed)), input(kind_of<In>, {K, N}, gen(seed + 1)), output(kind_of<Out>, {M, N})};
        c.reference = [M, N, K](const Case& in) {
            auto a = values(*in.args[0]), b = values(*in.args[1]);
            std::vector<double> out(static_cast<std::size_t>(M * N), 0.0);
            for (std::int64_t i = 0; i < M; ++i)
                for (std::int64_t kk = 0; kk < K; ++kk)
                    for (std::int64_t j = 0; j < N; ++j)
                        out[static_cast<std::size_t>(i * N + j)] += a[static_cast<std::size_t>(i * K + kk)] * b[static_cast<std::size_t>(kk * N + j)];
            return std::vector<std::vector<double>>{out};
        };
        c.exact_integer = !is_float(kind_of<Out>);
        if (!c.exact_integer)
            c.error_bound = [M, N, K](const Case& in) {
                auto sums = matrix_product(values(*in.args[0]), values(*in.args[1]), M, N, K, kTensorCoreRoundings * reduction_depth(K),
                                           kind_of<Acc>);
                for (auto& s : sums) s = cast(s, kind_of<Out>);
                return Bounds{sums};
            };
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace kiln::catalog
