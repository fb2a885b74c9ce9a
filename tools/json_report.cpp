#include "json_report.h"

#include <fstream>

#include <kiln/error.h>

#include "commands.h"

namespace kiln::cli {

void JsonReport::add_option(CLI::App& app) {
    app.add_option("--json", path_, "also write the results to FILE as JSON")->type_name("FILE");
}

void JsonReport::add_case(nlohmann::json record) {
    if (enabled()) doc_["cases"].push_back(std::move(record));
}

int JsonReport::finish(int status) {
    if (!enabled()) return status;
    int passed = 0, failed = 0;
    for (const auto& c : doc_["cases"]) ++(c.value("ok", false) ? passed : failed);
    doc_["passed"] = passed;
    doc_["failed"] = failed;
    doc_["exit_status"] = status;  // also counts entries whose cases could not be built
    std::ofstream out(path_);
    out << doc_.dump(2) << "\n";
    if (!out.flush()) throw Error("--json: cannot write " + path_);
    return status;
}

}  // namespace kiln::cli
