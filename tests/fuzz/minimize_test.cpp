// The minimiser (fuzz/minimize.h) and batch compilation (CampaignOptions::batch).
#include <gtest/gtest.h>

#include "fuzz/campaign.h"
#include "fuzz/minimize.h"
#include "interp/run_kernel.h"
#include "targets/common/target_impl.h"
#include "targets/cpu/module_cache.h"

using namespace kiln;
using namespace kiln::fuzz;

namespace {

// Runs the interpreter, then flips the lowest bit of the first element of every
// f32 output it wrote a nonzero value to: a bug that any program storing an f32
// shows, however small.
class F32Flipper final : public detail::TargetImpl {
public:
    const std::string& name() const override { return name_; }
    void run(const ir::Program& p, const std::vector<detail::Arg>& args, const CompileOptions&, Loc) override {
        ref::run_program(p, args, {});
        for (const auto& a : args)
            if (a.is_view && !a.read_only && a.kind == Kind::F32 && a.data)
                static_cast<unsigned char*>(a.data)[0] ^= 1;
    }

private:
    std::string name_ = "flipper";
};

std::size_t size_of(const Recipe& r) { return describe(r).size() + static_cast<std::size_t>(r.ops_before + r.ops_in_loop + r.ops_after) * 40; }

}  // namespace

TEST(Minimize, ShrinksAFailureToASmallerOneThatFailsAlike) {
    const std::vector<Target> targets = {interp(), Target(std::make_shared<F32Flipper>())};
    // The first program that fails (stores an f32 somewhere).
    std::uint64_t seed = 1;
    while (check_program(seed, targets, {.precision = Precision::exact}).verdict == Verdict::same) ++seed;
    const Minimized m = minimize(seed, targets, {.precision = Precision::exact});
    EXPECT_EQ(m.original.verdict, Verdict::differs);
    EXPECT_EQ(m.result.verdict, Verdict::differs) << m.result.detail;
    EXPECT_FALSE(m.edits.empty());
    EXPECT_LT(size_of(m.recipe), size_of(make_recipe(seed)));
    // The edits reproduce the small program from the seed alone.
    const Recipe again = apply_edits(make_recipe(seed), m.edits);
    EXPECT_EQ(show_recipe(again), show_recipe(m.recipe));
    EXPECT_EQ(check_recipe(again, targets, {.precision = Precision::exact}).verdict, Verdict::differs);
    // Nothing that passes gets minimized.
    EXPECT_EQ(minimize(seed, {interp(), interp()}, {.precision = Precision::exact}).edits.size(), 0u);
}

TEST(Minimize, EditsThatDoNotApplyAreRefused) {
    Recipe r = make_recipe(5);
    EXPECT_FALSE(apply_edit(r, "view-:" + std::to_string(r.views.size())));
    EXPECT_THROW(apply_edit(r, "frobnicate"), Error);
    EXPECT_THROW(apply_edits(r, {"scalar-:99"}), Error);
    // Every candidate is a known edit (an unknown one would throw).
    for (const std::string& e : candidate_edits(r)) EXPECT_NO_THROW((void)apply_edit(r, e)) << e;
}

// A batch of programs built by one host-compiler run gives the same verdicts as
// programs built one by one.
TEST(Batch, ProgramsCompiledTogetherAgreeWithTheInterpreter) {
    Target c = cpu();
    if (!c.available()) GTEST_SKIP() << "cpu target: " << c.unavailable_reason();
    CampaignOptions o;
    o.seed = 500;
    o.count = 8;
    o.batch = 8;
    o.targets = {interp(), c};
    const auto before = native::shared_object_stats();
    const Summary s = run_campaign(o);
    for (const Result& f : s.failures) ADD_FAILURE() << "program " << f.seed << ": " << verdict_name(f.verdict) << ": " << f.detail;
    EXPECT_EQ(s.same, s.programs);
    const auto after = native::shared_object_stats();
    // At most one batch: the programs the cache did not hold yet were compiled together.
    EXPECT_LE(after.batches - before.batches, 1);
    if (after.batches > before.batches) EXPECT_GE(after.compiled - before.compiled, 2);
}
