// The autotuner on the cuda target (kiln/tune.h): the writable views it saves and
// restores live in device memory, on the synchronous target and on a stream-bound
// one; a GEMM family is checked and timed on the device, and the choice is kept.
#include <cstdlib>
#include <filesystem>
#include <random>

#include <gtest/gtest.h>
#include <kiln/kiln.h>
#include <kiln/tune.h>

#include "gemm_kernels.h"

using namespace kiln;

namespace {

#define REQUIRE_DEVICE() \
    if (!cuda().available()) GTEST_SKIP() << "no CUDA device: " << cuda().unavailable_reason()

// A private cache directory, so that every run tunes.
struct FreshCache {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kiln-cuda-tune-" + std::to_string(::getpid()));
    FreshCache() {
        std::filesystem::remove_all(dir);
        ::setenv("KILN_CACHE_DIR", dir.c_str(), 1);
    }
    ~FreshCache() {
        ::unsetenv("KILN_CACHE_DIR");
        std::filesystem::remove_all(dir);
    }
};

Kernel increment(std::int64_t block) {
    return kernel("increment", [=](View<f32, 1> y) {
        auto b = axis("b", block);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(y.extent(0), block))))) {
            auto o = coord(nest.index() * block);
            y(o, shape(b)).store(y[o, shape(b)] + 1.0f);
        }
    });
}

}  // namespace

TEST(CudaTune, DeviceViewsAreRestoredSoTheLaunchIsOneLaunch) {
    REQUIRE_DEVICE();
    FreshCache cache;
    const std::int64_t n = 1 << 16;
    std::vector<float> start(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) start[static_cast<std::size_t>(i)] = static_cast<float>(i % 1000) - 500.0f;
    TuneOptions o;
    o.quiet = true;
    o.reps = 5;
    Tuner t("increment", {Config{{"block", 256}}, Config{{"block", 1024}}, Config{{"block", 4096}}},
            [](const Config& c) { return increment(c["block"]); }, o);
    Stream s = Stream::create();
    for (const Target& target : {cuda(), cuda(s)}) {
        auto y = Tensor<f32>({n}, start).to(target);
        t.launch(target, y.view());  // tunes (runs each candidate many times), then one launch
        t.launch(target, y.view());  // the kept choice
        auto back = y.to(host());
        for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(back[i], start[static_cast<std::size_t>(i)] + 2.0f) << i;
        for (const TuneCandidate& c : t.last_choice()->candidates) EXPECT_EQ(c.status, TuneCandidate::Status::timed) << c.why;
    }
}

TEST(CudaTune, AGemmFamilyIsCheckedTimedAndKept) {
    REQUIRE_DEVICE();
    FreshCache cache;
    const std::int64_t M = 1000, N = 1536, K = 1000;  // ragged against every tile
    std::mt19937 g(5);
    std::uniform_real_distribution<double> d(-1, 1);
    Tensor<bf16> A({M, K}), B({K, N}), C({M, N}), bias({N}), R({M, N}), D({M, N});
    for (auto* x : {&A, &B})
        for (auto& v : x->values()) v = bf16(d(g));
    auto Ad = A.to(cuda()), Bd = B.to(cuda()), Cd = C.to(cuda()), biasd = bias.to(cuda()), Rd = R.to(cuda()), Dd = D.to(cuda());
    std::vector<Config> tiles;
    for (auto [bm, bn, bk] : {std::array<std::int64_t, 3>{128, 256, 64}, {128, 128, 64}, {64, 128, 64}, {64, 64, 32}})
        tiles.push_back(Config{{"bm", bm}, {"bn", bn}, {"bk", bk}});
    TuneOptions o;
    o.quiet = true;
    auto make = [](const Config& c) { return gemm_test::gemm(gemm_test::Epilogue::plain, false, c["bm"], c["bn"], c["bk"]); };
    Tuner t("gemm", tiles, make, o);
    t.launch(cuda(), Ad, Bd, biasd, Rd, Cd, Dd, 1.0f);
    const TuneChoice& c = *t.last_choice();
    for (const TuneCandidate& k : c.candidates) {
        EXPECT_EQ(k.status, TuneCandidate::Status::timed) << k.config.text() << ": " << k.why;
        EXPECT_LT(k.difference, 3e-2) << k.config.text();
        EXPECT_LE(c.candidates[c.index].median, k.median);
    }
    // The result against f64 on a sample (bf16 output: 2^-8 relative, K = 1000 sums).
    auto got = Cd.to(host());
    for (std::int64_t i = 0; i < M; i += 37)
        for (std::int64_t j = 0; j < N; j += 41) {
            double want = 0;
            for (std::int64_t k = 0; k < K; ++k) want += A[i * K + k].to_double() * B[k * N + j].to_double();
            ASSERT_NEAR(got[i * N + j].to_double(), want, 0.01 * std::abs(want) + 0.02) << i << "," << j;
        }
    Tuner again("gemm", tiles, make, o);
    again.launch(cuda(), Ad, Bd, biasd, Rd, Cd, Dd, 1.0f);
    EXPECT_TRUE(again.last_choice()->from_disk);
    EXPECT_EQ(again.last_choice()->index, c.index);
}
