#include "support/warnings.h"

#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace kiln::support {

bool warn_once(std::string_view topic, std::string_view message) {
    static std::mutex mutex;
    static std::set<std::string, std::less<>> warned;
    std::lock_guard<std::mutex> g(mutex);
    if (!warned.emplace(topic).second) return false;
    std::fprintf(stderr, "kiln: warning: %.*s\n", static_cast<int>(message.size()), message.data());
    std::fflush(stderr);
    return true;
}

}  // namespace kiln::support
