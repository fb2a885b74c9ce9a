// kiln fuzz: the differential fuzzer. Random well-typed kernels (fuzz/) run on
// the targets from identical buffers, each placed where its target runs; every
// byte each target writes must equal the first target's (precision exact), or lie
// within the bound derived from the program (precision standard). Program i of a
// run has seed S+i, so any failure reproduces alone: kiln fuzz --count 1 --seed
// <its seed> --show; kiln fuzz --minimize <its seed> shrinks it first.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "commands.h"
#include "cache/disk_cache.h"
#include "fuzz/campaign.h"
#include "fuzz/minimize.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "support/environment.h"

namespace kiln::cli {

namespace {

struct FuzzOptions {
    std::int64_t count = 100;
    SeedOption seed;
    std::vector<std::string> targets = {"interp", "cpu"};
    int jobs = 1;
    int batch = 1;
    double seconds = 0;  // a time budget (campaign.h); 0: none
    bool disk_cache = false;  // file the campaign's kernels in the disk cache
    bool compile_only = false;  // compile the programs into the disk cache, run nothing (campaign.h)
    std::string precision = "exact";
    bool show = false;
    std::uint64_t minimize = 0;
    CLI::Option* minimize_option = nullptr;
    std::vector<std::string> shrink;  // edits applied to program --seed (minimize.h)
};

std::string joined(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

// The targets to compare, each able to run here, no two the same.
std::vector<Target> compared_targets(const FuzzOptions& o) {
    std::vector<Target> targets;
    std::vector<std::string> resolved;
    for (const auto& name : o.targets) {
        // (Compiling needs no device: the cuda target compiles offline for sm_90a.)
        targets.push_back(select_target(name, !o.compile_only));
        const std::string& real = targets.back().name();
        if (std::find(resolved.begin(), resolved.end(), real) != resolved.end())
            throw UsageError("fuzz compares targets: --targets names " + real + " twice" + (name == real ? "" : " ('" + name + "' is " + real + " here)"));
        resolved.push_back(real);
    }
    // One target agrees with itself vacuously: a campaign needs two different ones.
    if (resolved.size() < 2) throw UsageError("fuzz compares targets: --targets needs at least two different ones, got " + joined(o.targets, ","));
    return targets;
}

void print_failure(const fuzz::Result& r, const std::string& reproduce) {
    std::cout << "program " << r.seed << ": " << fuzz::verdict_name(r.verdict) << ": " << r.detail << "\n  reproduce: " << reproduce << std::endl;
}

// Where the jobs' time went, so that a slow campaign shows what to speed up: each
// target's runs (for the cuda target: copies, launches and the copies back, its
// compiles being the batches' when --batch > 1), the batches compiled ahead, and
// the rest (generating programs, comparing, waiting for a batch).
void print_time_spent(const fuzz::Summary& s, const fuzz::CampaignOptions& c) {
    if (s.programs == 0) return;
    const auto jobs = std::clamp<std::int64_t>(c.jobs, 1, c.count);
    const double all = s.seconds * static_cast<double>(jobs);
    double accounted = s.prepare_seconds;
    std::cout << "time, summed over " << jobs << (jobs == 1 ? " job" : " jobs") << " (" << format_duration(all) << "):";
    for (std::size_t t = 0; t < c.targets.size() && t < s.target_seconds.size(); ++t) {
        std::cout << (t ? ", " : " ") << c.targets[t].name() << " " << format_duration(s.target_seconds[t]);
        accounted += s.target_seconds[t];
    }
    if (c.batch > 1) std::cout << ", compiling batches ahead " << format_duration(s.prepare_seconds);
    std::cout << ", the rest " << format_duration(std::max(0.0, all - accounted)) << std::endl;
}

// --minimize SEED: the smallest recipe found that fails like program SEED.
int run_minimize(const FuzzOptions& o, const std::vector<Target>& targets, const CompileOptions& compile) {
    const std::string flags = " --targets " + joined(o.targets, ",") + " --precision " + o.precision;
    std::cout << "kiln fuzz: minimizing program " << o.minimize << " on " << joined(o.targets, " vs ") << ", precision " << o.precision << std::endl;
    fuzz::Limits limits;
    for (const Target& t : targets) limits.device = limits.device || t.name() == "cuda" || t.name() == "metal";
    auto m = fuzz::minimize(o.minimize, targets, compile, limits, [](const fuzz::Minimized& step) {
        std::cout << "  kept " << step.edits.back() << " (" << step.tried << " programs tried)" << std::endl;
    });
    if (m.original.verdict == fuzz::Verdict::same) {
        std::cout << "program " << o.minimize << " does not fail: nothing to minimize" << std::endl;
        return kExitOk;
    }
    std::cout << "\n" << fuzz::show_recipe(m.recipe);
    std::string edits = joined(m.edits, ",");
    print_failure(m.result, "kiln fuzz --count 1 --seed " + std::to_string(o.minimize) + (edits.empty() ? "" : " --shrink " + edits) + flags + " --show");
    std::cout << m.edits.size() << " edits kept of " << m.tried << " programs tried" << std::endl;
    return kExitFailed;
}

// --compile-only: the campaign's kernels compiled by the targets after the first
// and filed in the disk cache, so that the campaign run later (the same seeds,
// targets and precision) compiles nothing: e.g. a GPU's campaign compiled on a
// machine without one, then its cache carried over (KILN_CACHE_DIR).
int run_compile_only(const fuzz::CampaignOptions& c, const FuzzOptions& o) {
    auto disk = cache::DiskCache::open_or_warn();
    if (!disk) throw Error("fuzz --compile-only files the kernels in the disk cache, and there is none (see the warning above)");
    std::vector<std::string> compilers(o.targets.begin() + 1, o.targets.end());
    std::cout << "kiln fuzz: compiling " << c.count << " programs (seeds " << c.seed << ".." << c.seed + static_cast<std::uint64_t>(c.count) - 1
              << ") for " << joined(compilers, ", ") << " into " << disk->root().string() << ", precision " << o.precision << std::endl;
    Progress progress(static_cast<std::size_t>(c.count));
    Heartbeat heartbeat(std::chrono::seconds(support::env_integer("KILN_FUZZ_REPORT_SECONDS", 0, 86400).value_or(60)));
    const auto start = std::chrono::steady_clock::now();
    const fuzz::Summary s = fuzz::run_campaign(c, [&](const fuzz::Result& r, std::int64_t done) {
        progress.show(static_cast<std::size_t>(done - 1), "program " + std::to_string(r.seed));
        if (!progress.on_terminal() && heartbeat.due())
            std::cout << "kiln fuzz: " << done << " of " << c.count << " programs compiled ("
                      << format_duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) << ")" << std::endl;
    });
    progress.clear();
    if (s.stopped_early)
        std::cout << "kiln fuzz: the time budget (--seconds " << o.seconds << ") ended the compiles after " << s.programs << " of " << c.count
                  << " programs, seeds " << c.seed << ".." << c.seed + static_cast<std::uint64_t>(s.programs) - 1 << std::endl;
    for (const fuzz::Result& r : s.failures) print_failure(r, "kiln fuzz --count 1 --seed " + std::to_string(r.seed) + " --targets " + joined(o.targets, ",") + " --precision " + o.precision + " --show");
    std::cout << s.programs << " programs: " << s.compiled << " compiled (" << s.rejected << " compiles rejected with an error, as their launches would be), "
              << s.internal << " failed (" << format_duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) << ")" << std::endl;
    return s.internal == 0 ? kExitOk : kExitFailed;
}

int run(const FuzzOptions& o) {
    if (o.count < 1) throw UsageError("--count must be at least 1");
    if (o.compile_only && (o.show || !o.shrink.empty() || (o.minimize_option && o.minimize_option->count() > 0)))
        throw UsageError("--compile-only runs nothing: it takes neither --show, --shrink nor --minimize");
    // Every program's kernel is compiled once and never again: filing each on disk
    // would only fill the cache (and cost its writes, a few fsyncs a program).
    if (!o.disk_cache && !o.compile_only) cache::DiskCache::keep_kernels_in_process_only();
    fuzz::CampaignOptions c;
    c.targets = compared_targets(o);
    // Device code cannot raise: programs for a device target use no bounds::check.
    for (const Target& t : c.targets) c.limits.device = c.limits.device || t.name() == "cuda" || t.name() == "metal";
    c.compile = parse_precision(o.precision);
    // The fuzzer's bounds (docs/fuzzing.md) are derived for standard's 2-ulp functions.
    if (c.compile.precision == Precision::fast)
        throw UsageError("fuzz compares in precision exact (bit for bit) or standard (within derived bounds); fast has no derived bounds yet");
    if (o.minimize_option && o.minimize_option->count() > 0) return run_minimize(o, c.targets, c.compile);
    c.seed = resolve_seed(o.seed);
    c.count = o.count;
    c.jobs = o.jobs;
    c.batch = o.batch;
    c.seconds = o.seconds;
    c.compile_only = o.compile_only;
    const std::string target_list = joined(o.targets, ",");
    if (!o.shrink.empty()) {
        if (o.count != 1) throw UsageError("--shrink edits one program: use it with --count 1");
        const fuzz::Recipe r = fuzz::apply_edits(fuzz::make_recipe(c.seed, c.limits), o.shrink);
        if (o.show) std::cout << fuzz::show_recipe(r) << "\n";
        const fuzz::Result res = fuzz::check_recipe(r, c.targets, c.compile);
        if (res.verdict == fuzz::Verdict::same) {
            std::cout << "program " << c.seed << " shrunk by " << joined(o.shrink, ",") << ": same on every target" << std::endl;
            return kExitOk;
        }
        print_failure(res, "kiln fuzz --count 1 --seed " + std::to_string(c.seed) + " --shrink " + joined(o.shrink, ",") + " --targets " +
                               target_list + " --precision " + o.precision + " --show");
        return kExitFailed;
    }
    if (c.compile_only) return run_compile_only(c, o);
    std::cout << "kiln fuzz: " << c.count << " programs (seeds " << c.seed << ".." << c.seed + static_cast<std::uint64_t>(c.count) - 1 << ") on "
              << joined(o.targets, " vs ") << ", precision " << o.precision << std::endl;
    if (o.show)
        for (std::int64_t i = 0; i < c.count; ++i) std::cout << fuzz::show_program(c.seed + static_cast<std::uint64_t>(i), c.limits) << "\n";

    Progress progress(static_cast<std::size_t>(c.count));
    // Without a terminal (a campaign logging to a file) a count once a minute
    // (KILN_FUZZ_REPORT_SECONDS; 0: after every program) instead of the progress
    // line, so that a campaign stopped early still says how far it got.
    Heartbeat heartbeat(std::chrono::seconds(support::env_integer("KILN_FUZZ_REPORT_SECONDS", 0, 86400).value_or(60)));
    const auto start = std::chrono::steady_clock::now();
    std::int64_t failed = 0;
    auto summary = fuzz::run_campaign(c, [&](const fuzz::Result& r, std::int64_t done) {
        if (r.verdict != fuzz::Verdict::same) {
            ++failed;
            progress.clear();
            print_failure(r, "kiln fuzz --count 1 --seed " + std::to_string(r.seed) + " --targets " + target_list + " --precision " + o.precision +
                                 " --show (or --minimize " + std::to_string(r.seed) + " to shrink it first)");
        }
        progress.show(static_cast<std::size_t>(done - 1), "program " + std::to_string(r.seed));
        if (!progress.on_terminal() && heartbeat.due())
            std::cout << "kiln fuzz: " << done << " of " << c.count << " programs checked, " << failed << " not identical ("
                      << format_duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) << ")" << std::endl;
    });
    progress.clear();
    if (summary.stopped_early)
        std::cout << "kiln fuzz: the time budget (--seconds " << o.seconds << ") ended the campaign after " << summary.programs << " of " << c.count
                  << " programs"
                  << (summary.programs > 0 ? ", seeds " + std::to_string(c.seed) + ".." + std::to_string(c.seed + static_cast<std::uint64_t>(summary.programs) - 1) : "")
                  << std::endl;
    std::cout << summary.programs << " programs: " << summary.same << " identical, " << summary.differs << " differ, " << summary.invalid
              << " invalid, " << summary.internal << " internal errors (" << format_duration(summary.seconds) << "; " << summary.raised
              << " of the identical raised the same error on every target)" << std::endl;
    print_time_spent(summary, c);
    if (c.compile.precision == Precision::standard)
        std::cout << "precision standard: " << summary.checked << " output elements compared within their bounds, " << summary.unchecked
                  << " left unchecked (no finite bound: a comparison, an index or a division on values that may differ)" << std::endl;
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
    sub->add_option("--batch", o->batch, "programs compiled together, in one host-compiler run on the cpu target")
        ->check(CLI::Range(1, 1024))
        ->capture_default_str();
    sub->add_flag("--disk-cache", o->disk_cache,
                  "file the programs' kernels in the disk cache too (by default they stay in the process: each is compiled once and never again)");
    sub->add_flag("--compile-only", o->compile_only,
                  "compile the programs' kernels for the targets after the first into the disk cache and run nothing: a campaign's compiles "
                  "done ahead, e.g. on a machine without the GPU (cuda compiles offline for sm_90a; the cache serves a machine with the same NVRTC)");
    sub->add_option("--seconds", o->seconds,
                    "a time budget: start no program after this many seconds (those started finish; the ones checked are the first)")
        ->check(CLI::PositiveNumber);
    add_precision_option(*sub, o->precision);
    sub->add_flag("--show", o->show, "print each program's recipe and IR first (use with --count 1)");
    o->minimize_option = sub->add_option("--minimize", o->minimize, "shrink failing program SEED while it still fails, and print it")
                             ->excludes("--count");
    sub->add_option("--shrink", o->shrink, "edits (as --minimize prints them) applied to program --seed")->delimiter(',');
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
