// kiln ir: the Tile IR of an entry's kernel, specialised for its first case; with
// --after PASS (and --target), as the middle end leaves it after that pass, with
// each value's annotations (layouts, contraction plans, pipeline stages ...).
#include <iostream>

#include "case_args.h"
#include "commands.h"
#include "library_kernel.h"
#include "options.h"
#include "passes/lower.h"

namespace kiln::cli {

namespace {
struct IrOptions {
    std::string name;
    std::string library;             // a user's library of exported kernels, instead of the catalog
    std::vector<std::string> args;   // its arguments' shapes (64x128) and scalar values
    std::string size = "small";
    std::string target;
    std::string after;
    std::string precision = "standard";
};

passes::TargetKind target_kind(const std::string& name) {
    if (name == "interp") return passes::TargetKind::interp;
    if (name == "cpu") return passes::TargetKind::cpu;
    if (name == "cuda") return passes::TargetKind::cuda;
    if (name == "metal") return passes::TargetKind::metal;
    throw Error("--target: the middle end lowers for interp, cpu, cuda or metal, not '" + name + "'");
}

int run(const IrOptions& o) {
    if (!o.library.empty()) {
        // The exported ABI describes a kernel's traced IR, not the middle end's passes.
        if (!o.target.empty() || !o.after.empty())
            throw UsageError("--target and --after lower a catalog entry's IR; with --library, `kiln ir` prints the traced IR only");
        std::cout << describe_library_kernel(o.library, o.name, o.args, 0, "interp", "standard");
        return kExitOk;
    }
    catalog::Case c = first_case(select_entry(o.name), parse_size(o.size));
    auto args = host_args(c);
    auto program = program_for(c, args);
    if (o.target.empty() && o.after.empty()) {
        std::cout << ir::print(*program);
        return kExitOk;
    }
    passes::LowerOptions lo;
    lo.target = target_kind(o.target.empty() ? "cuda" : o.target);
    lo.precision = parse_precision(o.precision).precision;
    lo.args = &args.args;
    std::cout << passes::print(passes::lower(*program, lo, o.after));
    return kExitOk;
}
}  // namespace

Command ir_command(CLI::App& app) {
    auto o = std::make_shared<IrOptions>();
    auto* sub = app.add_subcommand("ir", "the Tile IR of an entry's kernel (for its first case's arguments), optionally lowered");
    sub->add_option("name", o->name, "catalog entry (`kiln list` shows them), or a kernel of --library")->required();
    sub->add_option("--library", o->library, "a shared library of kernels exported with KILN_EXPORT_KERNEL")->type_name("PATH");
    sub->add_option("--arg", o->args, "with --library: each argument in order, a view's shape (64x128) or a scalar's value")
        ->type_name("SHAPE|NUMBER");
    add_size_option(*sub, o->size);
    sub->add_option("--target", o->target, "lower for this target (interp, cpu, cuda, metal; default cuda when --after is given)");
    sub->add_option("--after", o->after, "stop after this pass and print the annotated IR (default: the whole pipeline)");
    add_precision_option(*sub, o->precision);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
