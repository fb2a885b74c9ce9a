// kiln metal-harness: writes a folder that runs one catalog case's kernel on a
// Mac's GPU and checks it against the interpreter (src/targets/metal/harness.h).
// The case is the entry's small case number CASE with a fixed seed, so the
// folder is the same every time it is written (CI regenerates the examples in
// examples/metal_harness/ and checks that they are unchanged).
#include <filesystem>
#include <iostream>

#include "case_args.h"
#include "commands.h"
#include "options.h"
#include "targets/metal/harness.h"

namespace kiln::cli {

namespace {

struct HarnessOptions {
    std::string name;
    std::size_t index = 0;
    std::string out;
    std::string precision = "standard";
    std::uint64_t seed = 1;
};

int run(const HarnessOptions& o) {
    const catalog::Entry& e = select_entry(o.name);
    std::vector<catalog::Case> cases = e.cases(catalog::Size::small, o.seed);
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
    const std::string lowering = mtl::write_harness(o.out, h);
    std::cout << "kiln metal-harness: " << h.name << ": " << lowering << " lowering, written to " << o.out
              << " (on a Mac: pip install pyobjc-framework-Metal; python3 " << (std::filesystem::path(o.out) / "run.py").string() << ")" << std::endl;
    return kExitOk;
}

}  // namespace

Command metal_harness_command(CLI::App& app) {
    auto o = std::make_shared<HarnessOptions>();
    auto* sub = app.add_subcommand("metal-harness", "write a folder that runs an entry's kernel on a Mac's GPU and checks it");
    sub->add_option("name", o->name, "catalog entry (`kiln list` shows them)")->required();
    sub->add_option("case", o->index, "which of the entry's small cases")->capture_default_str();
    sub->add_option("-o,--out", o->out, "the folder to write")->required();
    add_precision_option(*sub, o->precision);
    sub->add_option("--seed", o->seed, "seed of the inputs")->capture_default_str();
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
