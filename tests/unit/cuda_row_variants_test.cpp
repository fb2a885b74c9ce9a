// Row kernels written the way different users write them (not the catalog's forms):
// seed 000's reduce_rows and broadcast_rows, Triton's exp2 with log2 e folded in,
// several rows an instance, a one-pass variance, a weight applied in bf16, a
// temperature and a mask vector, map lambdas. For each, the plan of the cuda target
// (offline, sm_90a) must keep every value in registers: reductions in registers and
// shuffles, loads in 16-byte vectors where the rows allow, no spill, no staged row;
// and the cpu target must write the interpreter's bytes in exact precision.
#include <gtest/gtest.h>

#include "cpu_diff.h"
#include "cuda_test_util.h"

using namespace kiln;
using namespace kiln::cuda_test;

namespace {

constexpr float kLog2e = 1.4426950408889634f;

// seed 000's vocabulary: a [1, C] tile of plain extents, reduce_rows and broadcast_rows.
Kernel softmax_seed_rows() {
    return kernel("softmax_seed_rows", [](View<const bf16, 2> x, View<bf16, 2> y) {
        const auto C = x.extent<1>();
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            auto v = cast<f32>(x[coord(nest.index(), 0), shape(1, C)]);
            auto mx = reduce_rows(v, -INFINITY, [](Scalar<f32> a, Scalar<f32> b) { return max(a, b); });
            auto e = exp(broadcast_rows(v, mx, [](Scalar<f32> a, Scalar<f32> b) { return a - b; }));
            auto s = reduce_rows(e, 0.0f, [](Scalar<f32> a, Scalar<f32> b) { return a + b; });
            y(coord(nest.index(), 0), shape(1, C)).store(cast<bf16>(broadcast_rows(e, s, [](Scalar<f32> a, Scalar<f32> b) { return a / b; })));
        }
    });
}

// Triton's softmax: exp2 of (x - max) * log2 e, written as pow(2, ..).
Kernel softmax_exp2() {
    return kernel("softmax_exp2", [](View<const bf16, 2> x, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto e = pow(2.0f, (v - reduce(v, c, maximum)) * kLog2e);
            y(origin, shape(r, c)).store(cast<bf16>(e / reduce(e, c, add)));
        }
    });
}

// Four rows an instance, the last block's rows masked by the row count.
Kernel softmax_four_rows() {
    return kernel("softmax_four_rows", [](View<const bf16, 2> x, View<bf16, 2> y) {
        constexpr std::int64_t R = 4;
        auto r = axis("r", R), c = axis("c", x.extent<1>());
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent<0>(), R))))) {
            auto origin = coord(nest.index() * R, 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto e = exp(v - reduce(v, c, maximum));
            y(origin, shape(r, c)).store(cast<bf16>(e / reduce(e, c, add)));
        }
    });
}

// LayerNorm with the variance in one pass, E[x^2] - E[x]^2.
Kernel layernorm_one_pass() {
    return kernel("layernorm_one_pass", [](View<const bf16, 2> x, View<const bf16, 1> w, View<const bf16, 1> b, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto mean = reduce(v, c, add) * inv_n;
            auto var = reduce(v * v, c, add) * inv_n - mean * mean;
            auto out = (v - mean) * rsqrt(var + 1e-5f) * cast<f32>(w[coord(0), shape(c)]) + cast<f32>(b[coord(0), shape(c)]);
            y(origin, shape(r, c)).store(cast<bf16>(out));
        }
    });
}

// RMSNorm normalised in f32, rounded to bf16, then scaled by the weight in bf16 (as
// some model code does).
Kernel rmsnorm_weight_in_bf16() {
    return kernel("rmsnorm_weight_in_bf16", [](View<const bf16, 2> x, View<const bf16, 1> w, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        const float inv_n = 1.0f / static_cast<float>(x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]);
            auto normed = cast<bf16>(v * rsqrt(reduce(v * v, c, add) * inv_n + 1e-6f));
            y(origin, shape(r, c)).store(normed * w[coord(0), shape(c)]);
        }
    });
}

// Softmax of x / temperature plus an additive mask over the columns.
Kernel softmax_temperature_mask() {
    return kernel("softmax_temperature_mask", [](View<const bf16, 2> x, View<const f32, 1> mask, View<bf16, 2> y, Scalar<f32> temperature) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto v = cast<f32>(x[origin, shape(r, c)]) / temperature + mask[coord(0), shape(c)];
            auto e = exp(v - reduce(v, c, maximum));
            y(origin, shape(r, c)).store(cast<bf16>(e / reduce(e, c, add)));
        }
    });
}

// GELU (tanh form) of each element through a map lambda, then a row sum.
Kernel gelu_row_sum() {
    return kernel("gelu_row_sum", [](View<const bf16, 2> x, View<bf16, 2> y, View<f32, 1> sums) {
        auto r = axis("r", 1), c = axis("c", x.extent<1>());
        for (auto& nest : parallel(shape(axis("rows", x.extent<0>())))) {
            auto origin = coord(nest.index(), 0);
            auto g = map(cast<f32>(x[origin, shape(r, c)]),
                         [](Scalar<f32> a) { return 0.5f * a * (1.0f + tanh(0.7978845608f * (a + 0.044715f * a * a * a))); });
            y(origin, shape(r, c)).store(cast<bf16>(g));
            sums(coord(nest.index()), shape(r)).store(reduce(g, c, add));
        }
    });
}

struct RowVariant {
    const char* name;
    Kernel (*make)();
    // The arguments at r rows of c columns (inputs random, outputs zero).
    std::vector<cpu_diff::Buffer> (*args)(std::int64_t r, std::int64_t c, unsigned seed);
};

std::vector<cpu_diff::Buffer> x_y(std::int64_t r, std::int64_t c, unsigned seed) {
    return {cpu_diff::input(Kind::BF16, {r, c}, seed), cpu_diff::output(Kind::BF16, {r, c})};
}
std::vector<cpu_diff::Buffer> x_w_b_y(std::int64_t r, std::int64_t c, unsigned seed) {
    return {cpu_diff::input(Kind::BF16, {r, c}, seed), cpu_diff::input(Kind::BF16, {c}, seed + 1), cpu_diff::input(Kind::BF16, {c}, seed + 2),
            cpu_diff::output(Kind::BF16, {r, c})};
}
std::vector<cpu_diff::Buffer> x_w_y(std::int64_t r, std::int64_t c, unsigned seed) {
    return {cpu_diff::input(Kind::BF16, {r, c}, seed), cpu_diff::input(Kind::BF16, {c}, seed + 1), cpu_diff::output(Kind::BF16, {r, c})};
}
std::vector<cpu_diff::Buffer> x_mask_y_t(std::int64_t r, std::int64_t c, unsigned seed) {
    return {cpu_diff::input(Kind::BF16, {r, c}, seed), cpu_diff::input(Kind::F32, {c}, seed + 1), cpu_diff::output(Kind::BF16, {r, c}),
            cpu_diff::scalar(Kind::F32, 0.7)};
}
std::vector<cpu_diff::Buffer> x_y_sums(std::int64_t r, std::int64_t c, unsigned seed) {
    return {cpu_diff::input(Kind::BF16, {r, c}, seed), cpu_diff::output(Kind::BF16, {r, c}), cpu_diff::output(Kind::F32, {r})};
}

const RowVariant kVariants[] = {
    {"softmax_seed_rows", softmax_seed_rows, x_y},
    {"softmax_exp2", softmax_exp2, x_y},
    {"softmax_four_rows", softmax_four_rows, x_y},
    {"layernorm_one_pass", layernorm_one_pass, x_w_b_y},
    {"rmsnorm_weight_in_bf16", rmsnorm_weight_in_bf16, x_w_y},
    {"softmax_temperature_mask", softmax_temperature_mask, x_mask_y_t},
    {"gelu_row_sum", gelu_row_sum, x_y_sums},
};

class CudaRowVariants : public ::testing::TestWithParam<RowVariant> {};

// Each value's line of the plan (those that say where it lives).
std::vector<std::string> value_lines(const std::string& plan) {
    std::vector<std::string> lines;
    for (std::size_t at = plan.find("\n    v"); at != std::string::npos; at = plan.find("\n    v", at + 1))
        lines.push_back(plan.substr(at + 1, plan.find('\n', at + 1) - at - 1));
    return lines;
}

// At a power-of-two width and a ragged one whose bf16 rows still start on 16-byte
// boundaries (1000 columns: 2000 bytes): every reduction in registers and shuffles,
// the rows' loads in 16-byte vectors, no row staged in shared memory, no spill, and
// a module of the catalog forms' size (not one node per column).
TEST_P(CudaRowVariants, EveryValueStaysInRegisters) {
    REQUIRE_NVRTC();
    const RowVariant& v = GetParam();
    for (std::int64_t c : {4096, 1000}) {
        SCOPED_TRACE(c);
        auto bufs = v.args(64, c, 1);
        const auto args = cpu_diff::buffer_args(bufs);
        const std::string source = cuda_text(v.make(), args, Precision::standard, What::source);
        EXPECT_LT(source.size(), 200u * 1024) << "the module's source";
        const std::string plan = cuda_text(v.make(), args, Precision::standard, What::plan);
        EXPECT_FALSE(contains(plan, "not register-resident")) << plan;
        EXPECT_FALSE(contains(plan, "staged")) << plan;
        EXPECT_TRUE(contains(plan, "spills 0 bytes stored, 0 bytes loaded")) << plan;
        int reductions = 0, vector_loads = 0;
        for (const std::string& line : value_lines(plan)) {
            if (contains(line, "= reduce_")) {
                ++reductions;
                EXPECT_TRUE(contains(line, "in registers")) << line;
            }
            if (contains(line, "= load ") && contains(line, "16-byte vectors")) ++vector_loads;
        }
        EXPECT_GE(reductions, 1) << plan;
        EXPECT_GE(vector_loads, 1) << plan;
    }
}

// The same kernels on the cpu target, bit for bit with the interpreter (exact), at a
// ragged size.
TEST_P(CudaRowVariants, TheCpuTargetWritesTheInterpretersBytes) {
    const RowVariant& v = GetParam();
    cpu_diff::expect_same(v.make(), v.args(9, 300, 3), CompileOptions{.precision = Precision::exact});
}

INSTANTIATE_TEST_SUITE_P(Rows, CudaRowVariants, ::testing::ValuesIn(kVariants), [](const auto& i) { return std::string(i.param.name); });

}  // namespace
