// Tests that need a fresh process (the host compiler and the cache are probed
// once per process; environment variables read once) run this test binary again
// on one child test, with KILN_CPU_CHILD set and extra environment variables.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace child_process {

inline std::string self_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

// Runs `test` (a gtest filter) in a child with `env` ("A=1 B=2") and returns its
// combined output.
inline std::string run_child(const std::string& test, const std::string& env) {
    std::string cmd = env + " KILN_CPU_CHILD=1 " + self_path() + " --gtest_filter=" + test + " 2>&1";
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
        pclose(p);
    }
    return out;
}

inline bool in_child() { return std::getenv("KILN_CPU_CHILD") != nullptr; }

}  // namespace child_process
