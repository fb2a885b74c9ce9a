// The benchmarks' rows as a JSON array, written with nlohmann::json (strings are
// escaped, numbers written to round-trip): one object per row with what, kiln,
// peer, unit, peer_name, ratio and check.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

template <class Row, class Ratio> void write_rows_json(const std::vector<Row>& rows, const std::string& path, Ratio&& ratio) {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& r : rows)
        out.push_back({{"what", r.what}, {"kiln", r.kiln}, {"peer", r.peer}, {"unit", r.unit}, {"peer_name", r.peer_name},
                       {"ratio", ratio(r)}, {"check", r.check}});
    std::ofstream file(path);
    file << out.dump(2) << "\n";
    if (!file.flush()) throw std::runtime_error("cannot write " + path);
}
