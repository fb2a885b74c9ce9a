// kiln fuzz: reserved for the differential fuzzer, which is not written yet. It says
// so plainly rather than pretending to pass.
#include <iostream>

#include "commands.h"

namespace kiln::cli {

Command fuzz_command(CLI::App& app) {
    auto* sub = app.add_subcommand("fuzz", "random kernels run on two targets and compared (not implemented yet)");
    sub->allow_extras();  // whatever options the fuzzer will take, the answer today is the same
    return {sub, [] {
                std::cerr << "kiln fuzz: not implemented yet" << std::endl;
                return kExitUsage;
            }};
}

}  // namespace kiln::cli
