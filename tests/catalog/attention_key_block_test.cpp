// The FlashAttention kernel's own key block (passes/attention_match.h: key_block_free):
// a program written with key blocks of 16, 32, 48, 64, 128 or 256 keys, at head
// dimensions 64 to 256, reaches the Hopper kernel, which keeps a key block it takes
// (64, 128) and otherwise, where the program's row maximum starts finite, takes keys 128
// (or 64) at a time, computing each mask from the key's index; a program whose key
// block index reaches a per-row value, or whose row maximum starts at -inf, keeps its
// own key block or, where the kernel does not take it, the ordinary lowering.
// Offline: the plan and the PTX. On a device: every output against an f64 reference,
// causal and full, with key tails.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "examples/attention_bf16.h"
#include "targets/cuda/nvrtc.h"
#include "tests/unit/attention_variants.h"
#include "tests/unit/cuda_test_util.h"

using namespace kiln;
using namespace kiln::cuda_test;


namespace {

struct Case {
    std::int64_t bq, bk, d;
    bool causal;
    int kernel_keys;  // the key block the plan must name
};

// The catalog's kernel with a finite floor for the row maximum (-1e30, as older
// FlashAttention code writes it): with -inf, a first key block whose keys are all masked
// gives NaN, so only the program's blocking reproduces the program.
Kernel attention(const Case& c) {
    catalog::AttentionConfig cfg{c.bq, c.bk, 2, c.causal, 0.125f, 0};
    cfg.initial_max = -1e30f;
    return catalog::make_attention_kernel<bf16>("attention_key_block", cfg);
}

std::string label(const Case& c) {
    return "blocks " + std::to_string(c.bq) + "x" + std::to_string(c.bk) + " d" + std::to_string(c.d) + (c.causal ? " causal" : " full");
}

// q [1, 4, sq, d], k and v [1, 2, sk, d] (two query heads per key/value head).
struct Problem {
    std::int64_t sq, sk, d;
    Tensor<bf16> q, k, v;
    Problem(std::int64_t sq_, std::int64_t sk_, std::int64_t d_, unsigned seed)
        : sq(sq_), sk(sk_), d(d_), q({1, 4, sq_, d_}), k({1, 2, sk_, d_}), v({1, 2, sk_, d_}) {
        std::mt19937 g(seed);
        std::uniform_real_distribution<float> wide(-2, 2), unit(-1, 1);
        for (auto* t : {&q, &k}) for (auto& x : t->values()) x = bf16(wide(g));
        for (auto& x : v.values()) x = bf16(unit(g));
    }
    std::vector<detail::Arg> args(Tensor<bf16>& out) const {
        return args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), out.view());
    }
    // softmax(scale q k^T over the keys row i sees) v, in f64, for query head hh, row i.
    std::vector<double> reference(std::int64_t hh, std::int64_t i, double scale, std::int64_t visible) const {
        const std::int64_t kvh = hh / 2;
        std::vector<double> w(static_cast<std::size_t>(visible)), out(static_cast<std::size_t>(d), 0.0);
        double peak = -INFINITY, total = 0;
        for (std::int64_t j = 0; j < visible; ++j) {
            double dot = 0;
            for (std::int64_t e = 0; e < d; ++e) dot += double(float(q.values()[(hh * sq + i) * d + e])) * double(float(k.values()[(kvh * sk + j) * d + e]));
            peak = std::max(peak, w[static_cast<std::size_t>(j)] = dot * scale);
        }
        for (auto& x : w) total += (x = std::exp(x - peak));
        for (std::int64_t j = 0; j < visible; ++j)
            for (std::int64_t e = 0; e < d; ++e) out[static_cast<std::size_t>(e)] += w[static_cast<std::size_t>(j)] * double(float(v.values()[(kvh * sk + j) * d + e]));
        for (auto& x : out) x /= total;
        return out;
    }
};

// The relative L2 error of `got` [1, 4, sq, d] against the reference, row i seeing
// visible(i) keys.
template <class Visible> double relative_error(const Problem& p, const std::vector<bf16>& got, double scale, Visible visible) {
    double e = 0, norm = 0;
    for (std::int64_t hh = 0; hh < 4; ++hh)
        for (std::int64_t i = 0; i < p.sq; ++i) {
            const auto ref = p.reference(hh, i, scale, visible(i));
            for (std::int64_t c = 0; c < p.d; ++c) {
                const double x = double(float(got[static_cast<std::size_t>((hh * p.sq + i) * p.d + c)])) - ref[static_cast<std::size_t>(c)];
                e += x * x;
                norm += ref[static_cast<std::size_t>(c)] * ref[static_cast<std::size_t>(c)];
            }
        }
    return std::sqrt(e / norm);
}

const std::vector<Case> kCases = {
    {64, 32, 64, true, 128},    // a small key block, grouped four to the kernel's
    {128, 256, 128, true, 128}, // a large one, split in two
    {128, 64, 128, false, 64},  // 64 keys: a block the kernel takes, kept
    {64, 128, 192, true, 64},   // 192 channels: two stages of 128 keys do not fit
    {128, 128, 256, false, 64}, // 256 value channels: 64 keys (registers)
    {96, 48, 64, true, 128},    // blocks of no power of two: 96 queries, 48 keys
    {128, 16, 128, false, 128}, // 16 keys: eight to a kernel block
};

}  // namespace

TEST(AttentionKeyBlock, ProgramsOfAnyKeyBlockTakeTheKernelsOwn) {
    REQUIRE_NVRTC();
    for (const Case& c : kCases) {
        SCOPED_TRACE(label(c));
        Problem p(200, 333, c.d, 1);
        Tensor<bf16> out({1, 4, 200, c.d});
        const auto args = p.args(out);
        Kernel att = attention(c);
        const std::string plan = cuda_text(att, args, Precision::fast, What::plan);
        const std::string line = "128 query rows x " + std::to_string(c.kernel_keys) + " keys per block";
        EXPECT_NE(plan.find(line + (c.bk == c.kernel_keys ? ", head dims" : " (the program's blocks have " + std::to_string(c.bk) + " keys")), std::string::npos)
            << plan;
        const std::string ptx = cuda_text(att, args, Precision::fast, What::ptx);
        EXPECT_NE(ptx.find("wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.kernel_keys) + "k16.f32.bf16.bf16"), std::string::npos)
            << "S = Q K^T on the kernel's key block";
    }
    // A row maximum starting at -inf (the catalog's own): re-blocked only onto kernel
    // blocks holding whole program blocks (MinusInfinityReblocksOntoWholeProgramBlocks),
    // so a 48-key program takes the ordinary lowering and the plan says why.
    {
        Problem p(200, 333, 64, 1);
        Tensor<bf16> out({1, 4, 200, 64});
        Kernel att = catalog::make_attention_kernel<bf16>("attention_minus_infinity", {64, 48, 2, true, 0.125f, 0});
        const std::string plan = cuda_text(att, p.args(out), Precision::fast, What::plan);
        EXPECT_EQ(plan.find("FlashAttention (kiln_"), std::string::npos) << plan;
        EXPECT_NE(plan.find("its row maximum starts at -inf: a first key block whose keys are all masked gives NaN, which the kernel "
                            "reproduces only on blocks holding whole program blocks, and 48 keys do not divide its 128"),
                  std::string::npos)
            << plan;
        EXPECT_NE(plan.find("a row maximum starting at a finite floor (-1e30, say) would let the kernel take its own"), std::string::npos) << plan;
    }
    // The key block index reaching a per-row mask: the program's key block, 64 or 128.
    for (std::int64_t bk : {64, 128}) {
        Problem p(200, 333, 64, 1);
        Tensor<bf16> out({1, 4, 200, 64});
        const std::string plan = cuda_text(attention_variants::block_causal(bk), p.args(out), Precision::fast, What::plan);
        EXPECT_NE(plan.find("128 query rows x " + std::to_string(bk) + " keys per block, head dims"), std::string::npos) << plan;
    }
}

// A program of 32-key blocks whose row maximum starts at -inf takes the kernel's
// 128-key blocks, which make NaN the rows whose first 32 keys are all masked
// (EmitOptions::attention_reblock_minus_infinity, on by default); turned off
// (KILN_ATTENTION_REBLOCK_MINUS_INFINITY=0), it takes the ordinary lowering.
TEST(AttentionKeyBlock, MinusInfinityReblocksOntoWholeProgramBlocks) {
    REQUIRE_NVRTC();
    Problem p(200, 333, 64, 1);
    Tensor<bf16> out({1, 4, 200, 64});
    const auto args = p.args(out);
    Kernel att = attention_variants::padded(64, 32, -std::numeric_limits<float>::infinity(), 40);
    auto program = detail::specialize(*att.shared_impl(), args, Loc::here());
    cu::EmitOptions o = cu::emit_options(args, CompileOptions{.precision = Precision::fast});
    ASSERT_TRUE(o.attention_reblock_minus_infinity) << "the default";
    {
        const auto compiled = cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
        const std::string plan = compiled->kernel.attention.describe();
        EXPECT_NE(plan.find("128 query rows x 128 keys per block (the program's blocks have 32 keys"), std::string::npos) << plan;
        EXPECT_NE(plan.find("rows whose first program key block is all -inf made NaN as the program makes them"), std::string::npos) << plan;
        const std::string ptx = cu::kernel_ptx(*compiled);
        EXPECT_NE(ptx.find("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"), std::string::npos);
    }
    // A program of its own: this process remembers a program's kernels by its address
    // under the options a launch can vary, not the environment's A/B switches.
    o.attention_reblock_minus_infinity = false;
    Kernel again = attention_variants::padded(64, 32, -std::numeric_limits<float>::infinity(), 40);
    auto other = detail::specialize(*again.shared_impl(), args, Loc::here());
    const auto compiled = cu::compiled_kernel(*other, o, nullptr, /*need_text=*/true);
    EXPECT_EQ(compiled->kernel.attention.entry, "") << compiled->kernel.attention.describe();
    std::string contractions;
    for (const std::string& c : compiled->kernel.contractions) contractions += c + "\n";
    EXPECT_NE(contractions.find("KILN_ATTENTION_REBLOCK_MINUS_INFINITY=0 keeps a -inf program's blocks"), std::string::npos) << contractions;
}

// A program the attention kernel does not take (128-key blocks from -inf at 256
// channels: the kernel's own blocks of 64 keys cannot reproduce its NaN rows) whose
// ordinary kernel would stage more shared memory than a CTA has: the error names the
// op, and why the attention kernel missed it, which is where the fix is (a finite
// floor for the row maximum, or 64-key blocks), not only smaller tiles.
TEST(AttentionKeyBlock, AnOrdinaryKernelTooLargeForSharedMemorySaysWhyTheAttentionKernelMissed) {
    Problem p(200, 333, 256, 1);
    Tensor<bf16> out({1, 4, 200, 256});
    const auto args = p.args(out);
    Kernel att = attention_variants::padded(128, 128, -std::numeric_limits<float>::infinity());
    auto program = detail::specialize(*att.shared_impl(), args, Loc::here());
    const cu::EmitOptions o = cu::emit_options(args, CompileOptions{.precision = Precision::fast});
    try {
        cu::compiled_kernel(*program, o, nullptr, /*need_text=*/true);
        FAIL() << "the ordinary kernel fits";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("attention_variants.h:"), std::string::npos) << what;
        EXPECT_NE(what.find("bytes through shared memory on cuda, more than the 232448 a CTA can have; use smaller tiles (the program is not "
                            "FlashAttention: the kernel's key block must be the program's"),
                  std::string::npos)
            << what;
        EXPECT_NE(what.find("a row maximum starting at a finite floor (-1e30, say) would let the kernel take its own"), std::string::npos) << what;
    }
}

// The left-padded program on the device against the interpreter: with 40 keys of
// padding every output is NaN (the first 32-key block is all masked), with 20 none is,
// whichever kernel runs it (by default the FlashAttention kernel on 128-key blocks;
// with KILN_ATTENTION_REBLOCK_MINUS_INFINITY=0 the generic kernel).
TEST(AttentionKeyBlockDevice, LeftPaddingIsNaNExactlyWhereTheProgramsIs) {
    REQUIRE_DEVICE();
    for (std::int64_t pad : {20, 40}) {
        SCOPED_TRACE("pad " + std::to_string(pad));
        Problem p(130, 333, 64, 11);
        Tensor<bf16> out({1, 4, 130, 64}), ref({1, 4, 130, 64});
        Kernel att = attention_variants::padded(64, 32, -std::numeric_limits<float>::infinity(), pad);
        att.launch(interp(), Precision::standard, std::as_const(p.q).view(), std::as_const(p.k).view(), std::as_const(p.v).view(), ref.view());
        auto qd = p.q.to(cuda()), kd = p.k.to(cuda()), vd = p.v.to(cuda());
        auto od = out.to(cuda());
        att.launch(cuda(), Precision::fast, std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
        const auto got = od.to(host()).values();
        double e = 0, norm = 0;
        std::int64_t nan_mismatch = 0, nans = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            const double a = double(float(got[i])), b = double(float(ref.values()[i]));
            nans += std::isnan(b);
            if (std::isnan(a) != std::isnan(b)) ++nan_mismatch;
            else if (!std::isnan(b)) e += (a - b) * (a - b), norm += b * b;
        }
        EXPECT_EQ(nan_mismatch, 0);
        EXPECT_EQ(nans, pad >= 32 ? static_cast<std::int64_t>(got.size()) : 0);
        if (norm > 0) EXPECT_LE(std::sqrt(e / norm), 5e-3);
    }
}

TEST(AttentionKeyBlockDevice, EveryKeyBlockMatchesF64) {
    REQUIRE_DEVICE();
    const double scale = 0.125;
    for (const Case& c : kCases)
        for (Precision precision : {Precision::fast, Precision::standard}) {
            SCOPED_TRACE(label(c) + " " + std::string(precision_name(precision)));
            // 333 keys: a tail in every key block size; 300 queries: a tail in the query blocks.
            Problem p(300, 333, c.d, 7);
            Tensor<bf16> out({1, 4, 300, c.d});
            Kernel att = attention(c);
            auto qd = p.q.to(cuda()), kd = p.k.to(cuda()), vd = p.v.to(cuda());
            auto od = out.to(cuda());
            att.launch(cuda(), precision, std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(), od.view());
            const double err = relative_error(p, od.to(host()).values(), scale, [&](std::int64_t i) { return c.causal ? std::min(i + 1, p.sk) : p.sk; });
            std::printf("[ key block ] %s %s: relative L2 %.3e\n", label(c).c_str(), std::string(precision_name(precision)).c_str(), err);
            EXPECT_LE(err, 5e-3);  // bf16 outputs: about 2e-3; a mask off by a block moves rows by ~0.1
        }
    // Block-causal (the program's key block): row i sees the key blocks up to its own.
    for (std::int64_t bk : {64, 128}) {
        SCOPED_TRACE("block causal, key blocks of " + std::to_string(bk));
        Problem p(300, 333, 64, 9);
        Tensor<bf16> out({1, 4, 300, 64});
        auto qd = p.q.to(cuda()), kd = p.k.to(cuda()), vd = p.v.to(cuda());
        auto od = out.to(cuda());
        attention_variants::block_causal(bk).launch(cuda(), Precision::fast, std::as_const(qd).view(), std::as_const(kd).view(), std::as_const(vd).view(),
                                                     od.view());
        const double err = relative_error(p, od.to(host()).values(), scale, [&](std::int64_t i) { return std::min((i / bk + 1) * bk, p.sk); });
        std::printf("[ key block ] block causal %lld: relative L2 %.3e\n", static_cast<long long>(bk), err);
        EXPECT_LE(err, 5e-3);
    }
}


// The kernel issue 10 benchmarks (the catalog's: blocks of 128 queries and 128 keys,
// the row maximum from -inf, head dimension 128), full and causal, keeps every value in
// registers: no stack frame, no spills. Its producer warpgroup runs at 24 registers,
// and its loops, unrolled by NVVM, had spilled there (24 bytes of stack, 52 of spills;
// attention_producer.cpp keeps them rolled). The producer still spills a word once a
// tile at head dimension 64 causal (four stages) and with grouped queries (the key and
// value heads' indices live beside the query head's): 4-8 bytes, not asserted here.
TEST(AttentionKeyBlock, TheCatalogKernelNeitherSpillsNorKeepsAStackFrame) {
    REQUIRE_NVRTC();
    constexpr std::int64_t d = 128;
    for (const bool causal : {false, true}) {
        SCOPED_TRACE(causal ? "causal" : "full");
        Tensor<bf16> q({1, 4, 2048, d}), k({1, 4, 2048, d}), v({1, 4, 2048, d}), out({1, 4, 2048, d});
        const Kernel att = catalog::make_attention_kernel<bf16>("attention_bf16", {128, 128, 1, causal, 0.125f, 0});
        const auto args = args_of(std::as_const(q).view(), std::as_const(k).view(), std::as_const(v).view(), out.view());
        const std::string plan = cuda_text(att, args, Precision::standard, What::plan);
        const std::size_t at = plan.find("registers (attention kernel): ");
        ASSERT_NE(at, std::string::npos) << plan;
        const std::string line = plan.substr(at, plan.find('\n', at) - at);
        EXPECT_NE(line.find("; stack 0 bytes; spills 0 bytes stored, 0 bytes loaded"), std::string::npos) << line;
    }
}
