#include "progress.h"

#include <cstdio>
#include <iostream>

#include <unistd.h>

namespace kiln::cli {

Progress::Progress(std::size_t total) : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {}

Progress::~Progress() { clear(); }

void Progress::show(std::size_t index, const std::string& what) {
    if (!enabled_) return;
    std::cout.flush();  // results already printed stay above the progress line
    // \r and "erase to end of line" (ESC [K) rewrite the line in place.
    std::cerr << "\r\033[K[" << index + 1 << "/" << total_ << "] " << what << " ..." << std::flush;
    shown_ = true;
}

bool Heartbeat::due() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < period_) return false;
    last_ = now;
    return true;
}

void Progress::clear() {
    if (!shown_) return;
    std::cerr << "\r\033[K" << std::flush;
    shown_ = false;
}

}  // namespace kiln::cli
