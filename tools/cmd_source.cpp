// kiln source: the code a target generates for an entry's kernel (or, for cuda, the
// PTX it compiles to), for the first case's arguments.
#include <iostream>

#include "case_args.h"
#include "commands.h"
#include "library_kernel.h"
#include "options.h"
#include "targets/common/target_impl.h"

namespace kiln::cli {

namespace {
struct SourceOptions {
    std::string name;
    std::string library;             // a user's library of exported kernels, instead of the catalog
    std::vector<std::string> args;   // its arguments' shapes (64x128) and scalar values
    std::string target;
    std::string size = "small";
    std::string precision = "standard";
    bool ptx = false;
};

int run(const SourceOptions& o) {
    if (!o.library.empty()) {
        if (o.ptx && o.target != "cuda") throw UsageError("--ptx is the cuda target's assembly; give --target cuda");
        const std::string text =
            describe_library_kernel(o.library, o.name, o.args, o.ptx ? 3 : 2, o.target == "auto" ? "" : o.target, o.precision);
        std::cout << text << (text.empty() || text.back() == '\n' ? "" : "\n");
        return kExitOk;
    }
    const catalog::Entry& e = select_entry(o.name);
    Target t = select_target(o.target, false);
    if (o.ptx && t.name() != "cuda") throw UsageError("--ptx is the cuda target's assembly; target '" + t.name() + "' has none");
    catalog::Case c = first_case(e, parse_size(o.size));
    CaseArgs args = host_args(c);
    auto program = program_for(c, args);
    note_if_unavailable(t);
    const std::string text = t.impl().source(*program, args.args, parse_precision(o.precision), o.ptx);
    std::cout << text << (text.empty() || text.back() == '\n' ? "" : "\n");
    return kExitOk;
}
}  // namespace

Command source_command(CLI::App& app) {
    auto o = std::make_shared<SourceOptions>();
    auto* sub = app.add_subcommand("source", "the source a target generates for an entry's kernel");
    sub->add_option("name", o->name, "catalog entry (`kiln list` shows them), or a kernel of --library")->required();
    sub->add_option("--library", o->library, "a shared library of kernels exported with KILN_EXPORT_KERNEL")->type_name("PATH");
    sub->add_option("--arg", o->args, "with --library: each argument in order, a view's shape (64x128) or a scalar's value")
        ->type_name("SHAPE|NUMBER");
    add_target_option(*sub, o->target)->required();
    sub->add_flag("--ptx", o->ptx, "the PTX instead of the CUDA C++ (cuda only)");
    add_size_option(*sub, o->size);
    add_precision_option(*sub, o->precision);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
