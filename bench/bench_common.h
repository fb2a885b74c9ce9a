// What the CPU benchmarks share: timing (median of repeated runs after a
// warm-up), random inputs, and the table and JSON they print (rows_json.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "rows_json.h"

namespace kiln_bench {

using Clock = std::chrono::steady_clock;

// Seconds: the median of `reps` timed calls after `warmup` untimed ones.
inline double median_s(const std::function<void()>& f, int warmup, int reps) {
    for (int i = 0; i < warmup; ++i) f();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        auto t0 = Clock::now();
        f();
        t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? -1 : v[v.size() / 2];
}

inline kiln::Tensor<kiln::f32> random_tensor(std::vector<std::int64_t> ext, unsigned seed, float lo = -1, float hi = 1) {
    kiln::Tensor<kiln::f32> t(ext);
    std::mt19937 g(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    for (auto& x : t.values()) x = d(g);
    return t;
}

// One line of the table: kiln's figure and its peer's, in `unit`.
struct Row {
    std::string what;
    double kiln, peer;
    std::string unit, peer_name, check;
};

// Prints the table and writes it as JSON to `json`; ratio = kiln / peer.
inline void print_rows(const std::vector<Row>& rows, const std::string& json) {
    std::printf("%-52s %12s %12s %7s  %s\n", "what", "kiln", "peer", "ratio", "check");
    for (const auto& r : rows) {
        double ratio = r.peer > 0 ? r.kiln / r.peer : 0;
        std::printf("%-52s %8.3f %-4s %8.3f %-4s %7.3f  %s %s\n", r.what.c_str(), r.kiln, r.unit.c_str(), r.peer, r.unit.c_str(), ratio,
                    r.check.c_str(), r.peer_name.c_str());
    }
    write_rows_json(rows, json, [](const Row& r) { return r.peer > 0 ? r.kiln / r.peer : 0; });
}

}  // namespace kiln_bench
