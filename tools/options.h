// The options the subcommands share (which entries, which target, size, precision,
// seed), declared once so that every subcommand spells and checks them the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "catalog.h"

namespace kiln::cli {

// NAME or --all.
struct EntrySelection {
    std::string name;
    bool all = false;
};
void add_entry_selection(CLI::App& app, EntrySelection& selection, bool allow_all);
// The chosen entries, in catalog order; an unknown name is an error listing the known ones.
std::vector<const catalog::Entry*> select_entries(const EntrySelection& selection);
const catalog::Entry& select_entry(const std::string& name);

inline const std::vector<std::string> kTargetNames = {"interp", "cpu", "cuda", "metal", "auto"};
CLI::Option* add_target_option(CLI::App& app, std::string& name);
// The target by name ("auto" resolved). With require_available, a target that cannot
// run here is an error that says why.
Target select_target(const std::string& name, bool require_available);
// plan and source do not run anything, so they go ahead on a target that cannot run
// here; this says so on stderr first, with the reason.
void note_if_unavailable(const Target& t);

CLI::Option* add_size_option(CLI::App& app, std::string& size);
catalog::Size parse_size(const std::string& size);

CLI::Option* add_precision_option(CLI::App& app, std::string& precision);
CompileOptions parse_precision(const std::string& precision);

// The seed for random inputs: the one given, else one from the clock (printed by the
// caller so the run can be repeated with --seed).
struct SeedOption {
    std::uint64_t value = 0;
    CLI::Option* option = nullptr;
};
void add_seed_option(CLI::App& app, SeedOption& seed);
std::uint64_t resolve_seed(const SeedOption& seed);

}  // namespace kiln::cli
