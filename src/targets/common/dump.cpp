#include "targets/common/dump.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <kiln/error.h>

namespace kiln::targets {

bool dump_dir_set() {
    const char* dir = std::getenv("KILN_DUMP_DIR");
    return dir && *dir;
}

void dump_source(const std::string& kernel, const std::string& key, const std::string& source, std::string_view extension) {
    const char* dir = std::getenv("KILN_DUMP_DIR");
    if (!dir || !*dir) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::string name;
    for (char c : kernel) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
    auto path = std::filesystem::path(dir) / (name + "-" + key.substr(0, 16) + "." + std::string(extension));
    std::ofstream out(path, std::ios::binary);
    out << source;
    if (!out.flush()) throw Error("KILN_DUMP_DIR='" + std::string(dir) + "': cannot write " + path.string());
}

}  // namespace kiln::targets
