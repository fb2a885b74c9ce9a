#include "support/byte_size.h"

#include <cstdio>

namespace kiln::support {

std::string byte_size(double bytes) {
    if (bytes < 1024) return std::to_string(static_cast<std::int64_t>(bytes)) + " bytes";
    const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = -1;
    while (bytes >= 1024 && u < 5) {
        bytes /= 1024;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", bytes, units[u]);
    return buf;
}

}  // namespace kiln::support
