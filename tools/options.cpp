#include "options.h"

#include <charconv>
#include <chrono>
#include <iostream>
#include <limits>

#include "commands.h"

namespace kiln::cli {

namespace {
std::string joined(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
}
std::string known_entries() {
    std::vector<std::string> names;
    for (const auto& e : catalog::entries()) names.push_back(e.name);
    return joined(names);
}
}  // namespace

void add_entry_selection(CLI::App& app, EntrySelection& selection, bool allow_all) {
    auto* name = app.add_option("name", selection.name, "catalog entry (`kiln list` shows them)");
    if (!allow_all) {
        name->required();
        return;
    }
    auto* all = app.add_flag("--all", selection.all, "every entry of the catalog");
    name->excludes(all);
}

const catalog::Entry& select_entry(const std::string& name) {
    if (const catalog::Entry* e = catalog::find(name)) return *e;
    throw UsageError("no catalog entry named '" + name + "' (known: " + known_entries() + ")");
}

std::vector<const catalog::Entry*> select_entries(const EntrySelection& selection) {
    if (!selection.all && selection.name.empty()) throw UsageError("name a catalog entry or pass --all (known: " + known_entries() + ")");
    if (!selection.all) return {&select_entry(selection.name)};
    std::vector<const catalog::Entry*> all;
    for (const auto& e : catalog::entries()) all.push_back(&e);
    return all;
}

CLI::Option* add_target_option(CLI::App& app, std::string& name) {
    return app.add_option("--target", name, "where kernels run; auto: cuda if a device is present, else cpu if a host compiler is, else interp")
        ->check(CLI::IsMember(kTargetNames));
}

Target select_target(const std::string& name, bool require_available) {
    Target t = target_named(name);
    if (require_available && !t.available()) throw Error("target '" + t.name() + "' is not available: " + t.unavailable_reason());
    return t;
}

void note_if_unavailable(const Target& t) {
    if (!t.available()) std::cerr << "kiln: note: target '" << t.name() << "' cannot run here: " << t.unavailable_reason() << std::endl;
}

CLI::Option* add_size_option(CLI::App& app, std::string& size) {
    return app.add_option("--size", size, "problem sizes of the cases")->check(CLI::IsMember({"small", "medium", "large"}))->capture_default_str();
}

catalog::Size parse_size(const std::string& size) {
    if (size == "medium") return catalog::Size::medium;
    if (size == "large") return catalog::Size::large;
    return catalog::Size::small;  // the option's checker admits nothing else
}

CLI::Option* add_precision_option(CLI::App& app, std::string& precision) {
    return app.add_option("--precision", precision,
                          "exact: bit-exact with interp; standard: reductions and mma may reassociate; fast: standard, and f32 exp may be "
                          "the hardware's approximation (cuda)")
        ->check(CLI::IsMember({"exact", "standard", "fast"}))
        ->capture_default_str();
}

CompileOptions parse_precision(const std::string& precision) {
    CompileOptions o;
    o.precision = precision_named(precision).value_or(Precision::standard);
    return o;
}

void add_seed_option(CLI::App& app, SeedOption& seed) {
    // CLI11 converts "-1" to 2^64 - 1 without a word: the seed must be written as it is used.
    CLI::Validator whole_number(
        [](std::string& text) -> std::string {
            std::uint64_t v = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc() && end == text.data() + text.size()) return "";
            return text + " is not a whole number from 0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max());
        },
        "UINT64");
    seed.option = app.add_option("--seed", seed.value, "seed of the random inputs (default: from the clock, printed)")->check(whole_number);
}

std::uint64_t resolve_seed(const SeedOption& seed) {
    if (seed.option && seed.option->count() > 0) return seed.value;
    // Short enough to retype from the printed header.
    auto ns = std::chrono::system_clock::now().time_since_epoch() / std::chrono::nanoseconds(1);
    return static_cast<std::uint64_t>(ns) % 1'000'000'000u;
}

}  // namespace kiln::cli
