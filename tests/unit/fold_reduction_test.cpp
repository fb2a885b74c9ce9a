// reduce_rows and reduce_cols (seed 000's folds) whose step is add, maximum or minimum
// trace as that reduction combined with the start afterwards
// (detail::fold_as_reduction), not as one node per element: a 4096-column softmax
// written with them was a 7.8 MB CUDA module NVRTC did not finish in 20 minutes. The
// reduction gives the fold's bits; eager tiles still fold step by step, so the kernel
// on the interpreter is checked against them, rows of zeros of either sign, NaNs and
// infinities included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <kiln/kiln.h>

#include "ir/ir.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

constexpr std::int64_t R = 6, C = 37;

enum class Fold { max_from_minus_inf, add_from_plus_zero, add_from_minus_zero, min_from_seven, add_from_one, cols_add_from_zero };

// The fold of a row (or column), as a seed-000 user writes it, on eager or traced tiles.
Tile<f32> fold(const Tile<f32>& t, Fold f) {
    switch (f) {
        case Fold::max_from_minus_inf: return reduce_rows(t, -INFINITY, [](Scalar<f32> a, Scalar<f32> b) { return max(a, b); });
        case Fold::add_from_plus_zero: return reduce_rows(t, 0.0f, [](Scalar<f32> a, Scalar<f32> b) { return a + b; });
        case Fold::add_from_minus_zero: return reduce_rows(t, -0.0f, [](Scalar<f32> a, Scalar<f32> b) { return b + a; });
        case Fold::min_from_seven: return reduce_rows(t, 7.0f, [](Scalar<f32> a, Scalar<f32> b) { return min(a, b); });
        case Fold::add_from_one: return reduce_rows(t, 1.0f, [](Scalar<f32> a, Scalar<f32> b) { return a + b; });
        case Fold::cols_add_from_zero: return reduce_cols(t, 0.0f, [](Scalar<f32> a, Scalar<f32> b) { return a + b; });
    }
    return t;
}

Kernel fold_kernel(Fold f) {
    const bool cols = f == Fold::cols_add_from_zero;
    return kernel("fold", [=](View<const f32, 2> x, View<f32, 2> y) {
        for (auto& nest : parallel(shape(axis("one", 1)))) {
            auto t = x[coord(nest.index() * 0, 0), shape(R, C)];
            y(coord(0, 0), cols ? shape(1, C) : shape(R, 1)).store(fold(t, f));
        }
    });
}

// Rows a fold's start and order could tell apart: -0s only, +0 and -0 mixed, a NaN,
// both infinities, values whose sum rounds, and tiny ones.
std::vector<f32> hard_rows() {
    std::vector<f32> v(static_cast<std::size_t>(R * C));
    for (std::int64_t j = 0; j < C; ++j) {
        auto at = [&](std::int64_t r) -> f32& { return v[static_cast<std::size_t>(r * C + j)]; };
        at(0) = -0.0f;
        at(1) = j % 2 ? -0.0f : 0.0f;
        at(2) = j == 5 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(j);
        at(3) = j == 3 ? INFINITY : j == 30 ? -INFINITY : 1.0f;
        at(4) = 1.0f + static_cast<float>(j) * 1e-7f * static_cast<float>(j % 3 ? 1 : -1) + (j == 0 ? 3e7f : 0.0f);
        at(5) = 1e-38f * static_cast<float>(j - 18);
    }
    return v;
}

bool same_bits(float a, float b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

TEST(FoldReduction, TheTracedReductionGivesTheEagerFoldsBits) {
    for (Fold f : {Fold::max_from_minus_inf, Fold::add_from_plus_zero, Fold::add_from_minus_zero, Fold::min_from_seven, Fold::add_from_one,
                   Fold::cols_add_from_zero}) {
        SCOPED_TRACE(static_cast<int>(f));
        const std::vector<f32> values = hard_rows();
        const std::vector<f32> want = fold(from_vec(values, R, C), f).to_vector();  // eager: step by step
        Tensor<f32> x({R, C}), y(f == Fold::cols_add_from_zero ? std::vector<std::int64_t>{1, C} : std::vector<std::int64_t>{R, 1});
        std::copy(values.begin(), values.end(), x.values().begin());
        for (Precision p : {Precision::exact, Precision::standard}) {
            fold_kernel(f).compile(interp(), {.precision = p}).launch(std::as_const(x).view(), y.view());
            ASSERT_EQ(static_cast<std::size_t>(y.values().size()), want.size());
            for (std::size_t i = 0; i < want.size(); ++i)
                EXPECT_TRUE(same_bits(y.values()[i], want[i])) << "element " << i << ": traced " << y.values()[i] << ", eager " << want[i];
        }
    }
}

// The trace: one reduction for add, maximum and minimum folds (from +-0 for add), the
// fold step by step otherwise (an add from 1 would round differently reordered).
TEST(FoldReduction, FoldsOfACombinerTraceAsOneReduction) {
    Tensor<f32> x({R, C}), y({R, 1}), yc({1, C});
    auto ops = [&](Fold f) {
        const auto args = f == Fold::cols_add_from_zero ? std::vector<detail::Arg>{detail::to_arg(std::as_const(x).view()), detail::to_arg(yc.view())}
                                                        : std::vector<detail::Arg>{detail::to_arg(std::as_const(x).view()), detail::to_arg(y.view())};
        return ir::print(*detail::specialize(*fold_kernel(f).shared_impl(), args, Loc::here()));
    };
    auto count = [](const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    };
    EXPECT_EQ(count(ops(Fold::max_from_minus_inf), "reduce_max"), 1u);
    EXPECT_EQ(count(ops(Fold::add_from_plus_zero), "reduce_add"), 1u);
    EXPECT_EQ(count(ops(Fold::add_from_minus_zero), "reduce_add"), 1u);
    EXPECT_EQ(count(ops(Fold::min_from_seven), "reduce_min"), 1u);
    EXPECT_EQ(count(ops(Fold::cols_add_from_zero), "reduce_add"), 1u);
    const std::string stepwise = ops(Fold::add_from_one);
    EXPECT_EQ(count(stepwise, "reduce_add"), 0u);
    EXPECT_GE(count(stepwise, " add "), static_cast<std::size_t>(C)) << "one add per column";
}

}  // namespace
