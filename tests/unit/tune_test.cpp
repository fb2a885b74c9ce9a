// The autotuner (kiln/tune.h) on the host targets: it times real candidates and keeps
// the faster, checks each candidate's outputs against the first before timing it,
// leaves the arguments as one launch of the choice would, keeps the choice on disk
// for a later tuner (another process) and reuses it without running a candidate, and
// tunes again when anything in the choice's identity changes.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kiln/kiln.h>
#include <kiln/tune.h>

using namespace kiln;
using ::testing::HasSubstr;

namespace {

// A private cache directory for one test (the tuner keeps choices there).
class TuneTest : public ::testing::Test {
protected:
    void SetUp() override {
        const char* old = std::getenv("KILN_CACHE_DIR");
        if (old) saved_ = old;
        dir_ = std::filesystem::temp_directory_path() /
               ("kiln-tune-test-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        ::setenv("KILN_CACHE_DIR", dir_.c_str(), 1);
    }
    void TearDown() override {
        if (saved_) ::setenv("KILN_CACHE_DIR", saved_->c_str(), 1);
        else ::unsetenv("KILN_CACHE_DIR");
        std::filesystem::remove_all(dir_);
    }
    std::filesystem::path dir_;
    std::optional<std::string> saved_;
};

// y = x * scale + add, in blocks of `block` elements: on the interpreter each
// instance costs far more than its elements, so block 1 is much slower than 256.
Kernel scaled(std::int64_t block, float scale, float add) {
    return kernel("scaled", [=](View<const f32, 1> x, View<f32, 1> y) {
        auto b = axis("b", block);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), block))))) {
            auto o = coord(nest.index() * block);
            y(o, shape(b)).store(x[o, shape(b)] * scale + add);
        }
    });
}

// y = y + 1 in place, in blocks of `block`.
Kernel increment(std::int64_t block) {
    return kernel("increment", [=](View<f32, 1> y) {
        auto b = axis("b", block);
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(y.extent(0), block))))) {
            auto o = coord(nest.index() * block);
            y(o, shape(b)).store(y[o, shape(b)] + 1.0f);
        }
    });
}

std::vector<Config> blocks(std::initializer_list<std::int64_t> sizes) {
    std::vector<Config> c;
    for (auto s : sizes) c.push_back(Config{{"block", s}});
    return c;
}

TuneOptions quick() {
    TuneOptions o;
    o.warmup = 1;
    o.reps = 3;
    o.quiet = true;
    return o;
}

std::vector<float> ramp(std::int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i % 97) * 0.25f - 7.0f;
    return v;
}

}  // namespace

TEST_F(TuneTest, ChoosesTheFasterConfigurationAndComputesItsResult) {
    const std::int64_t n = 2048;
    Tensor<f32> x({n}, ramp(n)), y({n});
    Tuner t("scaled", blocks({1, 256}), [](const Config& c) { return scaled(c["block"], 3.0f, 0.5f); }, quick());
    t.launch(interp(), x.view(), y.view());
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 3.0f + 0.5f) << i;
    const TuneChoice* c = t.last_choice();
    ASSERT_NE(c, nullptr);
    ASSERT_EQ(c->candidates.size(), 2u);
    for (const auto& k : c->candidates) {
        EXPECT_EQ(k.status, TuneCandidate::Status::timed) << k.why;
        EXPECT_GT(k.median, 0);
    }
    // 2048 instances against 8: the timings, not the order, decide.
    EXPECT_GT(c->candidates[0].median, c->candidates[1].median);
    EXPECT_EQ(c->config["block"], 256);
    EXPECT_EQ(c->index, 1u);
    EXPECT_FALSE(c->from_disk);
    EXPECT_EQ(c->key.size(), 64u);
}

TEST_F(TuneTest, LeavesInPlaceArgumentsAsOneLaunchWould) {
    const std::int64_t n = 512;
    std::vector<float> start = ramp(n);
    Tensor<f32> y({n}, start);
    Tuner t("increment", blocks({64, 128, 256}), [](const Config& c) { return increment(c["block"]); }, quick());
    for (const Target& target : {interp(), cpu()}) {
        t.launch(target, y.view());  // tunes (each target is its own identity), then runs once
        t.launch(target, y.view());  // the kept choice
    }
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], start[static_cast<std::size_t>(i)] + 4.0f) << i;
    EXPECT_TRUE(t.last_choice()->from_memory);
}

TEST_F(TuneTest, RejectsACandidateThatComputesSomethingElseEvenWhenFaster) {
    const std::int64_t n = 1024;
    Tensor<f32> x({n}, ramp(n)), y({n});
    // The fast configuration adds a wrong constant; the first one defines the result.
    Tuner t("scaled", blocks({1, 256}),
            [](const Config& c) { return scaled(c["block"], 2.0f, c["block"] == 256 ? 1.0f : 0.0f); }, quick());
    t.launch(cpu(), x.view(), y.view());
    const TuneChoice* c = t.last_choice();
    ASSERT_EQ(c->candidates[1].status, TuneCandidate::Status::rejected);
    EXPECT_THAT(c->candidates[1].why, HasSubstr("computes something else than block=1"));
    EXPECT_THAT(c->candidates[1].why, HasSubstr("output 1 differs by"));
    EXPECT_GT(c->candidates[1].difference, 1e-3);
    EXPECT_EQ(c->config["block"], 1);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 2.0f) << i;
}

TEST_F(TuneTest, ExactPrecisionComparesBitForBitStandardWithinTheTolerance) {
    const std::int64_t n = 1024;
    std::vector<float> xs(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) xs[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i) / 3.0f;
    Tensor<f32> x({n}, xs), y({n});
    // x * 0.1 against x / 10: the same up to one rounding, different bits in places.
    auto make = [](const Config& c) {
        const std::int64_t block = c["block"];
        return kernel("tenth", [=](View<const f32, 1> x, View<f32, 1> y) {
            auto b = axis("b", block);
            for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), block))))) {
                auto o = coord(nest.index() * block);
                if (block == 64) y(o, shape(b)).store(x[o, shape(b)] * 0.1f);
                else y(o, shape(b)).store(x[o, shape(b)] / 10.0f);
            }
        });
    };
    Tuner t("tenth", blocks({128, 64}), make, quick());
    t.launch(interp(), Precision::standard, x.view(), y.view());
    EXPECT_EQ(t.last_choice()->candidates[1].status, TuneCandidate::Status::timed) << t.last_choice()->candidates[1].why;
    EXPECT_GT(t.last_choice()->candidates[1].difference, 0);
    EXPECT_LT(t.last_choice()->candidates[1].difference, 1e-6);
    t.launch(interp(), Precision::exact, x.view(), y.view());
    const TuneCandidate& k = t.last_choice()->candidates[1];
    EXPECT_EQ(k.status, TuneCandidate::Status::rejected);
    EXPECT_THAT(k.why, HasSubstr("precision exact: bit for bit"));
}

TEST_F(TuneTest, ACandidateThatCannotBeBuiltOrLaunchedIsReportedAndSkipped) {
    const std::int64_t n = 256;
    Tensor<f32> x({n}, ramp(n)), y({n});
    std::vector<Config> configs = {Config{{"block", 0}}, Config{{"blk", 64}}, Config{{"block", 64}}};
    Tuner t("scaled", configs, [](const Config& c) { return scaled(c["block"], 1.0f, 1.0f); }, quick());
    t.launch(cpu(), x.view(), y.view());
    const TuneChoice* c = t.last_choice();
    EXPECT_EQ(c->candidates[0].status, TuneCandidate::Status::failed);  // an axis of extent 0
    EXPECT_FALSE(c->candidates[0].why.empty());
    EXPECT_EQ(c->candidates[1].status, TuneCandidate::Status::failed);
    EXPECT_THAT(c->candidates[1].why, HasSubstr("configuration 'blk=64' has no parameter 'block'"));
    EXPECT_EQ(c->config["block"], 64);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] + 1.0f);
}

TEST_F(TuneTest, NoConfigurationThatRunsIsAnErrorAtTheLaunchNamingEachReason) {
    Tensor<f32> x({16}), y({16});
    Tuner t("scaled", {Config{{"blk", 1}}, Config{{"size", 2}}}, [](const Config& c) { return scaled(c["block"], 1, 0); }, quick());
    try {
        t.launch(interp(), x.view(), y.view());
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("tune_test.cpp:"));
        EXPECT_THAT(e.what(), HasSubstr("no configuration of 'scaled' ran on this launch"));
        EXPECT_THAT(e.what(), HasSubstr("blk=1: failed"));
        EXPECT_THAT(e.what(), HasSubstr("size=2: failed"));
    }
}

TEST_F(TuneTest, ALaterTunerReusesTheKeptChoiceWithoutRunningACandidate) {
    const std::int64_t n = 1024;
    Tensor<f32> x({n}, ramp(n)), y({n});
    auto make = [](const Config& c) { return scaled(c["block"], 3.0f, 0.0f); };
    Tuner first("scaled", blocks({1, 128}), make, quick());
    first.launch(interp(), x.view(), y.view());
    const std::string key = first.last_choice()->key;

    // Another tuner (as in another process): nothing is run but the choice.
    int progress_calls = 0;
    TuneOptions o = quick();
    o.progress = [&](const TuneProgress&) { ++progress_calls; };
    Tuner second("scaled", blocks({1, 128}), make, o);
    Tensor<f32> y2({n});
    second.launch(interp(), x.view(), y2.view());
    EXPECT_EQ(progress_calls, 0);
    const TuneChoice* c = second.last_choice();
    EXPECT_TRUE(c->from_disk);
    EXPECT_EQ(c->key, key);
    EXPECT_EQ(c->config["block"], 128);
    ASSERT_EQ(c->candidates.size(), 2u);  // the tuning run's table comes with it
    EXPECT_EQ(c->candidates[0].median, first.last_choice()->candidates[0].median);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y2[i], x[i] * 3.0f);

    // retune runs the candidates again and replaces the kept choice.
    o.retune = true;
    Tuner third("scaled", blocks({1, 128}), make, o);
    third.launch(interp(), x.view(), y2.view());
    EXPECT_EQ(progress_calls, 4);  // before and after each of the two candidates
    EXPECT_FALSE(third.last_choice()->from_disk);
    o.retune = false;
    progress_calls = 0;
    Tuner fourth("scaled", blocks({1, 128}), make, o);
    fourth.launch(interp(), x.view(), y2.view());
    EXPECT_EQ(progress_calls, 0);
    EXPECT_EQ(fourth.last_choice()->candidates[0].median, third.last_choice()->candidates[0].median);
}

TEST_F(TuneTest, AnythingInTheIdentityChangedTunesAgain) {
    const std::int64_t n = 512;
    Tensor<f32> x({n}, ramp(n)), y({n});
    Tensor<f32> x2({2 * n}, ramp(2 * n)), y2({2 * n});
    int runs = 0;
    TuneOptions o = quick();
    o.progress = [&](const TuneProgress& p) { runs += p.candidate ? 1 : 0; };
    auto tuner = [&](float scale, std::initializer_list<std::int64_t> sizes) {
        return Tuner("scaled", blocks(sizes), [=](const Config& c) { return scaled(c["block"], scale, 0.0f); }, o);
    };
    tuner(2, {64, 128}).launch(interp(), x.view(), y.view());
    EXPECT_EQ(runs, 2);
    tuner(2, {64, 128}).launch(interp(), x.view(), y.view());  // kept
    EXPECT_EQ(runs, 2);
    tuner(2, {64, 128}).launch(interp(), x2.view(), y2.view());  // other extents
    EXPECT_EQ(runs, 4);
    tuner(2, {64, 128}).launch(interp(), Precision::exact, x.view(), y.view());  // other precision
    EXPECT_EQ(runs, 6);
    tuner(2, {64, 256}).launch(interp(), x.view(), y.view());  // other configurations
    EXPECT_EQ(runs, 8);
    tuner(5, {64, 128}).launch(interp(), x.view(), y.view());  // other programs (the kernel changed)
    EXPECT_EQ(runs, 10);
    tuner(2, {64, 128}).launch(cpu(), x.view(), y.view());  // other target
    EXPECT_EQ(runs, 12);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 2.0f);
}

TEST_F(TuneTest, ATamperedChoiceOnDiskIsTunedAgainNeverUsed) {
    const std::int64_t n = 512;
    Tensor<f32> x({n}, ramp(n)), y({n});
    auto make = [](const Config& c) { return scaled(c["block"], 3.0f, 0.0f); };
    Tuner first("scaled", blocks({64, 128}), make, quick());
    first.launch(interp(), x.view(), y.view());
    auto record = dir_ / "entries" / first.last_choice()->key / "tune-choice";
    ASSERT_TRUE(std::filesystem::exists(record));
    std::filesystem::permissions(record, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    std::ofstream(record, std::ios::app) << "choice 0\n";
    int runs = 0;
    TuneOptions o = quick();
    o.progress = [&](const TuneProgress& p) { runs += p.candidate ? 1 : 0; };
    Tuner second("scaled", blocks({64, 128}), make, o);
    second.launch(interp(), x.view(), y.view());
    EXPECT_EQ(runs, 2);
    EXPECT_FALSE(second.last_choice()->from_disk);
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * 3.0f);
}

TEST_F(TuneTest, WithoutTheDiskTheChoiceLivesInTheTunerOnly) {
    Tensor<f32> x({256}, ramp(256)), y({256});
    TuneOptions o = quick();
    o.use_disk = false;
    Tuner t("scaled", blocks({64, 128}), [](const Config& c) { return scaled(c["block"], 1.0f, 0.0f); }, o);
    t.launch(interp(), x.view(), y.view());
    EXPECT_FALSE(std::filesystem::exists(dir_ / "entries" / t.last_choice()->key));
}

TEST(TuneErrors, ConfigurationsAndTunersAreCheckedWhereTheyAreWritten) {
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    auto make = [](const Config& c) { return scaled(c["block"], 1, 0); };
    EXPECT_THAT(message([] { Config c{{"block", 1}, {"block", 2}}; }), HasSubstr("parameter 'block' is given twice"));
    EXPECT_THAT(message([] { Config c{{"block size", 1}}; }), HasSubstr("a parameter name is letters, digits and '_' (got 'block size')"));
    EXPECT_THAT(message([] { Config c{{"block", 1}}; (void)c.get("bk"); }), HasSubstr("configuration 'block=1' has no parameter 'bk'"));
    EXPECT_THAT(message([&] { Tuner t("", blocks({1}), make); }), HasSubstr("a tuner needs a name"));
    EXPECT_THAT(message([&] { Tuner t("t", {}, make); }), HasSubstr("'t' has no configurations to choose from"));
    EXPECT_THAT(message([&] { Tuner t("t", blocks({1}), nullptr); }), HasSubstr("'t' has no function to make"));
    EXPECT_THAT(message([&] { Tuner t("t", blocks({4, 8, 4}), make); }), HasSubstr("configuration 'block=4' is listed twice"));
    EXPECT_THAT(message([&] { TuneOptions o; o.reps = 0; Tuner t("t", blocks({4}), make, o); }), HasSubstr("needs reps >= 1"));
    EXPECT_THAT(message([] { Tensor<f32> y({4}); Tuner t; t.launch(interp(), y.view()); }), HasSubstr("an empty tuner"));
    // The errors name this file.
    EXPECT_THAT(message([] { Config c{{"a", 1}, {"a", 1}}; }), HasSubstr("tune_test.cpp:"));
}
