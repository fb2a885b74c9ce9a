// kiln ir: the Tile IR of an entry's kernel, specialised for its first case.
#include <iostream>

#include "case_args.h"
#include "commands.h"
#include "options.h"

namespace kiln::cli {

namespace {
struct IrOptions {
    std::string name;
    std::string size = "small";
};

int run(const IrOptions& o) {
    catalog::Case c = first_case(select_entry(o.name), parse_size(o.size));
    std::cout << ir::print(*program_for(c, host_args(c)));
    return kExitOk;
}
}  // namespace

Command ir_command(CLI::App& app) {
    auto o = std::make_shared<IrOptions>();
    auto* sub = app.add_subcommand("ir", "the Tile IR of an entry's kernel (for its first case's arguments)");
    sub->add_option("name", o->name, "catalog entry (`kiln list` shows them)")->required();
    add_size_option(*sub, o->size);
    return {sub, [o] { return run(*o); }};
}

}  // namespace kiln::cli
