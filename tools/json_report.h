// `--json FILE` for run, compare and bench: the run's settings, one record per
// case and the tally, written with nlohmann::json when the command finishes. The
// text on stdout is unchanged.
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace kiln::cli {

class JsonReport {
public:
    // Adds the --json option to a subcommand.
    void add_option(CLI::App& app);
    bool enabled() const { return !path_.empty(); }
    // The run's settings: {"command": "run", "target": "cpu", ...}.
    nlohmann::json& settings() { return doc_["settings"]; }
    void add_case(nlohmann::json record);
    // Writes the file (when asked for) with the tally; returns `status`.
    int finish(int status);

private:
    std::string path_;
    nlohmann::json doc_ = {{"cases", nlohmann::json::array()}};
};

}  // namespace kiln::cli
