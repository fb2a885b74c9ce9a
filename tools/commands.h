// The kiln tool's subcommands. Each lives in its own cmd_<name>.cpp, registers its
// options on the app, and hands back what to run once the command line is parsed;
// kiln_main.cpp runs the chosen one and turns errors into messages and exit codes.
#pragma once

#include <functional>
#include <stdexcept>

#include <CLI/CLI.hpp>

namespace kiln::cli {

// Exit statuses, shown in `kiln --help`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;  // a case failed or differed, or kiln reported an error
inline constexpr int kExitUsage = 2;   // the command line was wrong (or the command is not there yet)

// A command line that names something that does not exist, or asks for nothing:
// reported like CLI11's own parse errors, with exit status kExitUsage.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Command {
    CLI::App* app = nullptr;   // the subcommand, to ask whether it was chosen
    std::function<int()> run;  // runs it; returns the exit status
};

Command list_command(CLI::App& app);
Command run_command(CLI::App& app);
Command ir_command(CLI::App& app);
Command source_command(CLI::App& app);
Command plan_command(CLI::App& app);
Command compare_command(CLI::App& app);
Command bench_command(CLI::App& app);
Command fuzz_command(CLI::App& app);
Command tune_command(CLI::App& app);
Command metal_harness_command(CLI::App& app);

}  // namespace kiln::cli
