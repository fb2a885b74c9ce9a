// kiln run: runs catalog cases on a target and checks each against its f64 host
// reference within its error bound; one line per case (its largest error/bound
// ratio: at most 1 passes), then `N passed, M failed`. With --seeds N, every case
// over N seeds (run_seeds.h).
#include <chrono>
#include <iostream>

#include "commands.h"
#include "json_report.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "run_seeds.h"

namespace kiln::cli {

namespace {

struct RunOptions {
    EntrySelection selection;
    std::string target = "auto";
    std::string size = "small";
    std::string precision = "standard";
    SeedOption seed;
    std::uint64_t seeds = 0;  // --seeds: how many consecutive seeds (0: the one seed, a line per case run)
    JsonReport json;
};

// Runs one case and prints its line (clearing the progress line first); false when
// it failed or kiln raised an error.
bool run_one(const catalog::Entry& e, catalog::Case& c, const Target& t, const CompileOptions& options, std::size_t width,
             Progress& progress, JsonReport& json) {
    const std::string head = column(e.name, width) + column(t.name(), 6) + column(c.shape, kShapeWidth);
    nlohmann::json record = {{"entry", e.name}, {"shape", c.shape}, {"target", t.name()}};
    try {
        // Only the launch is timed: the reference is f64 host code, often slower than the kernel.
        auto start = std::chrono::steady_clock::now();
        auto outs = catalog::run_outputs(c, t, options);
        std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        catalog::Check check = catalog::compare(c, outs, c.reference(c));
        progress.clear();
        std::cout << head << "err/bound " << column(format_error(check.worst), 7) << "max_abs " << column(format_error(check.max_abs), 7)
                  << column(format_duration(took.count()), 9) << (check.ok ? "ok" : "FAIL: " + check.detail) << std::endl;
        record.update({{"ok", check.ok}, {"err_bound", check.worst}, {"max_abs", check.max_abs}, {"seconds", took.count()}});
        if (!check.ok) record["detail"] = check.detail;
        json.add_case(std::move(record));
        return check.ok;
    } catch (const Error& err) {
        progress.clear();
        std::cout << head << "ERROR" << std::endl;
        print_error(err);
        record.update({{"ok", false}, {"error", err.what()}});
        json.add_case(std::move(record));
        return false;
    }
}

int run(RunOptions& o) {
    if (o.seeds > 0 && o.json.enabled()) throw UsageError("--json records one run's cases; it does not combine with --seeds");
    auto entries = select_entries(o.selection);
    Target target = select_target(o.target, true);
    const catalog::Size size = parse_size(o.size);
    const CompileOptions options = parse_precision(o.precision);
    const std::uint64_t seed = resolve_seed(o.seed);
    std::cout << "kiln run: target " << target.name() << (o.target == "auto" ? " (auto)" : "") << ", size " << size_name(size)
              << ", precision " << o.precision;
    if (o.seeds > 0) {
        std::cout << ", seeds " << seed << ".." << seed + o.seeds - 1 << " (repeat with --seed " << seed << " --seeds " << o.seeds << ")"
                  << std::endl;
        return run_seeds(entries, target, size, options, seed, o.seeds);
    }
    std::cout << ", seed " << seed << " (repeat with --seed " << seed << ")" << std::endl;

    o.json.settings() = {{"command", "run"}, {"target", target.name()}, {"size", size_name(size)}, {"precision", o.precision}, {"seed", seed}};
    const std::size_t width = name_width(entries);
    return o.json.finish(for_each_case(entries, size, seed, width, [&](const catalog::Entry& e, catalog::Case& c, Progress& progress) {
        return run_one(e, c, target, options, width, progress, o.json);
    }));
}

}  // namespace

Command run_command(CLI::App& app) {
    auto o = std::make_shared<RunOptions>();
    auto* sub = app.add_subcommand("run", "run catalog cases on a target and check them against the host reference");
    add_entry_selection(*sub, o->selection, true);
    add_target_option(*sub, o->target)->capture_default_str();
    add_size_option(*sub, o->size);
    add_seed_option(*sub, o->seed);
    sub->add_option("--seeds", o->seeds, "run every case over this many consecutive seeds, from --seed (or the clock's), and print each "
                                         "case's worst error/bound ratio")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000}));
    add_precision_option(*sub, o->precision);
    o->json.add_option(*sub);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
