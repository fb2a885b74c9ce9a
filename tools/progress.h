// A progress line for long runs.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace kiln::cli {

// `[3/34] gemm 13x10x11 ...` on stderr while a case runs, when stderr is a terminal
// (a log file would only fill with progress lines); cleared before results print.
class Progress {
public:
    explicit Progress(std::size_t total);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    void show(std::size_t index, const std::string& what);  // index from 0
    void clear();
    bool on_terminal() const { return enabled_; }

private:
    std::size_t total_;
    bool enabled_;
    bool shown_ = false;
};

// For long runs whose stderr is not a terminal (a campaign left running into a log):
// due() is true once a period has passed since the last time it was, so that a
// stopped run still leaves a recent count behind.
class Heartbeat {
public:
    explicit Heartbeat(std::chrono::seconds period) : period_(period), last_(std::chrono::steady_clock::now()) {}
    bool due();

private:
    std::chrono::seconds period_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace kiln::cli
