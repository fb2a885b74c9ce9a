// kiln metal-harness: writes a folder that runs one catalog case's kernel on a
// Mac's GPU and checks it against the interpreter (src/targets/metal/harness.h).
// The case is the entry's small case number CASE with a fixed seed, so the
// folder is the same every time it is written (CI regenerates the examples in
// examples/metal_harness/ and checks that they are unchanged).
#include <filesystem>
#include <iostream>

#include "cache/private_files.h"
#include "case_args.h"
#include "commands.h"
#include "options.h"
#include "targets/metal/harness.h"

namespace kiln::cli {

namespace {

struct HarnessOptions {
    std::string name;
    bool all = false;
    std::size_t index = 0;
    std::string out;
    std::string precision = "standard";
    std::uint64_t seed = 1;
};

// Writes the harness of entry e's small case `index` into `out`; returns the lowering.
std::string write_entry(const catalog::Entry& e, const HarnessOptions& o, const std::filesystem::path& out_dir) {
    std::vector<catalog::Case> cases = e.cases(catalog::Size::small, o.seed);
    if (o.index >= cases.size() && o.all) throw UsageError("entry '" + e.name + "' has no small case " + std::to_string(o.index));
    if (o.index >= cases.size())
        throw UsageError("entry '" + e.name + "' has " + std::to_string(cases.size()) + " small cases (0 to " + std::to_string(cases.size() - 1) +
                         "), not " + std::to_string(o.index));
    catalog::Case& c = cases[o.index];
    const CompileOptions options = parse_precision(o.precision);
    // The interpreter's outputs, from outputs poisoned as catalog::run_outputs leaves
    // them before a launch (every bit set): the harness starts from the same bytes.
    std::vector<catalog::Buffer> expected = catalog::run_outputs(c, interp(), options);
    for (auto& b : c.args)
        if (b->output) std::fill(b->bytes.begin(), b->bytes.end(), std::byte{0xff});
    CaseArgs args = host_args(c);
    auto program = program_for(c, args);
    mtl::HarnessLaunch h;
    h.name = e.name + ", small case " + std::to_string(o.index) + " (" + c.shape + "), seed " + std::to_string(o.seed);
    h.program = program.get();
    h.args = args.args;
    h.options = options;
    const auto reference = c.reference(c);
    const catalog::Bounds bounds = c.error_bound ? c.error_bound(c) : catalog::Bounds{};
    std::size_t out = 0;
    for (std::size_t k = 0; k < c.args.size(); ++k) {
        if (!c.args[k]->output) continue;
        mtl::HarnessOutput ho;
        ho.index = static_cast<int>(k);
        ho.expected = expected.at(out).bytes;
        if (!c.exact_integer && is_float(c.args[k]->kind) && out < bounds.size()) {
            ho.reference = reference.at(out);
            for (const auto& b : bounds[out]) ho.bound.push_back(b.error);
        }
        h.outputs.push_back(std::move(ho));
        ++out;
    }
    const std::string lowering = mtl::write_harness(out_dir, h);
    std::cout << "kiln metal-harness: " << h.name << ": " << lowering << " lowering, written to " << out_dir.string() << std::endl;
    return lowering;
}

// run_all.sh: every entry's run.py (or, with --shim, its shim build and run.py --shim),
// one line each, and a count; exit 0 only when all pass.
std::string run_all_script(const std::vector<std::string>& names) {
    std::string s = "#!/bin/sh\n"
                    "# Runs every harness of this folder: on a Mac's GPU (python3 run.py), or with --shim through\n"
                    "# kiln's C++ shim on any machine (build_shim.sh, then run.py --shim). Exit 0 only if all pass.\n"
                    "cd \"$(dirname \"$0\")\"\npassed=0; failed=0\nfor entry in";
    for (const auto& n : names) s += " " + n;
    s += "; do\n"
         "  if [ \"$1\" = --shim ]; then\n"
         "    sh \"$entry/build_shim.sh\" > \"$entry/shim/build.log\" 2>&1 && python3 \"$entry/run.py\" --shim \"$entry/shim/kernel.so\" > \"$entry/result.txt\" 2>&1\n"
         "  else\n"
         "    python3 \"$entry/run.py\" > \"$entry/result.txt\" 2>&1\n"
         "  fi\n"
         "  if [ $? -eq 0 ]; then echo \"pass  $entry\"; passed=$((passed + 1)); else echo \"FAIL  $entry: $(tail -n 1 \"$entry/result.txt\" 2>/dev/null)\"; failed=$((failed + 1)); fi\n"
         "done\n"
         "echo \"$passed passed, $failed failed\"\n"
         "[ $failed -eq 0 ]\n";
    return s;
}

int run(const HarnessOptions& o) {
    if (o.all == !o.name.empty()) throw UsageError("metal-harness: name one entry, or --all");
    if (!o.all) {
        write_entry(select_entry(o.name), o, o.out);
        std::cout << "on a Mac: pip install pyobjc-framework-Metal; python3 " << (std::filesystem::path(o.out) / "run.py").string() << std::endl;
        return kExitOk;
    }
    std::vector<std::string> names;
    int simdgroup = 0;
    for (const catalog::Entry& e : catalog::entries()) {
        simdgroup += write_entry(e, o, std::filesystem::path(o.out) / e.name) == "simdgroup";
        names.push_back(e.name);
    }
    const std::filesystem::path script = std::filesystem::path(o.out) / "run_all.sh";
    try {
        cache::replace_file(o.out, "run_all.sh", run_all_script(names));
    } catch (const cache::IoError& e) {
        throw Error("metal-harness: cannot write " + script.string() + ": " + e.detail());
    }
    std::cout << "kiln metal-harness: " << names.size() << " entries (" << simdgroup << " in the simdgroup lowering) written to " << o.out
              << "; on a Mac: pip install pyobjc-framework-Metal; sh " << script.string() << " (sh " << script.string()
              << " --shim runs them through kiln's C++ shim anywhere)" << std::endl;
    return kExitOk;
}

}  // namespace

Command metal_harness_command(CLI::App& app) {
    auto o = std::make_shared<HarnessOptions>();
    auto* sub = app.add_subcommand("metal-harness", "write a folder that runs an entry's kernel on a Mac's GPU and checks it");
    auto* name = sub->add_option("name", o->name, "catalog entry (`kiln list` shows them)");
    sub->add_flag("--all", o->all, "every entry of the catalog (its case CASE, else 0), one folder each, and run_all.sh")->excludes(name);
    sub->add_option("case", o->index, "which of the entry's small cases (with --all, of every entry)")->capture_default_str();
    sub->add_option("-o,--out", o->out, "the folder to write")->required();
    add_precision_option(*sub, o->precision);
    sub->add_option("--seed", o->seed, "seed of the inputs")->capture_default_str();
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
