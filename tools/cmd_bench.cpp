// kiln bench: per case, what a kernel's first launch costs (tracing, the target's
// compile) and what a warm launch costs. Outputs are checked against the reference
// before anything is timed: a fast wrong kernel is not a result.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "case_args.h"
#include "commands.h"
#include "json_report.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "trace/kernel_trace.h"

namespace kiln::cli {

namespace {

struct BenchOptions {
    EntrySelection selection;
    std::string target = "auto";
    std::string size = "small";
    std::string precision = "standard";
    int reps = 10;
    SeedOption seed;
    JsonReport json;
};

template <class F> double seconds(F&& f) {
    auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Times one case and prints its line; false when its outputs are wrong or kiln raised an error.
bool bench_one(const catalog::Entry& e, catalog::Case& c, const Target& t, BenchOptions& o, std::size_t width, Progress& progress) {
    const CompileOptions options = parse_precision(o.precision);
    const std::string head = column(e.name, width) + column(c.shape, kShapeWidth);
    nlohmann::json record = {{"entry", e.name}, {"shape", c.shape}};
    try {
        // Arguments are placed once, so device copies are outside every timing. A
        // target's run() returns when the launch has finished, so its wall time is the launch.
        CaseArgs args = target_args(c, t);
        const Loc loc = c.kernel.impl().loc;
        auto launch = [&] { run_kernel(c.kernel, t, args.args, options, loc); };
        const double trace = seconds([&] { program_for(c, args); });  // traced and verified once, then cached
        const double first = seconds(launch);                          // includes the target's compile (or cache load)
        catalog::Check check = catalog::compare(c, outputs(c, args), c.reference(c));
        if (!check.ok) {
            progress.clear();
            std::cout << head << "FAIL: " << check.detail << std::endl;
            record.update({{"ok", false}, {"detail", check.detail}});
            o.json.add_case(std::move(record));
            return false;
        }
        std::vector<double> warm;
        for (int r = 0; r < o.reps; ++r) warm.push_back(seconds(launch));
        const double warm_median = median(warm);
        // Targets compile inside run(), so the compile is what the first launch took beyond a warm one.
        const double compile = std::max(0.0, first - warm_median);
        progress.clear();
        std::cout << head << column(format_duration(trace), 10) << column(format_duration(compile), 10) << column(format_duration(trace + first), 10)
                  << format_duration(warm_median) << std::endl;
        record.update({{"ok", true}, {"trace_s", trace}, {"compile_s", compile}, {"first_call_s", trace + first}, {"warm_median_s", warm_median},
                       {"warm_s", warm}});
        o.json.add_case(std::move(record));
        return true;
    } catch (const Error& err) {
        progress.clear();
        std::cout << head << "ERROR" << std::endl;
        print_error(err);
        record.update({{"ok", false}, {"error", err.what()}});
        o.json.add_case(std::move(record));
        return false;
    }
}

int run(BenchOptions& o) {
    auto entries = select_entries(o.selection);
    Target t = select_target(o.target, true);
    const catalog::Size size = parse_size(o.size);
    const std::uint64_t seed = resolve_seed(o.seed);
    std::cout << "kiln bench: target " << t.name() << ", size " << size_name(size) << ", precision " << o.precision << ", seed " << seed
              << ", median of " << o.reps << " warm launches (device copies not timed)" << std::endl;
    const std::size_t width = std::max<std::size_t>(name_width(entries), 5);
    std::cout << column("entry", width) << column("shape", kShapeWidth) << column("trace", 10) << column("compile", 10) << column("first call", 10)
              << "warm" << std::endl;

    o.json.settings() = {{"command", "bench"}, {"target", t.name()}, {"size", size_name(size)}, {"precision", o.precision}, {"seed", seed},
                         {"reps", o.reps}};
    return o.json.finish(for_each_case(entries, size, seed, width, [&](const catalog::Entry& e, catalog::Case& c, Progress& progress) {
        return bench_one(e, c, t, o, width, progress);
    }));
}

}  // namespace

Command bench_command(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    auto* sub = app.add_subcommand("bench", "time catalog cases on a target: trace, compile, first call, warm median");
    add_entry_selection(*sub, o->selection, true);
    add_target_option(*sub, o->target)->capture_default_str();
    add_size_option(*sub, o->size);
    sub->add_option("--reps", o->reps, "warm launches to take the median of")->check(CLI::PositiveNumber)->capture_default_str();
    add_seed_option(*sub, o->seed);
    add_precision_option(*sub, o->precision);
    o->json.add_option(*sub);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
