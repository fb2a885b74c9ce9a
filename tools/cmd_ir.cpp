// kiln ir: the Tile IR of an entry's kernel, specialised for its first case.
#include <iostream>

#include "case_args.h"
#include "commands.h"
#include "library_kernel.h"
#include "options.h"

namespace kiln::cli {

namespace {
struct IrOptions {
    std::string name;
    std::string library;             // a user's library of exported kernels, instead of the catalog
    std::vector<std::string> args;   // its arguments' shapes (64x128) and scalar values
    std::string size = "small";
};

int run(const IrOptions& o) {
    if (!o.library.empty()) {
        std::cout << describe_library_kernel(o.library, o.name, o.args, 0, "interp", "standard");
        return kExitOk;
    }
    catalog::Case c = first_case(select_entry(o.name), parse_size(o.size));
    std::cout << ir::print(*program_for(c, host_args(c)));
    return kExitOk;
}
}  // namespace

Command ir_command(CLI::App& app) {
    auto o = std::make_shared<IrOptions>();
    auto* sub = app.add_subcommand("ir", "the Tile IR of an entry's kernel (for its first case's arguments)");
    sub->add_option("name", o->name, "catalog entry (`kiln list` shows them), or a kernel of --library")->required();
    sub->add_option("--library", o->library, "a shared library of kernels exported with KILN_EXPORT_KERNEL")->type_name("PATH");
    sub->add_option("--arg", o->args, "with --library: each argument in order, a view's shape (64x128) or a scalar's value")
        ->type_name("SHAPE|NUMBER");
    add_size_option(*sub, o->size);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
