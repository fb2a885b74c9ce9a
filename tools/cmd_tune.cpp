// kiln tune: runs the autotuner (kiln/tune.h) over a catalog entry's configurations
// on each of its cases: every candidate is checked against the first, timed, and the
// fastest kept on disk; the chosen kernel's output is then checked against the
// entry's f64 reference. A second run finds the kept choices and times nothing.
#include <algorithm>
#include <iostream>

#include "commands.h"
#include "options.h"
#include "report.h"

namespace kiln::cli {

namespace {

struct TuneCommandOptions {
    std::string name;
    std::string target = "auto";
    std::string size = "small";
    std::string precision = "standard";
    SeedOption seed;
    bool retune = false;
    int reps = 20;
    int warmup = 3;
};

std::string tunable_entries() {
    std::string names;
    for (const catalog::Entry& e : catalog::entries())
        if (!e.tune_space.empty()) names += (names.empty() ? "" : ", ") + e.name;
    return names;
}

// The candidates of one tuning run, one line each, fastest first marked.
void print_table(const TuneChoice& c) {
    const double best = c.candidates[c.index].median;
    std::size_t width = 0;
    for (const TuneCandidate& k : c.candidates) width = std::max(width, k.config.text().size() + 2);
    for (std::size_t i = 0; i < c.candidates.size(); ++i) {
        const TuneCandidate& k = c.candidates[i];
        std::cout << "    " << (i == c.index ? "* " : "  ") << column(k.config.text(), width);
        if (k.status == TuneCandidate::Status::timed) {
            char ratio[32];
            std::snprintf(ratio, sizeof ratio, "%.2fx", k.median / best);
            std::cout << column(format_duration(k.median), 11) << column(ratio, 8) << "differs by " << format_error(k.difference) << "\n";
        } else {
            std::cout << status_name(k.status) << ": " << k.why << "\n";
        }
    }
}

int run(const TuneCommandOptions& o) {
    const catalog::Entry& e = select_entry(o.name);
    if (e.tune_space.empty())
        throw UsageError("'" + e.name + "' has no configurations to tune (entries that have: " + tunable_entries() + ")");
    Target target = select_target(o.target, true);
    const catalog::Size size = parse_size(o.size);
    const CompileOptions options = parse_precision(o.precision);
    const std::uint64_t seed = resolve_seed(o.seed);
    std::cout << "kiln tune " << e.name << ": target " << target.name() << ", size " << o.size << ", precision " << o.precision << ", "
              << e.tune_space.size() << " configurations, seed " << seed << " (repeat with --seed " << seed << ")" << std::endl;

    TuneOptions tune;
    tune.reps = o.reps;
    tune.warmup = o.warmup;
    tune.retune = o.retune;
    Tuner tuner(e.name, e.tune_space, e.tune_kernel, tune);
    int failed = 0;
    for (catalog::Case& c : e.cases(size, seed)) {
        try {
            auto outs = catalog::run_outputs_with(
                c, target, [&](const std::vector<detail::Arg>& args) { run_tuned(tuner, target, args, options, {}); });
            catalog::Check check = catalog::compare(c, outs, c.reference(c));
            const TuneChoice& choice = *tuner.last_choice();
            std::cout << "  " << column(c.shape, kShapeWidth) << "chose " << choice.config.text()
                      << (choice.from_disk ? " (kept choice, nothing timed)" : "") << "; against the reference: err/bound "
                      << format_error(check.worst) << " " << (check.ok ? "ok" : "FAIL: " + check.detail) << "\n";
            print_table(choice);
            std::cout.flush();
            if (!check.ok) ++failed;
        } catch (const Error& err) {
            std::cout << "  " << column(c.shape, kShapeWidth) << "ERROR" << std::endl;
            print_error(err);
            ++failed;
        }
    }
    return failed ? kExitFailed : kExitOk;
}

}  // namespace

Command tune_command(CLI::App& app) {
    auto o = std::make_shared<TuneCommandOptions>();
    auto* sub = app.add_subcommand("tune", "choose the fastest of an entry's configurations for each case, kept on disk for later runs");
    sub->add_option("name", o->name, "catalog entry with configurations (gemm_bf16, linear, ...)")->required();
    add_target_option(*sub, o->target)->capture_default_str();
    add_size_option(*sub, o->size);
    add_precision_option(*sub, o->precision);
    add_seed_option(*sub, o->seed);
    sub->add_flag("--retune", o->retune, "tune again even where a choice is kept, and replace it");
    sub->add_option("--reps", o->reps, "timed launches per candidate (the median counts)")->check(CLI::Range(1, 100000))->capture_default_str();
    sub->add_option("--warmup", o->warmup, "launches before timing a candidate")->check(CLI::Range(0, 100000))->capture_default_str();
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
