// The bound on how far a target in precision standard may write from the
// interpreter (fuzz/standard_bound.h), on hand-written kernels whose bound is
// worked out here independently, and on a target that perturbs its results.
#include <gtest/gtest.h>

#include <cmath>

#include "fuzz/differential.h"
#include "fuzz/standard_bound.h"
#include "interp/run_kernel.h"
#include "targets/common/target_impl.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using namespace kiln::fuzz;

namespace {

template <class... A> std::vector<detail::Arg> args_of(A&&... a) {
    std::vector<detail::Arg> v;
    (v.push_back(detail::to_arg(a)), ...);
    return v;
}

std::vector<DifferenceBound> bounds_of(const Kernel& k, const std::vector<detail::Arg>& args, std::int64_t trips = 1) {
    return standard_bounds(*detail::specialize(*k.shared_impl(), args, Loc::here()), args, trips);
}

}  // namespace

// Operations correctly rounded on every target, on identical inputs: identical
// results, so the bound is zero and the outputs compare bit for bit.
TEST(StandardBound, CorrectlyRoundedArithmeticIsExact) {
    Tensor<f32> x({3, 8}, std::vector<float>(24, 1.5f)), y({3, 8});
    auto b = bounds_of(kernel("ew", [](View<const f32, 2> x, View<f32, 2> y) {
                           auto c = axis("c", 8);
                           for (auto& n : parallel(shape(axis("g", 3)))) {
                               auto v = x[coord(n.index(), 0), shape(1, c)];
                               y(coord(n.index(), 0), shape(1, c)).store(maximum(v / 3.0f, sqrt(v)) - abs(v));
                           }
                       }),
                       args_of(std::as_const(x).view(), y.view()));
    EXPECT_TRUE(b[1].exact());
    EXPECT_TRUE(b[0].exact());  // read only
}

// A sum of 8 f32 terms of magnitude at most 4 that a target may reassociate: each
// target within gamma(7) * 8 * 4 of the exact sum.
TEST(StandardBound, AReassociatedSumIsBoundedByItsTerms) {
    std::vector<float> data(24, 0.25f);
    data[5] = -4.0f;
    Tensor<f32> x({3, 8}, data), y({3, 1});
    auto k = kernel("sum", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", 8);
        for (auto& n : parallel(shape(axis("g", 3))))
            y(coord(n.index(), 0), shape(1, 1)).store(reduce(x[coord(n.index(), 0), shape(axis("r", 1), c)], c, add));
    });
    auto b = bounds_of(k, args_of(std::as_const(x).view(), y.view()));
    const double u = 0x1p-24, gamma7 = 7 * u / (1 - 7 * u);
    const double differences = 2 * gamma7 * 8 * 4;                       // both targets' reassociation
    EXPECT_GE(b[1].abs + b[1].rel * 8 * 4, differences);
    EXPECT_LE(b[1].abs + b[1].rel * 8 * 4, differences * 1.01 + 8 * 4 * 2 * u * 1.01);  // and an ulp of the result's rounding
    // A comparison of that sum: a difference of one ulp may flip it, so no bound.
    auto flip = kernel("flip", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", 8);
        for (auto& n : parallel(shape(axis("g", 3))))
            y(coord(n.index(), 0), shape(1, 1)).store(cast<f32>(reduce(x[coord(n.index(), 0), shape(axis("r", 1), c)], c, add) > 0.0f));
    });
    EXPECT_FALSE(bounds_of(flip, args_of(std::as_const(x).view(), y.view()))[1].bounded());
}

// exp of a value that may differ by d differs by a factor e^d at most, plus the
// targets' own exp (2 ulp) and the interpreter's half ulp.
TEST(StandardBound, ExpTurnsAnAbsoluteDifferenceIntoARelativeOne) {
    Tensor<f32> x({1, 4}, std::vector<float>{1, 2, 3, 4}), y({1, 1});
    auto k = kernel("softish", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", 4);
        for (auto& n : parallel(shape(axis("g", 1))))
            y(coord(n.index(), 0), shape(1, 1)).store(exp(reduce(x[coord(n.index(), 0), shape(axis("r", 1), c)], c, add)));
    });
    auto b = bounds_of(k, args_of(std::as_const(x).view(), y.view()));
    ASSERT_TRUE(b[1].bounded());
    const double u = 0x1p-24, sum_difference = 2 * (3 * u / (1 - 3 * u)) * 4 * 4;
    EXPECT_GE(b[1].rel, std::expm1(sum_difference) + 2 * 2.5 * u);
    EXPECT_LE(b[1].rel, 1e-5);
}

// A target that moves each float output by a fraction of its bound is admitted;
// one that moves them by more than the bound is caught.
namespace {
class NudgingTarget final : public detail::TargetImpl {
public:
    explicit NudgingTarget(double factor) : factor_(factor) {}
    const std::string& name() const override { return name_; }
    void run(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions&, Loc) override {
        ref::run_program(p, args, {});
        const auto bounds = standard_bounds(p, initial, 4);
        for (std::size_t k = 0; k < args.size(); ++k) {
            const auto& a = args[k];
            if (!a.is_view || a.read_only || a.kind != Kind::F32 || !bounds[k].bounded() || bounds[k].exact()) continue;
            auto* f = static_cast<float*>(a.data);
            for (std::int64_t e = 0; e < a.extents[0] * a.strides[0]; ++e)
                if (std::isfinite(f[e])) f[e] = static_cast<float>(f[e] + factor_ * (bounds[k].abs + bounds[k].rel * std::abs(f[e])));
        }
    }
    std::vector<detail::Arg> initial;  // the launch's inputs, as the bound reads them

private:
    double factor_;
    std::string name_ = "nudging";
};
}  // namespace

TEST(StandardBound, TheComparisonAdmitsWhatTheBoundAllowsAndNoMore) {
    std::vector<float> data(64);
    for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<float>(k % 7) - 2.5f;
    Tensor<f32> x({8, 8}, data), y({8, 1});
    auto k = kernel("sum", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", 8);
        for (auto& n : parallel(shape(axis("g", 8))))
            y(coord(n.index(), 0), shape(1, 1)).store(reduce(x[coord(n.index(), 0), shape(axis("r", 1), c)], c, add) * 3.0f);
    });
    auto args = args_of(std::as_const(x).view(), y.view());
    for (double factor : {0.5, 4.0}) {
        auto impl = std::make_shared<NudgingTarget>(factor);
        impl->initial = args;
        Tensor<f32> want({8, 1}), got({8, 1});
        run_kernel(k, interp(), args_of(std::as_const(x).view(), want.view()), {.precision = Precision::standard}, Loc::here());
        run_kernel(k, Target(impl), args_of(std::as_const(x).view(), got.view()), {.precision = Precision::standard}, Loc::here());
        const auto b = bounds_of(k, args)[1];
        int outside = 0;
        for (std::int64_t e = 0; e < 8; ++e) outside += !b.admits(want[e], got[e]);
        EXPECT_EQ(outside, factor < 1 ? 0 : 8) << "factor " << factor;
    }
}

// exp of a value as large as 200 may overflow f32 on one target only: no bound. A
// maximum (or a select, a loop's carried value, a second store) of that with an
// exact value must keep it unbounded: the unbounded state's spread once read as
// inf + 0 * inf = NaN, which the max() of the join dropped, so the output was
// compared bit for bit (fuzz program 2000506, f16: 1 ulp apart with a zero bound).
TEST(StandardBound, AnUnboundedValueStaysUnboundedThroughMaximumAndJoins) {
    Tensor<f32> x({1, 4}, std::vector<float>{1, 2, 3, 200}), y({1, 4});
    auto k = kernel("overflowing_exp_max", [](View<const f32, 2> x, View<f32, 2> y) {
        auto c = axis("c", 4);
        for (auto& n : parallel(shape(axis("g", 1)))) {
            auto v = x[coord(n.index(), 0), shape(1, c)];
            y(coord(n.index(), 0), shape(1, c)).store(maximum(exp(v), 0.5f));
        }
    });
    auto b = bounds_of(k, args_of(std::as_const(x).view(), y.view()));
    EXPECT_FALSE(b[1].exact());
    EXPECT_FALSE(b[1].bounded());
}
