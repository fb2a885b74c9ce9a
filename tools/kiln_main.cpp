// kiln: the command-line tool. Lists the operator catalog, runs and checks it on a
// target, compares targets bit for bit, shows the IR, plans and generated source,
// and times kernels. Each subcommand is in its own cmd_<name>.cpp.
#include <iostream>
#include <string_view>

#include "commands.h"
#include "report.h"
#include "version.h"

int main(int argc, char** argv) {
    using namespace kiln::cli;
    CLI::App app{"kiln: run, check, compare and inspect the operator catalog on kiln's targets", "kiln"};
    app.require_subcommand(1);
    app.failure_message([](const CLI::App* a, const CLI::Error& e) { return "kiln: " + CLI::FailureMessage::simple(a, e); });
    app.footer("Exit status: 0 all passed; 1 a case failed or differed, or kiln reported an error; 2 a usage error.");
    app.set_version_flag("--version", version_text(), "print kiln's version, commit and build type, and exit");
    const std::vector<Command> commands = {list_command(app), run_command(app),     ir_command(app),    source_command(app),
                                           plan_command(app), compare_command(app), bench_command(app), fuzz_command(app),
                                           tune_command(app),
                                           metal_harness_command(app)};
    // CLI11 would say only that a subcommand is required: name the word it did not know.
    if (argc > 1 && argv[1][0] != '-') {
        const std::string_view word = argv[1];
        std::string known;
        bool found = false;
        for (const auto& c : commands) {
            known += (known.empty() ? "" : ", ") + c.app->get_name();
            found = found || c.app->get_name() == word;
        }
        if (!found) {
            std::cerr << "kiln: unknown command '" << word << "' (commands: " << known << ")\nRun with --help for more information." << std::endl;
            return kExitUsage;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help is a ParseError that exits 0
    }
    try {
        for (const auto& c : commands)
            if (c.app->parsed()) return c.run();
    } catch (const UsageError& e) {
        std::cerr << "kiln: " << e.what() << std::endl;
        return kExitUsage;
    } catch (const std::exception& e) {  // kiln::Error (a target cannot run, a kernel raised), internal errors: never a crash
        print_error(e);
        return kExitFailed;
    }
    return kExitUsage;  // unreachable: require_subcommand(1) guarantees one was parsed
}
