// The differential fuzzer as a test: random well-typed programs run on interp and
// cpu, and every byte they write must agree. KILN_FUZZ_COUNT and KILN_FUZZ_SEED
// widen or move a run; a failure names the seed that reproduces it alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <regex>
#include <string>

#include "cache/sha256.h"
#include "fuzz/campaign.h"
#include "fuzz/differential.h"
#include "fuzz/recipe.h"
#include "interp/run_kernel.h"
#include "targets/common/target_impl.h"

using namespace kiln;
using namespace kiln::fuzz;

namespace {

std::int64_t env_or(const char* name, std::int64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::stoll(v) : fallback;
}

void expect_all_same(const Summary& s, const std::string& targets) {
    for (const Result& f : s.failures)
        ADD_FAILURE() << "program " << f.seed << ": " << verdict_name(f.verdict) << ": " << f.detail
                      << "\n  reproduce: kiln fuzz --count 1 --seed " << f.seed << " --targets " << targets << " --show";
    EXPECT_EQ(s.same, s.programs);
}

TEST(Fuzz, InterpreterAndCpuAgreeBitForBit) {
    Target c = cpu();
    if (!c.available()) GTEST_SKIP() << "cpu target: " << c.unavailable_reason();
    CampaignOptions o;
    o.seed = static_cast<std::uint64_t>(env_or("KILN_FUZZ_SEED", 1));
    o.count = env_or("KILN_FUZZ_COUNT", 150);
    o.targets = {interp(), c};
    o.jobs = 2;  // compiling dominates; two programs at once
    expect_all_same(run_campaign(o), "interp,cpu");
}

// The generator's own contract, on more programs than the cpu run affords: each
// traces, verifies and runs on the interpreter (checked mode: no out-of-range
// access it did not ask for, no two instances writing one element).
TEST(Fuzz, EveryProgramIsValid) {
    CampaignOptions o;
    o.seed = 1'000'000;
    o.count = 2000;
    o.targets = {interp()};
    expect_all_same(run_campaign(o), "interp");
}

// A time budget ends a campaign early with its first programs checked, however
// many jobs took batches: the seeds run are seed .. seed + programs - 1, each once.
TEST(Fuzz, ATimeBudgetChecksTheFirstProgramsAndSaysItStopped) {
    CampaignOptions o;
    o.seed = 2'000'000;
    o.count = 1'000'000;  // far more than 0.3 s allows
    o.targets = {interp()};
    o.jobs = 3;
    o.batch = 4;
    o.seconds = 0.3;
    std::mutex m;
    std::vector<std::uint64_t> seeds;
    const Summary s = run_campaign(o, [&](const Result& r, std::int64_t) {
        std::lock_guard<std::mutex> g(m);
        seeds.push_back(r.seed);
    });
    EXPECT_TRUE(s.stopped_early);
    ASSERT_GT(s.programs, 0);
    ASSERT_LT(s.programs, o.count);
    std::sort(seeds.begin(), seeds.end());
    ASSERT_EQ(static_cast<std::int64_t>(seeds.size()), s.programs);
    for (std::size_t i = 0; i < seeds.size(); ++i) ASSERT_EQ(seeds[i], o.seed + i) << "the programs run are not the first ones";
    // A campaign its budget does not end says so too.
    o.count = 3;
    o.seconds = 600;
    const Summary whole = run_campaign(o);
    EXPECT_FALSE(whole.stopped_early);
    EXPECT_EQ(whole.programs, 3);
}

TEST(Fuzz, ASeedNamesOneProgram) {
    EXPECT_EQ(show_program(42), show_program(42));
    EXPECT_NE(show_program(42), show_program(43));
}

// Over a few hundred programs every kind of operation the fuzzer claims appears.
TEST(Fuzz, ProgramsCoverTheOperations) {
    std::string all;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) all += show_program(seed);
    for (const char* op : {"add", "sub", "mul", "div", "mod", "pow", "maximum", "minimum", "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "sin",
                           "cos", "abs", "neg", "cast", "select", "eq", "lt", "logical_and", "logical_or", "logical_not", "reduce_add",
                           "reduce_max", "reduce_min", "argmax", "argmin", "scan_add", "scan_max", "scan_min", "mma", "reshape", "permute",
                           "broadcast", "gather", "reindex", "iota", "sort_values", "sort_indices", "topk_values", "topk_indices",
                           "loop parallel", "loop serial", "loop pipeline", "loop_result", "view_extent", "param", "constant", "f16", "bf16",
                           "i8", "i32", "i64", "f32", "f64", "bool"})
        EXPECT_NE(all.find(op), std::string::npos) << "no program among the first 200 uses " << op;
}

// A target that runs the interpreter and then flips one bit of its first output,
// or raises: the comparison must notice both.
class FaultyTarget final : public detail::TargetImpl {
public:
    explicit FaultyTarget(bool raise) : raise_(raise) {}
    const std::string& name() const override { return name_; }
    void run(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions&, Loc loc) override {
        if (raise_) fail(loc, "faulty", "raised on purpose");
        ref::run_program(p, args, {});
        for (const auto& a : args)
            if (a.is_view && !a.read_only) {
                static_cast<unsigned char*>(a.data)[0] ^= 1;
                return;
            }
    }

private:
    bool raise_;
    std::string name_ = "faulty";
};

TEST(Fuzz, ADifferenceIsReported) {
    Target flip(std::make_shared<FaultyTarget>(false)), raise(std::make_shared<FaultyTarget>(true));
    Result r = check_program(7, {interp(), flip}, {.precision = Precision::exact});
    EXPECT_EQ(r.verdict, Verdict::differs);
    EXPECT_NE(r.detail.find("interp"), std::string::npos) << r.detail;
    EXPECT_NE(r.detail.find("faulty"), std::string::npos) << r.detail;
    r = check_program(7, {interp(), raise}, {.precision = Precision::exact});
    EXPECT_EQ(r.verdict, Verdict::differs);
    EXPECT_NE(r.detail.find("raised on purpose"), std::string::npos) << r.detail;
    EXPECT_EQ(check_program(7, {interp(), interp()}, {.precision = Precision::exact}).verdict, Verdict::same);
}

}  // namespace

namespace kiln::fuzz {
namespace {
// Device code cannot raise (the cuda target refuses bounds::check when it
// compiles): programs for a campaign with cuda never use it, and never mean to raise;
// the same seeds without cuda do, now and then.
TEST(Fuzz, ProgramsForDeviceCodeNeverUseBoundsCheck) {
    Limits device;
    device.device = true;
    int checked_on_host = 0;
    for (std::uint64_t seed = 1; seed <= 400; ++seed) {
        const Recipe d = make_recipe(seed, device);
        EXPECT_FALSE(d.may_raise) << seed;
        for (const ViewPlan& v : d.views) EXPECT_NE(v.bounds, Bounds::check) << seed;
        for (const ViewPlan& v : make_recipe(seed).views) checked_on_host += v.bounds == Bounds::check;
    }
    EXPECT_GT(checked_on_host, 0) << "the host campaigns no longer use bounds::check: this test checks nothing";
}

// Only the bounds policies differ: a seed names the same program in a campaign with
// cuda as without (issue 15's device differences were reported by seed from a
// campaign generated before device programs existed).
TEST(Fuzz, DeviceCodeChangesOnlyTheBoundsPolicies) {
    Limits device;
    device.device = true;
    for (std::uint64_t seed = 1; seed <= 400; ++seed) {
        Recipe host = make_recipe(seed);
        const Recipe d = make_recipe(seed, device);
        host.may_raise = false;
        for (std::size_t v = 0; v < host.views.size(); ++v)
            if (host.views[v].bounds == Bounds::check) host.views[v].bounds = d.views[v].bounds;
        EXPECT_EQ(show_recipe(host), show_recipe(d)) << seed;
        EXPECT_EQ(host.body_seed, d.body_seed) << seed;
        EXPECT_EQ(host.data_seed, d.data_seed) << seed;
    }
}
}  // namespace
}  // namespace kiln::fuzz

// One program in eight has an axis of 128 to 1000 elements (the long-line paths:
// the cpu target's lane sums start at 128), the others shrunk so that any three
// axes still fit the tile budget.
TEST(Fuzz, SomeProgramsHaveALongAxisWithinTheTileBudget) {
    int longs = 0;
    for (std::uint64_t seed = 1; seed <= 400; ++seed) {
        const Recipe r = make_recipe(seed);
        std::vector<std::int64_t> e;
        for (const auto& a : r.axes) e.push_back(a.extent);
        std::sort(e.rbegin(), e.rend());
        longs += e[0] >= 128;
        std::int64_t top3 = 1;
        for (std::size_t k = 0; k < std::min<std::size_t>(3, e.size()); ++k) top3 *= e[k];
        EXPECT_LE(top3, r.max_tile_elements) << "seed " << seed;
    }
    EXPECT_GE(longs, 25) << "about 1 in 8 of the programs not of the many-instance kind";
    EXPECT_LE(longs, 75);
}

// The regression tests (cpu_regression_test.cpp, cuda_regression_test.cpp) replay
// programs the generator draws from their seeds. A change to the generator that
// draws one of them differently would leave its test passing on a program that
// never failed, so each replayed program's IR (source locations left out) is pinned
// here by its SHA-256 (the first 16 hex digits). If this fails: where the IR printer
// changed, record the new digests; where the generator did, draw its new choices from
// a stream of their own that leaves these programs as they were (recipe.cpp:
// give_a_long_axis; body_gen.h: iota_compares_).
TEST(Fuzz, TheReplayedRegressionProgramsAreTheOnesThatFailed) {
    auto fingerprint = [](std::uint64_t seed, bool device) {
        Limits limits;
        limits.device = device;
        const std::string text = std::regex_replace(show_program(seed, limits), std::regex(R"(\s*@[A-Za-z0-9_./]+:[0-9]+)"), "");
        return cache::sha256_hex(text).substr(0, 16);
    };
    struct Pinned {
        std::uint64_t seed;
        bool device;
        std::string digest;
    };
    for (const Pinned& p : std::vector<Pinned>{{80239140, false, "6171c610b25768c4"},
                                                {81640822, false, "382435157e42d92b"},
                                                {3100033, true, "fdb79e103e392235"},
                                                {4500528, true, "99c1ee3a9ff4ade7"},
                                                {3710388, true, "ed825cff349e9165"},
                                                {7000248, true, "3e2676ecd146170a"}})
        EXPECT_EQ(fingerprint(p.seed, p.device), p.digest) << "program " << p.seed << " is no longer the one its regression test replays";
}
