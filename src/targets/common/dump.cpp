#include "targets/common/dump.h"

#include <cstdlib>
#include <filesystem>

#include "cache/private_files.h"
#include "support/names.h"
#include "support/warnings.h"

namespace kiln::targets {

bool dump_dir_set() {
    const char* dir = std::getenv("KILN_DUMP_DIR");
    return dir && *dir;
}

// A dump is for reading, never needed to run: a directory that cannot take it is
// a warning (once), and the launch goes on. The file replaces any earlier dump
// of the same kernel, and a symlink planted at its name is replaced, not followed.
void dump_source(const std::string& kernel, const std::string& key, const std::string& source, std::string_view extension) {
    const char* dir = std::getenv("KILN_DUMP_DIR");
    if (!dir || !*dir) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    try {
        if (ec) throw cache::IoError("", dir, "cannot create", ec.value());
        cache::replace_file(dir, support::file_name_part(kernel) + "-" + key.substr(0, 16) + "." + std::string(extension), source);
    } catch (const cache::IoError& e) {
        support::warn_once("KILN_DUMP_DIR", "KILN_DUMP_DIR='" + std::string(dir) + "': " + e.detail() + "; generated sources are not dumped");
    }
}

}  // namespace kiln::targets
