// The cuda target's program index records (targets/cuda/program_index.h): every
// launch field of an emitted kernel survives the record's text, the text the
// emitter's plan lines and source are not in, and a damaged record is a miss,
// never a launch with a wrong shape. (A fresh process launching through the
// index is tests/fake_cuda's AFreshProcessLaunchesThroughTheProgramIndex.)
#include <gtest/gtest.h>

#include <string>

#include "targets/cuda/program_index.h"

using namespace kiln;

namespace {

// Every launch field set to a value of its own, none the default.
cu::EmittedKernel every_field_set() {
    cu::EmittedKernel k;
    k.source = "the source";
    k.values = {"a plan line"};
    k.entry = "kiln_gemm_like";
    k.threads = 384;
    k.instances_per_cta = 3;
    k.min_ctas = 2;
    k.shared_bytes = 123456;
    cu::GemmKernel& g = k.gemm;
    g.entry = "kiln_gemm_like_sm90";
    g.threads = 256;
    g.shared_bytes = 200000;
    g.bm = 128, g.bn = 192, g.bk = 64;
    g.stages = 5;
    g.program_bm = 64, g.program_bn = 96, g.program_bk = 32;
    g.a = 1, g.b = 2;
    g.b_kmajor = true;
    g.split_k = true;
    g.outputs = {3, 5};
    g.m_axis = 1;
    g.k_loop = 4;
    g.in = Kind::F16;
    g.epilogue_loads = 2;
    return k;
}

const std::string kKey(64, 'a');

TEST(CudaIndex, EveryLaunchFieldSurvivesTheRecord) {
    const cu::EmittedKernel k = every_field_set();
    auto r = cu::parse_record(cu::format_record({kKey, k}));
    ASSERT_TRUE(r.has_value()) << cu::format_record({kKey, k});
    EXPECT_EQ(r->kernel_key, kKey);
    const cu::EmittedKernel& s = r->launch;
    EXPECT_EQ(s.entry, k.entry);
    EXPECT_EQ(s.threads, k.threads);
    EXPECT_EQ(s.instances_per_cta, k.instances_per_cta);
    EXPECT_EQ(s.min_ctas, k.min_ctas);
    EXPECT_EQ(s.shared_bytes, k.shared_bytes);
    const cu::GemmKernel &g = s.gemm, &w = k.gemm;
    EXPECT_EQ(g.entry, w.entry);
    EXPECT_EQ(g.threads, w.threads);
    EXPECT_EQ(g.shared_bytes, w.shared_bytes);
    EXPECT_EQ(std::tuple(g.bm, g.bn, g.bk, g.stages), std::tuple(w.bm, w.bn, w.bk, w.stages));
    EXPECT_EQ(std::tuple(g.program_bm, g.program_bn, g.program_bk), std::tuple(w.program_bm, w.program_bn, w.program_bk));
    EXPECT_EQ(std::tuple(g.a, g.b, g.b_kmajor, g.m_axis, g.k_loop), std::tuple(w.a, w.b, w.b_kmajor, w.m_axis, w.k_loop));
    EXPECT_EQ(g.outputs, w.outputs);
    EXPECT_EQ(g.in, w.in);
    EXPECT_EQ(g.epilogue_loads, w.epilogue_loads);
    // Lost here, a split-K kernel read back from the disk cache ran every tile whole
    // (found on an H200: decode 2x slower from a warm cache, bench/results/gpu-20261203-s11).
    EXPECT_EQ(g.split_k, w.split_k);
    // The text is not the launch's: it stays out of the record.
    EXPECT_TRUE(s.source.empty());
    EXPECT_TRUE(s.values.empty());
    EXPECT_EQ(cu::launch_shape(k).gemm.describe(), k.gemm.describe());
}

TEST(CudaIndex, AKernelWithoutAGemmKeepsNone) {
    cu::EmittedKernel k;
    k.entry = "kiln_rows";
    k.threads = 128;
    auto r = cu::parse_record(cu::format_record({kKey, k}));
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->launch.gemm.entry.empty());
    EXPECT_TRUE(r->launch.gemm.outputs.empty());
}

// Each damage: the record is a miss (the kernel is then found the long way).
TEST(CudaIndex, ADamagedRecordIsAMiss) {
    const std::string good = cu::format_record({kKey, every_field_set()});
    ASSERT_TRUE(cu::parse_record(good).has_value());
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string t = good;
        const auto at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return at == std::string::npos ? t : t.replace(at, from.size(), to);
    };
    const std::pair<std::string, std::string> damages[] = {
        {"kiln-cuda-index 1\n", "kiln-cuda-index 2\n"},     // another format
        {"threads 384\n", ""},                              // a field missing
        {"threads 384\n", "threads 384\nthreads 384\n"},    // a field twice
        {"threads 384\n", "threads 384\nwarps 12\n"},       // a field unknown
        {"threads 384\n", "threads 38x\n"},                 // not a number
        {"threads 384\n", "threads 0\n"},                   // no threads
        {"gemm_b_kmajor 1\n", "gemm_b_kmajor 2\n"},         // not a bool
        {"gemm_in " + std::to_string(static_cast<int>(Kind::F16)) + "\n", "gemm_in 99\n"},  // not a kind
        {"gemm_outputs 3,5\n", "gemm_outputs 3,,5\n"},      // a list with a hole
        {"kernel " + kKey + "\n", "kernel " + std::string(63, 'a') + "\n"},  // not a key
    };
    for (const auto& [from, to] : damages) EXPECT_FALSE(cu::parse_record(replaced(from, to)).has_value()) << from << " -> " << to;
    EXPECT_FALSE(cu::parse_record(good.substr(0, good.size() - 1)).has_value()) << "a record cut short";
}

}  // namespace
