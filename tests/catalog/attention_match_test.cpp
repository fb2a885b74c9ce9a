// The FlashAttention matcher (passes/attention_match.h) and the contraction pass's
// plans for it, asserted on the catalog's attention kernel traced for shapes a user
// would launch: which block sizes and forms reach the Hopper kernel, and the reason
// `kiln plan` gives for those that do not. No NVRTC, no device.
#include <deque>

#include <gtest/gtest.h>
#include <kiln/kiln.h>

#include "attention_bf16.h"
#include "passes/lower.h"
#include "trace/kernel_trace.h"
#include "tests/unit/attention_variants.h"

namespace kiln {
namespace {

// The program of `k` specialised for q [1, 4, 200, d], k/v [1, 2, 333, d] (GQA 2).
std::shared_ptr<const ir::Program> trace(const Kernel& k, std::int64_t d) {
    static std::deque<std::shared_ptr<Tensor<bf16>>> keep;
    auto t = [&](std::vector<std::int64_t> e) { return keep.emplace_back(std::make_shared<Tensor<bf16>>(e)); };
    auto q = t({1, 4, 200, d}), kk = t({1, 2, 333, d}), v = t({1, 2, 333, d}), o = t({1, 4, 200, d});
    std::vector<detail::Arg> args{detail::to_arg(std::as_const(*q).view()), detail::to_arg(std::as_const(*kk).view()),
                                  detail::to_arg(std::as_const(*v).view()), detail::to_arg(o->view())};
    return detail::specialize(*k.shared_impl(), args, Loc::here());
}

passes::Lowered lower(const std::shared_ptr<const ir::Program>& p, Precision precision = Precision::standard, int sm = 90,
                      bool reblock_minus_infinity = true) {
    passes::LowerOptions o;
    o.attention_reblock_minus_infinity = reblock_minus_infinity;
    o.target = passes::TargetKind::cuda;
    o.precision = precision;
    o.sm = sm;
    return passes::lower(*p, o);
}

catalog::AttentionConfig config(std::int64_t bq, std::int64_t bk, bool causal, float softcap = 0) {
    return {bq, bk, 2, causal, 0.125f, softcap};
}

TEST(AttentionMatch, UserBlocksCausalSoftcapAndGroupedQueriesReachTheHopperKernel) {
    for (auto [bq, bk, causal, softcap, d] : std::vector<std::tuple<int, int, bool, float, int>>{
             {64, 64, false, 0, 64}, {128, 128, true, 0, 128}, {128, 64, true, 30, 128}, {32, 64, false, 0, 64}, {64, 64, false, 0, 256}}) {
        SCOPED_TRACE("blocks " + std::to_string(bq) + "x" + std::to_string(bk) + " d" + std::to_string(d));
        auto p = trace(catalog::make_attention_kernel<bf16>("a", config(bq, bk, causal, softcap)), d);
        auto l = lower(p);
        ASSERT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
        const auto& m = *l.contractions.attention;
        EXPECT_EQ(m.bq, bq);
        EXPECT_EQ(m.bk, bk);
        EXPECT_EQ(m.d, d);
        EXPECT_EQ(m.row_axis, 2) << "the query blocks are the nest's third axis";
        for (const auto& [node, plan] : l.contractions.mma) EXPECT_EQ(plan.lowering, passes::MmaLowering::wgmma_attention);
    }
}

// Whether the kernel may block the keys its own way: only where the key block index
// reaches nothing but the loads and values over the keys, and either the row
// maximum starts finite or the kernel's blocks hold whole program blocks and make
// NaN the rows the program's first block hides (from -inf, a first block whose keys
// are all masked gives NaN: first_block_nan).
TEST(AttentionMatch, KeysAreFreeToReblockOnlyWhereNoBlockingCanShow) {
    catalog::AttentionConfig finite = config(64, 64, true);
    finite.initial_max = -1e30f;
    auto match = [](const std::shared_ptr<const ir::Program>& p, bool reblock_minus_infinity = true) {
        auto l = lower(p, Precision::standard, 90, reblock_minus_infinity);
        EXPECT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
        return l.contractions.attention.value_or(passes::AttentionMatch{});
    };
    const auto from_finite = match(trace(catalog::make_attention_kernel<bf16>("a", finite), 64));
    EXPECT_TRUE(from_finite.key_block_free);
    EXPECT_FALSE(from_finite.first_block_nan);
    const auto minus_infinity = trace(catalog::make_attention_kernel<bf16>("a", config(64, 64, true)), 64);
    EXPECT_TRUE(match(minus_infinity).key_block_free) << "64 keys divide the kernel's 128";
    EXPECT_TRUE(match(minus_infinity).first_block_nan);
    EXPECT_FALSE(match(minus_infinity, false).key_block_free) << "the row maximum starts at -inf and re-blocking it is turned off";
    EXPECT_FALSE(match(trace(attention_variants::block_causal(64), 64)).key_block_free) << "a per-row mask of the key block index";
}

TEST(AttentionMatch, TheReasonAKernelMissesIsShown) {
    // A row value computed from the key block index: the kernel's key block must then
    // be the program's, and it takes no 32-key block.
    auto p = trace(attention_variants::block_causal(32), 64);
    auto l = lower(p);
    EXPECT_FALSE(l.contractions.attention.has_value());
    EXPECT_EQ(l.contractions.attention_why,
              "not FlashAttention: the kernel's key block must be the program's (its key block index reaches a ge over the query rows), and 32 keys "
              "is not one it takes with head dimensions 64 and 64 (64, or 128 with at most 128 value channels and at most 256 channels in all)");
    for (const auto& [node, plan] : l.contractions.mma) EXPECT_NE(plan.describe().find("32 keys is not one it takes"), std::string::npos) << plan.describe();

    // 96 channels: the kernel pads them to 128 (attention_kernel_head_dim); 100 are not whole 16-byte rows.
    auto wide = trace(catalog::make_attention_kernel<bf16>("a", config(64, 64, false)), 96);
    EXPECT_TRUE(lower(wide).contractions.attention.has_value()) << lower(wide).contractions.attention_why;
    auto odd = trace(catalog::make_attention_kernel<bf16>("a", config(64, 64, false)), 100);
    EXPECT_EQ(lower(odd).contractions.attention_why, "not FlashAttention: head dimensions 100 and 100 are not multiples of 8 up to 256");

    auto exact = lower(trace(catalog::make_attention_kernel<bf16>("a", config(64, 64, false)), 64), Precision::exact);
    EXPECT_EQ(exact.contractions.attention_why, "not FlashAttention: exact precision keeps the contract's order");
    auto ampere = lower(trace(catalog::make_attention_kernel<bf16>("a", config(64, 64, false)), 64), Precision::standard, 80);
    EXPECT_EQ(ampere.contractions.attention_why, "not FlashAttention: wgmma needs sm_90a");
}

// Other ways to write it: the rescale written twice, the scale inside the exponent
// (the maximum over unscaled scores), 2-D views with the causal trip count; and
// different scales in the two exponents, which is not an online softmax.
TEST(AttentionMatch, FormsUsersWriteBesidesTheCatalogs) {
    using attention_variants::Form;
    for (Form f : {Form::alpha_twice, Form::scale_in_exponent}) {
        auto l = lower(trace(attention_variants::kernel_4d(f), 64));
        ASSERT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
        EXPECT_EQ(l.contractions.attention->alphas.size(), f == Form::alpha_twice ? 2u : 1u);
    }
    // The product from zero added to the rescaled accumulator is the same sum
    // reassociated; values nothing reads are passed over (the kernel computes neither).
    for (Form f : {Form::product_added, Form::dead_values}) {
        auto p = trace(attention_variants::kernel_4d(f), 64);  // the match points into it
        auto l = lower(p);
        ASSERT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
        EXPECT_EQ(l.contractions.attention->output_mma->operands[2]->op, f == Form::product_added ? detail::OpCode::full : detail::OpCode::mul);
    }
    // 3-D views whose tiles are reshaped to 2-D for the products and back for the store.
    {
        static std::deque<std::shared_ptr<Tensor<bf16>>> tensors;
        auto t3 = [&](std::vector<std::int64_t> e) { return tensors.emplace_back(std::make_shared<Tensor<bf16>>(e)); };
        auto q3 = t3({8, 200, 64}), k3 = t3({8, 333, 64}), v3 = t3({8, 333, 64}), o3 = t3({8, 200, 64});
        std::vector<detail::Arg> a3{detail::to_arg(std::as_const(*q3).view()), detail::to_arg(std::as_const(*k3).view()),
                                    detail::to_arg(std::as_const(*v3).view()), detail::to_arg(o3->view())};
        auto p = detail::specialize(*attention_variants::reshaped_3d().shared_impl(), a3, Loc::here());
        auto l = lower(p);
        ASSERT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
        EXPECT_EQ(l.contractions.attention->load_q->op, detail::OpCode::load) << "the reshape's operand";
    }
    // Triton's exp2 with log2(e) folded into the scale (written pow(2, ..): the same
    // invariance, exp(c ln 2 (x - m))), and the rescale as a reciprocal; a base below
    // one or a reciprocal of the wrong difference is no online softmax.
    for (Form f : {Form::power_of_two, Form::reciprocal_alpha}) {
        auto l = lower(trace(attention_variants::kernel_4d(f), 64));
        EXPECT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
    }
    for (Form f : {Form::power_below_one, Form::reciprocal_wrong_way})
        EXPECT_EQ(lower(trace(attention_variants::kernel_4d(f), 64)).contractions.attention_why,
                  "not FlashAttention: the rescale factor is not exp(m - m') (or exp(c (m - m')) with a constant c > 0, B^(c (m - m')) with a constant "
                  "B > 1, or 1 / exp(c (m' - m)))");
    auto bad = lower(trace(attention_variants::kernel_4d(Form::mismatched_scales), 64));
    EXPECT_EQ(bad.contractions.attention_why, "not FlashAttention: the probabilities and the rescale factor scale the exponent differently");

    static std::deque<std::shared_ptr<Tensor<bf16>>> keep;
    auto t = [&](std::vector<std::int64_t> e) { return keep.emplace_back(std::make_shared<Tensor<bf16>>(e)); };
    auto q = t({300, 128}), k = t({300, 128}), v = t({300, 128}), o = t({300, 128});
    std::vector<detail::Arg> args{detail::to_arg(std::as_const(*q).view()), detail::to_arg(std::as_const(*k).view()),
                                  detail::to_arg(std::as_const(*v).view()), detail::to_arg(o->view())};
    auto two_d = lower(detail::specialize(*attention_variants::kernel_2d().shared_impl(), args, Loc::here()));
    ASSERT_TRUE(two_d.contractions.attention.has_value()) << two_d.contractions.attention_why;
    EXPECT_EQ(two_d.contractions.attention->row_axis, 0);
}

// The sequence-major layout [batch, sequence, head, channel]: the rows (and keys)
// are each view's second dim; the channels stay last.
TEST(AttentionMatch, SequenceMajorViewsReachTheHopperKernel) {
    static std::deque<std::shared_ptr<Tensor<bf16>>> keep;
    auto t = [&](std::vector<std::int64_t> e) { return keep.emplace_back(std::make_shared<Tensor<bf16>>(e)); };
    auto q = t({2, 200, 4, 64}), k = t({2, 333, 4, 64}), v = t({2, 333, 4, 64}), o = t({2, 200, 4, 64});
    std::vector<detail::Arg> args{detail::to_arg(std::as_const(*q).view()), detail::to_arg(std::as_const(*k).view()),
                                  detail::to_arg(std::as_const(*v).view()), detail::to_arg(o->view())};
    auto p = detail::specialize(*attention_variants::sequence_major().shared_impl(), args, Loc::here());
    auto l = lower(p);
    ASSERT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
    const passes::AttentionMatch& m = *l.contractions.attention;
    EXPECT_EQ(m.q_row_dim, 1);
    EXPECT_EQ(m.k_row_dim, 1);
    EXPECT_EQ(m.v_row_dim, 1);
    ASSERT_EQ(m.stores.size(), 1u);
    EXPECT_EQ(passes::tile_dim(m.stores[0]->operands.back(), m.axis_rows), 1);
    EXPECT_EQ(m.bq, 64);
    EXPECT_EQ(m.d, 64);
}

// The forward pass for training stores each query row's log-sum-exp beside the
// output: a value per row, stored at the query tile's row origin (AttentionMatch::row_stores); stored
// anywhere else, the kernel would not know which of its rows to write.
TEST(AttentionMatch, AValuePerQueryRowIsStoredBesideTheOutput) {
    static std::deque<std::shared_ptr<Tensor<bf16>>> keep;
    static std::deque<std::shared_ptr<Tensor<f32>>> keep_f32;
    auto t = [&](std::vector<std::int64_t> e) { return keep.emplace_back(std::make_shared<Tensor<bf16>>(e)); };
    auto q = t({1, 4, 200, 64}), k = t({1, 4, 333, 64}), v = t({1, 4, 333, 64}), o = t({1, 4, 200, 64});
    auto lse = keep_f32.emplace_back(std::make_shared<Tensor<f32>>(std::vector<std::int64_t>{1, 4, 200}));
    std::vector<detail::Arg> args{detail::to_arg(std::as_const(*q).view()), detail::to_arg(std::as_const(*k).view()),
                                  detail::to_arg(std::as_const(*v).view()), detail::to_arg(o->view()), detail::to_arg(lse->view())};
    auto p = detail::specialize(*attention_variants::with_log_sum_exp().shared_impl(), args, Loc::here());
    auto l = lower(p);
    ASSERT_TRUE(l.contractions.attention.has_value()) << l.contractions.attention_why;
    ASSERT_EQ(l.contractions.attention->row_stores.size(), 1u);
    EXPECT_EQ(passes::tile_dim(l.contractions.attention->row_stores[0]->operands.back(), l.contractions.attention->axis_rows), 2)
        << "lse [batch, head, row]";
    EXPECT_EQ(l.contractions.attention->stores.size(), 1u) << "the output, apart";
    auto wrong = detail::specialize(*attention_variants::with_log_sum_exp(/*at_row_zero=*/true).shared_impl(), args, Loc::here());
    EXPECT_EQ(lower(wrong).contractions.attention_why, "not FlashAttention: a store's row origin is not the query tile's");
}

}  // namespace
}  // namespace kiln
