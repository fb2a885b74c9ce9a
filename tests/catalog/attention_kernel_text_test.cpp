// The Hopper attention kernel's memory schedule, read from its generated source and
// plan (no device): CTAs take the batch and head indices in groups that share their
// keys and values in L2, and a 16-bit output leaves through shared memory in 16-byte
// chunks, while an output wider than the rows of Q's shared memory (DV > D) is stored
// element by element. (Their effect is measured on the device:
// bench/results/gpu-20261203-s10; correctness by the catalog's attention entries.)
#include <gtest/gtest.h>

#include "examples/attention_bf16.h"
#include "targets/cuda/nvrtc.h"
#include "tests/unit/cuda_test_util.h"

namespace kiln {
namespace {

using cuda_test::args_of;
using cuda_test::contains;
using cuda_test::cuda_text;
using cuda_test::What;

#define REQUIRE_NVRTC() \
    if (cu::nvrtc_version().empty()) GTEST_SKIP() << "no NVRTC: " << [] { std::string w; cu::nvrtc_version(&w); return w; }()

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
    EXPECT_TRUE(contains(t.source, "kiln_group = kiln_row_ctas >= 264 ? 1 : 264 / kiln_row_ctas;"));
    EXPECT_TRUE(contains(t.plan, "CTAs in groups of batch and head indices whose keys and values share L2"));
    EXPECT_TRUE(contains(t.source, "*reinterpret_cast<uint4*>(kiln_to) = kiln_v;"));
    EXPECT_TRUE(contains(t.plan, "the output stored through shared memory in 16-byte chunks"));
    // The warpgroup through emit_gemm_sm90.cuh's warpgroup_index, a shuffle only under
    // KILN_CUDA_UNIFORM_WARPGROUP=1 (off by default: no macro in the text).
    EXPECT_TRUE(contains(t.source, "const int kiln_wg = kg::warpgroup_index();"));
    EXPECT_TRUE(contains(t.source, "const int kiln_wgc = kiln_wg - 1,"));
    EXPECT_FALSE(contains(t.source, "#define KILN_UNIFORM_WARPGROUP"));
    // d 256: half the CTAs a group (each head's keys and values are twice the bytes).
    EXPECT_TRUE(contains(attention_texts(256, 256, 64).source, "kiln_group = kiln_row_ctas >= 132 ? 1 : 132 / kiln_row_ctas;"));
}

TEST(CudaAttentionText, AnOutputWiderThanQsRowsIsStoredElementByElement) {
    REQUIRE_NVRTC();
    const Texts t = attention_texts(64, 128);
    ASSERT_TRUE(contains(t.plan, "FlashAttention (")) << t.plan;
    EXPECT_FALSE(contains(t.source, "kiln_to"));
    EXPECT_FALSE(contains(t.plan, "16-byte chunks"));
}

}  // namespace
}  // namespace kiln
