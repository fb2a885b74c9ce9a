// kiln list: the catalog, one entry a line, descriptions aligned.
#include <iostream>

#include "commands.h"
#include "options.h"
#include "report.h"

namespace kiln::cli {

Command list_command(CLI::App& app) {
    auto* sub = app.add_subcommand("list", "the operator catalog: each entry with what it computes");
    return {sub, [] {
                std::vector<const catalog::Entry*> all;
                for (const auto& e : catalog::entries()) all.push_back(&e);
                const std::size_t width = name_width(all);
                for (const auto* e : all) std::cout << column(e->name, width) << e->description << "\n";
                return kExitOk;
            }};
}

}  // namespace kiln::cli
