// The Hopper attention kernel's memory schedule, read from its generated source and
// plan (no device): a persistent grid takes tiles from a counter; tiles take the
// batch and head indices in groups that share their keys and values in L2; a 16-bit
// output leaves in 16-byte chunks transposed inside quads of lanes, at any output
// width. (Their effect is measured on the device: bench/results/gpu-20261203-s10,
// gpu-20261203-s15; correctness by the catalog's attention entries.)
#include <gtest/gtest.h>

#include "examples/attention_bf16.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "targets/cuda/nvrtc.h"
#include "tests/unit/attention_variants.h"
#include "tests/unit/cuda_test_util.h"
#include "tests/variants/attention_variants.h"

namespace kiln {
namespace {

using cuda_test::args_of;
using cuda_test::contains;
using cuda_test::cuda_text;
using cuda_test::What;


struct Texts {
    std::string source, plan;
};

// make_attention_kernel<bf16> (full, 128 query rows x `bk` keys a block) for q/k
// [1, 4, 512, d], v and the output [.., dv].
Texts attention_texts(std::int64_t d, std::int64_t dv, std::int64_t bk = 128) {
    Tensor<bf16> q({1, 4, 512, d}), k({1, 4, 512, d}), v({1, 4, 512, dv}), o({1, 4, 512, dv});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), o.view());
    Kernel att = catalog::make_attention_kernel<bf16>("attention_text", {128, bk, 1, false, 0.125f, 0});
    return {cuda_text(att, args, Precision::standard, What::source), cuda_text(att, args, Precision::standard, What::plan)};
}

TEST(CudaAttentionText, CtasShareKeysInL2AndTheOutputLeavesIn16ByteChunks) {
    REQUIRE_NVRTC();
    const Texts t = attention_texts(128, 128);
    ASSERT_TRUE(contains(t.plan, "FlashAttention (")) << t.plan;
    // About two waves of 132 CTAs a group at d 128 (264 / 4 query blocks: groups of 66 heads here).
    EXPECT_TRUE(contains(t.source, "kiln_group = kiln_rctas >= 264 ? 1 : 264 / kiln_rctas;"));
    EXPECT_TRUE(contains(t.plan, "tiles in groups of batch and head indices whose keys and values share L2"));
    // Whole 16-byte chunks of a row, transposed inside each quad of lanes (no shared memory).
    EXPECT_TRUE(contains(t.source, "kg::quad_transpose(kiln_w);"));
    EXPECT_TRUE(contains(t.source, "*reinterpret_cast<uint4*>(kiln_to) = make_uint4(kiln_w[0], kiln_w[1], kiln_w[2], kiln_w[3]);"));
    EXPECT_TRUE(contains(t.plan, "the output stored in 16-byte chunks transposed inside quads of lanes"));
    EXPECT_FALSE(contains(t.plan, "the output stored through shared memory"));
    // The warpgroup through emit_gemm_sm90.cuh's warpgroup_index, always a shuffle in
    // this kernel (KILN_UNIFORM_WARPGROUP: its wgmma descriptors on the uniform datapath).
    EXPECT_TRUE(contains(t.source, "const int kiln_wg = kg::warpgroup_index();"));
    EXPECT_TRUE(contains(t.source, "#define KILN_UNIFORM_WARPGROUP 1"));
    // d 256: half the CTAs a group (each head's keys and values are twice the bytes).
    EXPECT_TRUE(contains(attention_texts(256, 256, 64).source, "kiln_group = kiln_rctas >= 132 ? 1 : 132 / kiln_rctas;"));
}

// The grid is persistent: each CTA takes tiles from the launch's counter in turn
// and hands their numbers to its consumers; the ring of key/value stages and the
// query rows' barriers run on from tile to tile, and the last CTA to stop leaves
// the counter at zero for the next launch.
TEST(CudaAttentionText, CtasTakeTilesInTurnFromACounter) {
    REQUIRE_NVRTC();
    const Texts t = attention_texts(128, 128);
    ASSERT_TRUE(contains(t.plan, "a persistent grid (one CTA per multiprocessor")) << t.plan;
    EXPECT_TRUE(contains(t.source, "kiln_tile = kiln_next ? atomicAdd(kiln_next, 1u) + gridDim.x : kiln_tile + gridDim.x;"));
    EXPECT_TRUE(contains(t.source, "if (atomicAdd(kiln_next + 1, 1u) == gridDim.x - 1) kiln_next[0] = 0, kiln_next[1] = 0;"));
    EXPECT_TRUE(contains(t.source, "kg::mbar_wait(&kiln_qfull[kiln_wgc], kiln_ti & 1);"));
    // A warpgroup's query rows go back to the producer once the tile's last S = Q K^T
    // has read them (the epilogue does not use their memory), the tile's slot at its end.
    EXPECT_TRUE(contains(t.source, "if (kiln_kb + 2 == kiln_blocks) {"));
    EXPECT_TRUE(contains(t.source, "if (lane == 0) kg::mbar_arrive(&kiln_qempty[kiln_wgc]);"));
    EXPECT_TRUE(contains(t.source, "if (lane == 0) kg::mbar_arrive(&kiln_tempty[kiln_ti & 1]);"));
    // The CTA's first tile loads its query rows first; later ones after the blocks
    // the ring takes before the previous tile's last product.
    EXPECT_TRUE(contains(t.source, "const int kiln_qafter = kiln_ti == 0 ? 0 : kiln_blocks < 2 ? kiln_blocks : 2;"));
    // The first block of a tile waits at the ring's running stage, not at stage 0.
    EXPECT_TRUE(contains(t.source, "kg::mbar_wait(&kiln_kfull[kiln_stage], kiln_phase);"));
    EXPECT_FALSE(contains(t.source, "kiln_kfull[0], 0)"));
}

// An output wider than the query rows' shared memory (DV > D) could not be staged
// there; through registers its width does not matter.
TEST(CudaAttentionText, AnOutputWiderThanQsRowsLeavesIn16ByteChunksToo) {
    REQUIRE_NVRTC();
    const Texts t = attention_texts(64, 128);
    ASSERT_TRUE(contains(t.plan, "FlashAttention (")) << t.plan;
    EXPECT_TRUE(contains(t.source, "kg::quad_transpose(kiln_w);"));
    EXPECT_TRUE(contains(t.plan, "16-byte chunks transposed inside quads of lanes"));
}

// The consumer warpgroups take turns to issue their products above head dimension 64
// only: at 64 the softmax is as long as the products, and issuing freely measured
// 2-4% faster on an H200 (EmitOptions::attention_pingpong).
TEST(CudaAttentionText, WarpgroupsTakeTurnsAboveHeadDimension64) {
    REQUIRE_NVRTC();
    const Texts d128 = attention_texts(128, 128), d64 = attention_texts(64, 64);
    ASSERT_TRUE(contains(d64.plan, "FlashAttention (")) << d64.plan;
    EXPECT_TRUE(contains(d128.source, "kg::turn_wait(kiln_wgc);"));
    EXPECT_TRUE(contains(d128.plan, "the two taking turns to issue their products"));
    EXPECT_FALSE(contains(d64.source, "kg::turn_wait(kiln_wgc);"));
    EXPECT_FALSE(contains(d64.plan, "taking turns"));
}

// KILN_ATTENTION_DEFER_OUTPUT (EmitOptions::attention_defer_output; off by default until
// measured): a tile's output is packed at its end and stored in the next tile once its
// first S = Q K^T is issued, or before the CTA stops. The kernel compiles (NVRTC, offline)
// without ptxas serialising the products or spilling more than by default.
// A value per query row (the log-sum-exp of a forward pass for training) leaves from
// one lane of each quad, which holds the row's final maximum and sum as its three
// neighbours do, for each of its two rows; with the output deferred to the next tile,
// at the tile's end, while they are still the tile's.
TEST(CudaAttentionText, AValuePerRowLeavesFromOneLaneOfEachQuad) {
    REQUIRE_NVRTC();
    Tensor<bf16> q({1, 4, 512, 128}), k({1, 4, 512, 128}), v({1, 4, 512, 128}), o({1, 4, 512, 128});
    Tensor<f32> lse({1, 4, 512});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), o.view(), lse.view());
    for (bool defer : {false, true}) {
        SCOPED_TRACE(defer ? "deferred output" : "output at the tile's end");
        // (A kernel each: this process keeps one kernel a program and precision.)
        auto program = detail::specialize(*attention_variants::with_log_sum_exp().shared_impl(), args, Loc::here());
        cu::EmitOptions options = cu::emit_options(args, CompileOptions{.precision = Precision::fast});
        options.attention_defer_output = defer;
        const auto kernel = cu::compiled_kernel(*program, options, nullptr, /*need_text=*/true);
        ASSERT_FALSE(kernel->kernel.attention.entry.empty()) << kernel->log;
        ASSERT_EQ(kernel->kernel.attention.defer_output, defer);
        const std::string& src = kernel->kernel.source;
        const std::size_t at = src.find("    if ((lane & 3) == 0) {\n");
        ASSERT_NE(at, std::string::npos) << src.substr(src.size() > 6000 ? src.size() - 6000 : 0);
        const std::string stores = src.substr(at, 800);
        EXPECT_TRUE(contains(stores, "a4[")) << stores;
        EXPECT_TRUE(contains(stores, "kiln_m[h]")) << stores;
        EXPECT_TRUE(contains(stores, "kiln_l[h]")) << stores;
        if (defer) EXPECT_LT(src.find("kiln_pend = kiln_tile;"), at) << "stored with the tile's own maximum and sum, at its end";
    }
}

// One element the same for a whole query tile (ALiBi's slope of the head), loaded
// before the loop or in it: read where the score uses it, with the view's bounds
// (zero fill), not staged like the query, key and value tiles.
TEST(CudaAttentionText, AnElementTheSameForTheTileIsReadWhereItIsUsed) {
    REQUIRE_NVRTC();
    Tensor<bf16> q({1, 2, 256, 64}), k({1, 2, 256, 64}), v({1, 2, 256, 64}), o({1, 2, 256, 64});
    Tensor<f32> slopes({2});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), std::as_const(slopes).view(), o.view());
    for (Kernel att : {variants::attention::fa_alibi(), variants::attention::fa_alibi_inloop()}) {
        SCOPED_TRACE(att.name());
        const Texts t{cuda_text(att, args, Precision::standard, What::source), cuda_text(att, args, Precision::standard, What::plan)};
        ASSERT_TRUE(contains(t.plan, "FlashAttention (")) << t.plan;
        EXPECT_TRUE(contains(t.source, "(unsigned long long)(long long)(kiln_g1) < (unsigned long long)a3_e0 ? a3[(long long)(kiln_g1) * a3_s0] : 0x0p+0f"))
            << "the slope of head kiln_g1, 0 past the view's end";
    }
}

// The scale applied to the query tile before the loop (`cast<bf16>(cast<f32>(q) * c)`)
// is applied by each consumer warpgroup to its rows of Q in shared memory once they
// arrive, with the program's rounding, then fenced for the wgmma's async proxy and
// waited for by the warpgroup's four warps, before the first S = Q K^T.
TEST(CudaAttentionText, TheQuerysOwnOpsApplyToItsRowsInSharedMemory) {
    REQUIRE_NVRTC();
    Tensor<bf16> q({1, 2, 256, 64}), k({1, 2, 256, 64}), v({1, 2, 256, 64}), o({1, 2, 256, 64});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), o.view());
    for (Kernel att : {variants::attention::fa_scale_q_f32(), variants::attention::fa_scale_q_bf16()}) {
        SCOPED_TRACE(att.name());
        const std::string src = cuda_text(att, args, Precision::standard, What::source);
        const std::size_t at = src.find("kiln_e[u] = kc::f2b(kc::rb16((kiln_qx * 0x1p-3f)));");
        ASSERT_NE(at, std::string::npos) << src.substr(src.find("kiln_qfull[kiln_wgc], kiln_ti & 1);"), 1500);
        const std::size_t fence = src.find("kg::fence_proxy_async_shared();", at), barrier = src.find("bar.sync %0, 128;", at);
        const std::size_t first_s = src.find("KilnScore::run(", at);
        EXPECT_LT(fence, barrier);
        EXPECT_LT(barrier, first_s) << "the warpgroup's rows are done before its first product reads them";
        EXPECT_LT(src.find("kg::mbar_wait(&kiln_qfull[kiln_wgc], kiln_ti & 1);"), at) << "once the rows have arrived";
    }
}

TEST(CudaAttentionText, ADeferredOutputIsStoredUnderTheNextTilesFirstProduct) {
    REQUIRE_NVRTC();
    Tensor<bf16> q({1, 4, 512, 128}), k({1, 4, 512, 128}), v({1, 4, 512, 128}), o({1, 4, 512, 128});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), o.view());
    Kernel att = catalog::make_attention_kernel<bf16>("attention_deferred", {128, 128, 1, true, 0.125f, 0});
    auto program = detail::specialize(*att.shared_impl(), args, Loc::here());
    cu::EmitOptions plain = cu::emit_options(args, CompileOptions{.precision = Precision::fast});
    cu::EmitOptions deferred = plain;
    deferred.attention_defer_output = true;
    EXPECT_FALSE(contains(cu::emit_kernel(*program, plain).source, "kiln_pend")) << "off by default";
    const auto kd = cu::compiled_kernel(*program, deferred, nullptr, /*need_text=*/true);
    const std::string& src = kd->kernel.source;
    ASSERT_TRUE(kd->kernel.attention.defer_output);
    EXPECT_TRUE(contains(src, "unsigned kiln_out[32], kiln_pend = ~0u;"));
    EXPECT_TRUE(contains(src, "kiln_out[h * 16 + g + i] = kiln_w[i];")) << "packed at the tile's end";
    EXPECT_TRUE(contains(src, "    kiln_pend = kiln_tile;\n"));
    // Stored twice in the text: under the first S of the next tile, and before the CTA stops.
    EXPECT_EQ(cuda_test::count(src, "    const unsigned kiln_tile = kiln_pend;\n"), 2);
    const std::size_t first_s = src.find("KilnScore::run("), store = src.rfind("const unsigned kiln_tile = kiln_pend;");
    ASSERT_NE(first_s, std::string::npos);
    EXPECT_LT(first_s, store) << "the store follows the first S's issue";
    EXPECT_TRUE(contains(kd->kernel.attention.describe(), "each tile's output stored under the next tile's first S = Q K^T"));
    // (Another program: this process keeps one kernel a program and precision.)
    Kernel att2 = catalog::make_attention_kernel<bf16>("attention_not_deferred", {128, 128, 1, true, 0.125f, 0});
    const auto kp = cu::compiled_kernel(*detail::specialize(*att2.shared_impl(), args, Loc::here()), plain, nullptr, /*need_text=*/true);
    EXPECT_EQ(kp->log.find("serialized"), std::string::npos) << kp->log;
    EXPECT_EQ(kd->log.find("serialized"), std::string::npos) << kd->log;
    ASSERT_TRUE(kd->attention_resources.known && kp->attention_resources.known) << kd->log;
    EXPECT_LE(kd->attention_resources.spill_store_bytes, kp->attention_resources.spill_store_bytes) << kd->log;
}

// The rotated schedule (EmitOptions::attention_rotated): the loop over key blocks
// starts a pass early, at kiln_kb = -1, issuing S_0 alone, so that a tile's first
// block takes the loop's forms of the softmax and the kernel has no prologue of its
// own copies. Each path of that pass issues, passes its turn and waits in full, so
// ptxas serialises no product and injects no fence (a shared commit after the join
// had it add a dummy wgmma there, which made wait_group 1 wait for the product too);
// the rows whose first program block was all -inf still take the first pass's
// maximum; a deferred output still leaves under the tile's first S.
TEST(CudaAttentionText, TheRotatedScheduleRunsATilesFirstBlockThroughTheLoop) {
    REQUIRE_NVRTC();
    Tensor<bf16> q({1, 4, 512, 128}), k({1, 4, 512, 128}), v({1, 4, 512, 128}), o({1, 4, 512, 128});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), o.view());
    cu::EmitOptions plain = cu::emit_options(args, CompileOptions{.precision = Precision::fast});
    plain.attention_rotated = false;
    cu::EmitOptions rotated = plain;
    rotated.attention_rotated = true;
    // Causal from 32-key blocks at -inf: three forms of the softmax, and the kernel's
    // 128-key blocks re-blocked from the program's (first_block_nan).
    // (Two programs: this process keeps one kernel a program and precision.)
    Kernel causal = catalog::make_attention_kernel<bf16>("attention_rotated_causal", {128, 32, 1, true, 0.125f, 0});
    Kernel causal_plain = catalog::make_attention_kernel<bf16>("attention_plain_causal", {128, 32, 1, true, 0.125f, 0});
    const auto kp = cu::compiled_kernel(*detail::specialize(*causal_plain.shared_impl(), args, Loc::here()), plain, nullptr, /*need_text=*/true);
    const auto kr = cu::compiled_kernel(*detail::specialize(*causal.shared_impl(), args, Loc::here()), rotated, nullptr, /*need_text=*/true);
    const std::string& src = kr->kernel.source;
    ASSERT_TRUE(kr->kernel.attention.rotated && !kp->kernel.attention.rotated);
    ASSERT_TRUE(kr->kernel.attention.first_block_nan) << kr->kernel.attention.describe();
    EXPECT_TRUE(contains(src, "for (int kiln_kb = -1; kiln_kb + 1 < kiln_blocks; ++kiln_kb) {"));
    EXPECT_TRUE(contains(src, "const int kiln_nstage = kiln_kb < 0 ? kiln_stage : kiln_wrap ? 0 : kiln_stage + 1;"));
    // One copy of the block's forms, where the prologue had its own.
    EXPECT_EQ(cuda_test::count(kp->kernel.source, "const bool kiln_inside = "), 2);
    EXPECT_EQ(cuda_test::count(src, "const bool kiln_inside = "), 1);
    EXPECT_TRUE(contains(src, "if (kiln_t == 0 && kc < 32) kiln_first_max[h] = kc::max_nan(kiln_first_max[h], x);"));
    // Issue, turn and wait on each path of the pass: after a product wait_group 1, after S_0 alone 0.
    const std::size_t product = src.find("        if (kiln_kb >= 0) {\n"), first = src.find("        } else {\n", product);
    ASSERT_NE(product, std::string::npos);
    ASSERT_NE(first, std::string::npos);
    EXPECT_LT(src.find("KilnOutput::run(", product), first);
    EXPECT_LT(src.find("kg::turn_pass(kiln_wgc);", product), src.find("kg::wgmma_wait<1>();", product));
    EXPECT_LT(src.find("kg::wgmma_wait<1>();", product), first);
    EXPECT_LT(src.find("kg::turn_pass(kiln_wgc);", first), src.find("kg::wgmma_wait<0>();", first));
    for (const auto* c : {kp.get(), kr.get()}) {
        EXPECT_EQ(c->log.find("serialized"), std::string::npos) << c->log;
        EXPECT_EQ(c->log.find("C7519"), std::string::npos) << "no fence injected by ptxas: " << c->log;
        ASSERT_TRUE(c->attention_resources.known) << c->log;
    }
    EXPECT_LE(kr->attention_resources.spill_store_bytes, kp->attention_resources.spill_store_bytes) << kr->log;
    EXPECT_LT(kr->cubin.size(), kp->cubin.size() * 9 / 10) << "the prologue's code is gone";
    EXPECT_TRUE(contains(kr->kernel.attention.describe(), "a tile's first block run by the loop's code"));

    // A deferred output: stored on the first pass once S_0 is issued, and after the loop for a tile without blocks.
    cu::EmitOptions deferred = rotated;
    deferred.attention_defer_output = true;
    Kernel full = catalog::make_attention_kernel<bf16>("attention_rotated_deferred", {128, 128, 1, false, 0.125f, 0});
    const auto kd = cu::compiled_kernel(*detail::specialize(*full.shared_impl(), args, Loc::here()), deferred, nullptr, /*need_text=*/true);
    const std::string& ds = kd->kernel.source;
    ASSERT_TRUE(kd->kernel.attention.defer_output && kd->kernel.attention.rotated);
    EXPECT_EQ(cuda_test::count(ds, "    const unsigned kiln_tile = kiln_pend;\n"), 3) << "the first pass, a tile without blocks, the CTA's end";
    const std::size_t loop = ds.find("for (int kiln_kb = -1;"), s0 = ds.find("KilnScore::run(", loop), store = ds.find("const unsigned kiln_tile = kiln_pend;", loop);
    EXPECT_LT(s0, store) << "the store follows the first S's issue";
    EXPECT_LT(store, ds.find("kg::wgmma_wait<0>();", store));
    EXPECT_EQ(kd->log.find("serialized"), std::string::npos) << kd->log;
}

// The rolled forms (EmitOptions::attention_rolled_forms): the softmax of the forms they
// name loops over a local copy of S in groups of 4 elements (h a constant inside a
// group, so the two-element row arrays stay in registers) instead of being unrolled;
// S itself stays in registers (copied in and out with unrolled moves), the form's
// exponentials are written once per group, ptxas serialises no product and spills no
// more than without them, and the module is smaller.
TEST(CudaAttentionText, RolledFormsLoopOverACopyOfTheScores) {
    REQUIRE_NVRTC();
    Tensor<bf16> q({1, 4, 500, 128}), k({1, 4, 500, 128}), v({1, 4, 500, 128}), o({1, 4, 500, 128});
    auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), o.view());
    cu::EmitOptions unrolled = cu::emit_options(args, CompileOptions{.precision = Precision::standard});
    unrolled.attention_rolled_forms = 0;
    unrolled.attention_rotated = false;
    // (One program each: this process keeps one kernel a program and precision.)
    auto compile = [&](const char* name, int forms) {
        cu::EmitOptions o = unrolled;
        o.attention_rolled_forms = forms;
        Kernel causal = catalog::make_attention_kernel<bf16>(name, {128, 128, 1, true, 0.125f, 0});
        return cu::compiled_kernel(*detail::specialize(*causal.shared_impl(), args, Loc::here()), o, nullptr, /*need_text=*/true);
    };
    const auto k0 = compile("attention_rolled_0", 0), k1 = compile("attention_rolled_1", 1), k2 = compile("attention_rolled_2", 2);
    EXPECT_EQ(k0->kernel.attention.rolled_forms, 0);
    EXPECT_EQ(k1->kernel.attention.rolled_forms, 1);
    EXPECT_EQ(k2->kernel.attention.rolled_forms, 2);
    const std::string loop = "#pragma unroll 1\n            for (int j4 = 0; j4 < 64; j4 += 4) {\n";
    EXPECT_EQ(cuda_test::count(k0->kernel.source, loop), 0);
    // Two reductions (the maximum, the sum) in each rolled form; the general form in the
    // prologue and in the loop (1), and the masked inside form too (2).
    EXPECT_EQ(cuda_test::count(k1->kernel.source, loop), 4) << k1->kernel.source;
    EXPECT_EQ(cuda_test::count(k2->kernel.source, loop), 8);
    EXPECT_TRUE(contains(k1->kernel.source, "            float (&kiln_s)[64] = kiln_sr;\n"));
    EXPECT_TRUE(contains(k1->kernel.source, "                const int h = (jj >> 1) & 1;\n"));
    EXPECT_TRUE(contains(k1->kernel.attention.describe(), "the softmax of blocks crossing a row's key limit in a loop over S"));
    EXPECT_TRUE(contains(k2->kernel.attention.describe(), "the softmax of blocks whose masks are not proven in a loop over S"));
    for (const auto* c : {k0.get(), k1.get(), k2.get()}) {
        EXPECT_EQ(c->log.find("serialized"), std::string::npos) << c->log;
        ASSERT_TRUE(c->attention_resources.known) << c->log;
        EXPECT_LE(c->attention_resources.spill_store_bytes, k0->attention_resources.spill_store_bytes) << c->log;
    }
    // The local copy is the stack the rolled forms add: 256 bytes a form.
    EXPECT_GE(k1->attention_resources.stack_bytes, k0->attention_resources.stack_bytes + 256);
    EXPECT_LT(k1->cubin.size(), k0->cubin.size() * 9 / 10);
    EXPECT_LT(k2->cubin.size(), k1->cubin.size());
}

}  // namespace
}  // namespace kiln
