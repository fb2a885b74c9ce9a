// A progress line for long runs.
#pragma once

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

private:
    std::size_t total_;
    bool enabled_;
    bool shown_ = false;
};

}  // namespace kiln::cli
