// kiln fuzz: the differential fuzzer. Random well-typed kernels (fuzz/) run on
// the targets from identical buffers; every byte each target writes must equal
// the first target's. Program i of a run has seed S+i, so any failure reproduces
// alone: kiln fuzz --count 1 --seed <its seed> --show.
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "fuzz/campaign.h"
#include "options.h"
#include "progress.h"
#include "report.h"

namespace kiln::cli {

namespace {

struct FuzzOptions {
    std::int64_t count = 100;
    SeedOption seed;
    std::vector<std::string> targets = {"interp", "cpu"};
    int jobs = 1;
    std::string precision = "exact";
    bool show = false;
};

std::string joined(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

int run(const FuzzOptions& o) {
    if (o.count < 1) throw UsageError("--count must be at least 1");
    fuzz::CampaignOptions c;
    c.seed = resolve_seed(o.seed);
    c.count = o.count;
    // One target agrees with itself vacuously: a campaign needs two different ones.
    std::vector<std::string> resolved;
    for (const auto& name : o.targets) {
        c.targets.push_back(select_target(name, true));
        const std::string& real = c.targets.back().name();
        if (std::find(resolved.begin(), resolved.end(), real) != resolved.end())
            throw UsageError("fuzz compares targets: --targets names " + real + " twice" + (name == real ? "" : " ('" + name + "' is " + real + " here)"));
        resolved.push_back(real);
        // Device code cannot raise: programs for a device target use no bounds::check.
        c.limits.device = c.limits.device || real == "cuda" || real == "metal";
    }
    if (resolved.size() < 2) throw UsageError("fuzz compares targets: --targets needs at least two different ones, got " + joined(o.targets, ","));
    c.compile = parse_precision(o.precision);
    c.jobs = o.jobs;
    const std::string target_list = joined(o.targets, ",");
    std::cout << "kiln fuzz: " << c.count << " programs (seeds " << c.seed << ".." << c.seed + static_cast<std::uint64_t>(c.count) - 1 << ") on "
              << joined(o.targets, " vs ") << ", precision " << o.precision << std::endl;
    if (o.show)
        for (std::int64_t i = 0; i < c.count; ++i) std::cout << fuzz::show_program(c.seed + static_cast<std::uint64_t>(i), c.limits) << "\n";

    Progress progress(static_cast<std::size_t>(c.count));
    auto summary = fuzz::run_campaign(c, [&](const fuzz::Result& r, std::int64_t done) {
        if (r.verdict != fuzz::Verdict::same) {
            progress.clear();
            std::cout << "program " << r.seed << ": " << fuzz::verdict_name(r.verdict) << ": " << r.detail << "\n"
                      << "  reproduce: kiln fuzz --count 1 --seed " << r.seed << " --targets " << target_list << " --precision " << o.precision
                      << " --show" << std::endl;
        }
        progress.show(static_cast<std::size_t>(done), "program " + std::to_string(r.seed));
    });
    progress.clear();
    std::cout << summary.programs << " programs: " << summary.same << " identical, " << summary.differs << " differ, " << summary.invalid
              << " invalid, " << summary.internal << " internal errors (" << format_duration(summary.seconds) << "; " << summary.raised
              << " of the identical raised the same error on every target)" << std::endl;
    return summary.passed() ? kExitOk : kExitFailed;
}

}  // namespace

Command fuzz_command(CLI::App& app) {
    auto o = std::make_shared<FuzzOptions>();
    auto* sub = app.add_subcommand("fuzz", "random kernels run on several targets and compared bit for bit");
    sub->add_option("--count", o->count, "how many programs")->capture_default_str();
    add_seed_option(*sub, o->seed);
    sub->add_option("--targets", o->targets, "the targets, the first being the reference: A,B[,C]")
        ->delimiter(',')
        ->check(CLI::IsMember(kTargetNames))
        ->capture_default_str();
    sub->add_option("--jobs", o->jobs, "programs checked at once")->check(CLI::Range(1, 256))->capture_default_str();
    add_precision_option(*sub, o->precision);
    sub->add_flag("--show", o->show, "print each program's recipe and IR first (use with --count 1)");
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
