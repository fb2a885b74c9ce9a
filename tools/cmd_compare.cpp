// kiln compare: runs each case on two targets and compares the output buffers bit for
// bit (the exact-precision contract: every target agrees with interp exactly).
#include <cstring>
#include <iostream>
#include <optional>

#include "commands.h"
#include "json_report.h"
#include "kiln/detail/identical.h"
#include "options.h"
#include "progress.h"
#include "report.h"

namespace kiln::cli {

namespace {

struct CompareOptions {
    EntrySelection selection;
    std::vector<std::string> targets;
    std::string size = "small";
    std::string precision = "exact";
    SeedOption seed;
    JsonReport json;
};

// The first element that is not identical (kiln/detail/identical.h), described; nothing when the outputs are identical.
std::optional<std::string> first_difference(const std::vector<catalog::Buffer>& a, const std::vector<catalog::Buffer>& b,
                                            const std::string& name_a, const std::string& name_b) {
    if (a.size() != b.size()) return std::to_string(a.size()) + " outputs vs " + std::to_string(b.size());
    for (std::size_t o = 0; o < a.size(); ++o) {
        if (a[o].kind != b[o].kind || a[o].extents != b[o].extents) return "output " + std::to_string(o) + " differs in kind or shape";
        const std::size_t width = static_cast<std::size_t>(kind_bytes(a[o].kind));
        for (std::int64_t i = 0; i < a[o].size(); ++i) {
            const std::size_t at = static_cast<std::size_t>(i) * width;
            if (detail::identical_elements(a[o].kind, a[o].bytes.data() + at, b[o].bytes.data() + at)) continue;
            return "output " + std::to_string(o) + " element " + std::to_string(i) + ": " + name_a + " " + format_element(a[o], i) +
                   " vs " + name_b + " " + format_element(b[o], i);
        }
    }
    return std::nullopt;
}

int run(CompareOptions& o) {
    // A target compared with itself agrees vacuously.
    const std::string asked = "--targets " + o.targets.at(0) + "," + o.targets.at(1);
    if (o.targets.at(0) == o.targets.at(1)) throw UsageError("compare needs two different targets; " + asked + " names " + o.targets.at(0) + " twice");
    auto entries = select_entries(o.selection);
    Target a = select_target(o.targets.at(0), true);
    Target b = select_target(o.targets.at(1), true);
    if (a.name() == b.name()) throw UsageError("compare needs two different targets; " + asked + " gives " + a.name() + " twice here ('auto' is " + a.name() + ")");
    const catalog::Size size = parse_size(o.size);
    const CompileOptions options = parse_precision(o.precision);
    const std::uint64_t seed = resolve_seed(o.seed);
    std::cout << "kiln compare: " << a.name() << " vs " << b.name() << ", size " << size_name(size) << ", precision " << o.precision
              << ", seed " << seed << " (repeat with --seed " << seed << ")" << std::endl;

    o.json.settings() = {{"command", "compare"}, {"targets", {a.name(), b.name()}}, {"size", size_name(size)}, {"precision", o.precision},
                         {"seed", seed}};
    const std::size_t width = name_width(entries);
    Tally tally;
    Progress progress(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const catalog::Entry& e = *entries[i];
        progress.show(i, e.name);
        // Each target gets its own cases from the same seed: identical inputs, and
        // outputs in their initial state (a kernel may read what it writes).
        auto cases_a = cases_or_report(e, size, seed, width, progress);
        auto cases_b = cases_a ? cases_or_report(e, size, seed, width, progress) : std::nullopt;
        if (!cases_b) {
            tally.add(false);
            continue;
        }
        for (std::size_t k = 0; k < cases_a->size(); ++k) {
            progress.show(i, e.name + " " + (*cases_a)[k].shape);
            const std::string head = column(e.name, width) + column((*cases_a)[k].shape, kShapeWidth);
            nlohmann::json record = {{"entry", e.name}, {"shape", (*cases_a)[k].shape}};
            try {
                auto out_a = catalog::run_outputs((*cases_a)[k], a, options);
                auto out_b = catalog::run_outputs((*cases_b)[k], b, options);
                auto diff = first_difference(out_a, out_b, a.name(), b.name());
                progress.clear();
                std::cout << head << (diff ? "differs: " + *diff : "identical") << std::endl;
                tally.add(!diff);
                record.update({{"ok", !diff}, {"identical", !diff}});
                if (diff) record["difference"] = *diff;
            } catch (const Error& err) {
                progress.clear();
                std::cout << head << "ERROR" << std::endl;
                print_error(err);
                tally.add(false);
                record.update({{"ok", false}, {"error", err.what()}});
            }
            o.json.add_case(std::move(record));
        }
    }
    progress.clear();
    return o.json.finish(tally.print());
}

}  // namespace

Command compare_command(CLI::App& app) {
    auto o = std::make_shared<CompareOptions>();
    auto* sub = app.add_subcommand("compare", "run catalog cases on two targets and compare the outputs bit for bit");
    add_entry_selection(*sub, o->selection, true);
    sub->add_option("--targets", o->targets, "the two targets, A,B")
        ->required()
        ->expected(2)
        ->delimiter(',')
        ->check(CLI::IsMember(kTargetNames));
    add_size_option(*sub, o->size);
    add_seed_option(*sub, o->seed);
    add_precision_option(*sub, o->precision);
    o->json.add_option(*sub);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
