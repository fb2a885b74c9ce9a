// The canonical-GEMM matcher (passes/gemm_match.h) and the contraction pass's
// plans, asserted directly on traced programs: no NVRTC, no device.
#include <deque>

#include <gtest/gtest.h>
#include <kiln/kiln.h>

#include "ir/attrs.h"
#include "passes/gemm_match.h"
#include "passes/lower.h"
#include "gemm_kernels.h"
#include "trace/kernel_trace.h"

namespace kiln {
namespace {

using gemm_test::Epilogue;
using gemm_test::gemm;

struct Program {
    std::shared_ptr<const ir::Program> p;
};

Program trace(const Kernel& k, bool b_nk = false) {
    static std::deque<std::shared_ptr<void>> keep;
    auto a = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{300, 200});
    auto b = std::make_shared<Tensor<bf16>>(b_nk ? std::vector<std::int64_t>{260, 200} : std::vector<std::int64_t>{200, 260});
    auto bias = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{260});
    auto r = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{300, 260});
    auto c = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{300, 260});
    auto d = std::make_shared<Tensor<bf16>>(std::vector<std::int64_t>{300, 260});
    keep.insert(keep.end(), {a, b, bias, r, c, d});
    std::vector<detail::Arg> args{detail::to_arg(std::as_const(*a).view()), detail::to_arg(std::as_const(*b).view()),
                                  detail::to_arg(std::as_const(*bias).view()), detail::to_arg(std::as_const(*r).view()),
                                  detail::to_arg(c->view()), detail::to_arg(d->view()), detail::to_arg(1.5f)};
    return {detail::specialize(*k.shared_impl(), args, Loc::here())};
}

std::optional<passes::GemmMatch> match(Epilogue e, std::string* why = nullptr, bool b_nk = false) {
    static std::deque<Program> keep;
    keep.push_back(trace(gemm(e, b_nk), b_nk));
    std::string w;
    auto m = passes::match_gemm(*keep.back().p, &w);
    if (why) *why = w;
    return m;
}

int loads_varying(const passes::GemmMatch& m, passes::EpilogueVaries v) {
    int n = 0;
    for (const auto& e : m.epilogue) n += e.node->op == detail::OpCode::load && e.varies == v;
    return n;
}

TEST(GemmMatch, PlainGemm) {
    auto m = match(Epilogue::plain);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->bm, 128);
    EXPECT_EQ(m->bn, 128);
    EXPECT_EQ(m->bk, 64);
    EXPECT_FALSE(m->b_kmajor);
    EXPECT_TRUE(m->plain_epilogue());
    EXPECT_EQ(m->stores.size(), 1u);
}

TEST(GemmMatch, BiasVectorAlongNIsAColumnValue) {
    auto m = match(Epilogue::bias_relu);
    ASSERT_TRUE(m);
    EXPECT_EQ(loads_varying(*m, passes::EpilogueVaries::cols), 1);
    EXPECT_FALSE(m->plain_epilogue());
}

TEST(GemmMatch, ResidualTileAndParameterScale) {
    auto m = match(Epilogue::residual_scale);
    ASSERT_TRUE(m);
    EXPECT_EQ(loads_varying(*m, passes::EpilogueVaries::tile), 1);
}

TEST(GemmMatch, RowVectorAlongMIsARowValue) {
    auto m = match(Epilogue::row_scale);
    ASSERT_TRUE(m);
    EXPECT_EQ(loads_varying(*m, passes::EpilogueVaries::rows), 1);
}

// C += A B: the accumulator starts from the residual tile, which the kernel adds
// to the sum in the epilogue (the start is one more term of a reassociable sum).
TEST(GemmMatch, AnAccumulatorStartingFromATileIsAddedInTheEpilogue) {
    auto m = match(Epilogue::start_from_residual);
    ASSERT_TRUE(m);
    ASSERT_NE(m->init, nullptr);
    EXPECT_EQ(m->init->op, detail::OpCode::cast);
    EXPECT_EQ(loads_varying(*m, passes::EpilogueVaries::tile), 1) << "the residual, read in the epilogue";
    EXPECT_FALSE(m->plain_epilogue());
    EXPECT_EQ(match(Epilogue::plain)->init, nullptr) << "zeros: nothing to add";
}

// A Triton port's 1-D grid over the tiles: (pid / tiles_n, pid % tiles_n), or
// column-major (pid % tiles_m, pid / tiles_m). The kernel orders tiles its own way.
TEST(GemmMatch, AOneDimensionalGridOverTheTilesIsTheGemm) {
    static std::deque<Program> keep;
    for (bool row_major : {true, false}) {
        keep.push_back(trace(gemm_test::flat_gemm(row_major)));
        std::string why;
        auto m = passes::match_gemm(*keep.back().p, &why);
        ASSERT_TRUE(m) << why;
        ASSERT_NE(m->tiles_per_row, nullptr);
        EXPECT_EQ(m->flat_m_by_div, row_major);
    }
}

// No k loop: the whole k range in one tile, one mma in the nest. The kernel takes it
// as a loop of one step.
TEST(GemmMatch, OneMmaOverTheWholeKRangeIsTheGemm) {
    static std::deque<Program> keep;
    keep.push_back(trace(gemm_test::single_step_gemm()));
    std::string why;
    auto m = passes::match_gemm(*keep.back().p, &why);
    ASSERT_TRUE(m) << why;
    EXPECT_EQ(m->loop, nullptr);
    EXPECT_EQ(m->k_loop, -1);
    EXPECT_EQ(m->result, m->mma);
    EXPECT_EQ(m->bk, 200) << "A's k extent, the tile";
    EXPECT_TRUE(m->plain_epilogue()) << "the operands' loads are the product's, not the epilogue's";
}

TEST(GemmMatch, PreAndPostActivationOutputs) {
    auto m = match(Epilogue::two_outputs);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->stores.size(), 2u);
}

TEST(GemmMatch, WeightStoredNByKIsKMajor) {
    auto m = match(Epilogue::bias_relu, nullptr, /*b_nk=*/true);
    ASSERT_TRUE(m);
    EXPECT_TRUE(m->b_kmajor);
    EXPECT_EQ(m->bn, 128);
}

TEST(GemmMatch, ReasonsNameThePartThatDiffers) {
    std::string why;
    EXPECT_FALSE(match(Epilogue::reduction, &why));
    EXPECT_EQ(why, "the epilogue has a reduce_max that is not elementwise");
    EXPECT_FALSE(match(Epilogue::wrong_origin, &why));
    EXPECT_EQ(why, "an epilogue load is not the output's block, nor a vector at its m or n origin (unit dims aside)");
    EXPECT_FALSE(match(Epilogue::scalar_of_index, &why));
    EXPECT_EQ(why, "the epilogue's mul reads a value computed outside the epilogue");
}

TEST(GemmMatch, ContractionPlanSaysWhyNotWgmma) {
    auto p = trace(gemm(Epilogue::plain));
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    auto plan_of = [&](const passes::Lowered& l) {
        EXPECT_EQ(l.contractions.mma.size(), 1u);
        return l.contractions.mma.begin()->second;
    };
    auto standard = passes::lower(*p.p, o);
    EXPECT_EQ(plan_of(standard).lowering, passes::MmaLowering::wgmma_gemm);
    EXPECT_TRUE(standard.contractions.gemm.has_value());
    o.precision = Precision::exact;
    auto exact = passes::lower(*p.p, o);
    EXPECT_EQ(plan_of(exact).lowering, passes::MmaLowering::ordered);
    EXPECT_EQ(plan_of(exact).why, "exact precision keeps the contract's order");
    o.precision = Precision::standard;
    o.sm = 80;
    auto ampere = passes::lower(*p.p, o);
    EXPECT_EQ(plan_of(ampere).lowering, passes::MmaLowering::mma_sync);
    EXPECT_EQ(plan_of(ampere).shape, passes::TensorCoreShape::bf16_m16n8k16);
    EXPECT_EQ(ampere.contractions.gemm_why, "not the canonical GEMM: wgmma needs sm_90a");
    EXPECT_NE(plan_of(ampere).describe().find("not faster: not the canonical GEMM: wgmma needs sm_90a"), std::string::npos);
}

// The k loop's step as a user writes it (`gemm`'s signature, so that trace() fits).
enum class Step {
    triton_add,
    triton_add_swapped,
    add_onto_accumulating_mma,
    seed_dot,
    seed_dot_swapped,
    seed_dot_scaled,
    fallback_zero,
    fallback_one,
    fallback_negative_zero,
    iota_mask
};

Kernel gemm_step(Step s) {
    return kernel("gemm_step", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1>, View<const bf16, 2>, View<bf16, 2> C,
                                   View<bf16, 2>, Scalar<f32>) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 128)), gn = axis("block_n", ceil_div(B.extent(1), 128));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * 64;
                auto a = [&] { return A[coord(m0, k0), shape(m, k)]; };
                auto b = [&] { return B[coord(k0, n0), shape(k, n)]; };
                switch (s) {
                    case Step::triton_add: acc = acc + mma(a(), b(), zeros<f32>(shape(m, n))); break;
                    case Step::triton_add_swapped: acc = mma(a(), b(), zeros<f32>(shape(m, n))) + acc; break;
                    case Step::add_onto_accumulating_mma: acc = acc + mma(a(), b(), acc); break;
                    // Seed 000's block matmul: r = r + dot(ta, tb), operands widened to f32.
                    case Step::seed_dot: acc = acc + dot(cast<f32>(a()), cast<f32>(b())); break;
                    case Step::seed_dot_swapped: acc = dot(cast<f32>(a()), cast<f32>(b())) + acc; break;
                    case Step::seed_dot_scaled: acc = acc + dot(cast<f32>(a()), cast<f32>(b())) * 0.5f; break;
                    case Step::fallback_zero:
                        acc = mma(A(coord(m0, k0), shape(m, k)).load(0.0f), B(coord(k0, n0), shape(k, n)).load(0.0f), acc);
                        break;
                    case Step::fallback_one: acc = mma(A(coord(m0, k0), shape(m, k)).load(1.0f), b(), acc); break;
                    case Step::fallback_negative_zero: acc = mma(a(), B(coord(k0, n0), shape(k, n)).load(-0.0f), acc); break;
                    case Step::iota_mask: acc = mma(ite(iota(k) < 32, a(), 0.0f), b(), acc); break;
                }
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

std::optional<passes::GemmMatch> match_step(Step s, std::string* why) {
    static std::deque<Program> keep;
    keep.push_back(trace(gemm_step(s)));
    return passes::match_gemm(*keep.back().p, why);
}

// Triton's `acc += tl.dot(a, b)`: each step's product from zero, added to the
// accumulator; with reassociation allowed the same sum as mma(a(), b(), acc).
TEST(GemmMatch, AProductFromZeroAddedToTheAccumulatorIsTheGemm) {
    for (Step s : {Step::triton_add, Step::triton_add_swapped}) {
        std::string why;
        auto m = match_step(s, &why);
        ASSERT_TRUE(m) << why;
        EXPECT_EQ(m->bm, 128);
        EXPECT_EQ(m->bk, 64);
        EXPECT_TRUE(m->plain_epilogue());
    }
    std::string why;
    EXPECT_FALSE(match_step(Step::add_onto_accumulating_mma, &why));
    EXPECT_EQ(why, "the k loop is not acc = mma(load, load, acc) or acc = acc + mma(load, load, 0)");
}

// Seed 000's `r = r + dot(a, b)`: dot's product (anonymous dims, named by the add)
// under the same precision policy as mma's, so with reassociation allowed it is the
// GEMM as Triton's form is; a product scaled before the add is not.
TEST(GemmMatch, ASeedStyleDotAddedToTheAccumulatorIsTheGemm) {
    for (Step s : {Step::seed_dot, Step::seed_dot_swapped}) {
        std::string why;
        auto m = match_step(s, &why);
        ASSERT_TRUE(m) << why;
        EXPECT_EQ(m->bm, 128);
        EXPECT_EQ(m->bn, 128);
        EXPECT_EQ(m->bk, 64);
        EXPECT_TRUE(m->plain_epilogue());
    }
    std::string why;
    EXPECT_FALSE(match_step(Step::seed_dot_scaled, &why));
    EXPECT_EQ(why, "the k loop is not acc = mma(load, load, acc) or acc = acc + mma(load, load, 0)");
    // Exact precision keeps dot's pinned order, as mma's.
    auto p = trace(gemm_step(Step::seed_dot));
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    o.sm = 90;
    EXPECT_TRUE(passes::lower(*p.p, o).contractions.gemm.has_value());
    o.precision = Precision::exact;
    const auto exact = passes::lower(*p.p, o);
    ASSERT_EQ(exact.contractions.mma.size(), 1u);
    EXPECT_EQ(exact.contractions.mma.begin()->second.lowering, passes::MmaLowering::ordered);
    EXPECT_EQ(exact.contractions.mma.begin()->second.why, "exact precision keeps the contract's order");
}

// A load whose fallback is +0 reads what the kernel's zero fill reads; another value
// (or -0) is the program's own, which the kernel does not reproduce.
TEST(GemmMatch, OperandsLoadedWithAFallbackOfZeroAreTheGemms) {
    std::string why;
    EXPECT_TRUE(match_step(Step::fallback_zero, &why)) << why;
    EXPECT_FALSE(match_step(Step::fallback_one, &why));
    EXPECT_EQ(why, "a load's fallback is not +0 (the kernel fills with +0)");
    EXPECT_FALSE(match_step(Step::fallback_negative_zero, &why));
    EXPECT_EQ(why, "a load's fallback is not +0 (the kernel fills with +0)");
    EXPECT_FALSE(match_step(Step::iota_mask, &why));
    EXPECT_EQ(why, "an operand is masked otherwise than by index < a scalar along its own axes, with +0 elsewhere");
}

// Masks as Triton ports write them, tl.load(p, mask=offs < K, other=0): each
// condition `iota(axis) + the load's origin along it < a scalar`, +0 elsewhere. They
// hide only what the zero fill hides where the scalar is at least the view's extent,
// which the launch checks (GemmMask); a mask of any other form keeps the ordinary kernel.
enum class Mask { k_on_both, m_and_k_on_a, shifted_origin, greater_than_form, mask_fills_one };

Kernel masked_gemm(Mask form) {
    return kernel("masked_gemm", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1>, View<const bf16, 2>, View<bf16, 2> C,
                                     View<bf16, 2>, Scalar<f32>) {
        auto M = A.extent(0), K = A.extent(1);
        auto gm = axis("block_m", ceil_div(M, 128)), gn = axis("block_n", ceil_div(B.extent(1), 128)), kt = axis("k_tiles", ceil_div(K, 64));
        auto m = axis("m", 128), n = axis("n", 128), k = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * 64;
                auto offs_k = iota(k) + k0;
                auto a = A[coord(m0, k0), shape(m, k)];
                auto b = B[coord(k0, n0), shape(k, n)];
                switch (form) {
                    case Mask::k_on_both: acc = mma(ite(offs_k < K, a, 0.0f), ite(offs_k < K, b, 0.0f), acc); break;
                    case Mask::m_and_k_on_a: acc = mma(ite(iota(m) + m0 < M && offs_k < K, a, 0.0f), b, acc); break;
                    case Mask::shifted_origin: acc = mma(ite(offs_k + 1 < K, a, 0.0f), b, acc); break;
                    case Mask::greater_than_form: acc = mma(ite(K > offs_k, a, 0.0f), b, acc); break;
                    case Mask::mask_fills_one: acc = mma(ite(offs_k < K, a, 1.0f), b, acc); break;
                }
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

TEST(GemmMatch, OperandsUnderMasksOfTheirOwnBoundsAreTheGemms) {
    static std::deque<Program> keep;
    auto matched = [&](Mask f, std::string* why) {
        keep.push_back(trace(masked_gemm(f)));
        return passes::match_gemm(*keep.back().p, why);
    };
    std::string why;
    auto both = matched(Mask::k_on_both, &why);
    ASSERT_TRUE(both) << why;
    ASSERT_EQ(both->masks.size(), 2u);
    EXPECT_EQ(both->masks[0].param, 0);
    EXPECT_EQ(both->masks[0].dim, 1) << "A's k";
    EXPECT_EQ(both->masks[1].param, 1);
    EXPECT_EQ(both->masks[1].dim, 0) << "B's k, under A's extent: the launch compares it with B's";
    auto two = matched(Mask::m_and_k_on_a, &why);
    ASSERT_TRUE(two) << why;
    ASSERT_EQ(two->masks.size(), 2u);
    EXPECT_EQ(two->masks[0].dim, 0);
    EXPECT_EQ(two->masks[1].dim, 1);
    EXPECT_TRUE(matched(Mask::greater_than_form, &why)) << why;
    for (Mask f : {Mask::shifted_origin, Mask::mask_fills_one}) {
        EXPECT_FALSE(matched(f, &why));
        EXPECT_EQ(why, "an operand is masked otherwise than by index < a scalar along its own axes, with +0 elsewhere");
    }
}

// A tile loaded and never used (a leftover of debugging) is dead: the contraction
// pass matches with the program's liveness and passes over it; the matcher alone,
// without liveness, sees a third load.
TEST(GemmMatch, ValuesNothingReadsDoNotKeepTheGemmOffItsKernel) {
    auto k = kernel("gemm_with_leftovers", [](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1>, View<const bf16, 2> R, View<bf16, 2> C,
                                              View<bf16, 2>, Scalar<f32>) {
        auto gm = axis("block_m", ceil_div(A.extent(0), 128)), gn = axis("block_n", ceil_div(B.extent(1), 128));
        auto kt = axis("k_tiles", ceil_div(A.extent(1), 64));
        auto m = axis("m", 128), n = axis("n", 128), kk = axis("k", 64);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * 128, n0 = nest.index(gn) * 128;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * 64;
                auto a = A[coord(m0, k0), shape(m, kk)];
                [[maybe_unused]] auto peek = R[coord(m0, k0), shape(m, kk)];
                acc = mma(a, B[coord(k0, n0), shape(kk, n)], acc);
            }
            [[maybe_unused]] auto unused = acc * 2.0f;
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
    auto p = trace(k);
    std::string why;
    EXPECT_FALSE(passes::match_gemm(*p.p, &why));
    EXPECT_EQ(why, "the k loop loads more than the mma's operands");
    passes::LowerOptions o;
    o.target = passes::TargetKind::cuda;
    auto l = passes::lower(*p.p, o);
    ASSERT_TRUE(l.contractions.gemm.has_value()) << l.contractions.gemm_why;
    EXPECT_TRUE(l.contractions.gemm->plain_epilogue());
}

}  // namespace
}  // namespace kiln
