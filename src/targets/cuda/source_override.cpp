#include "targets/cuda/source_override.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kiln/error.h"
#include "support/names.h"
#include "support/warnings.h"

namespace kiln::cu {

namespace {

const char* directory() {
    const char* dir = std::getenv("KILN_CUDA_SOURCE_DIR");
    return dir && *dir ? dir : nullptr;
}

}  // namespace

bool source_override_set() { return directory() != nullptr; }

std::optional<SourceOverride> source_override(const std::string& name) {
    const char* dir = directory();
    if (!dir) return std::nullopt;
    const std::filesystem::path path = std::filesystem::path(dir) / (support::file_name_part(name) + ".cu");
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    if (!in || in.bad()) {
        const int err = errno;
        throw Error("KILN_CUDA_SOURCE_DIR: cannot read " + path.string() + (err ? std::string(": ") + std::strerror(err) : std::string()));
    }
    support::warn_once("KILN_CUDA_SOURCE_DIR " + path.string(),
                       "kernel '" + name + "' is compiled from " + path.string() + " (KILN_CUDA_SOURCE_DIR), not from its program");
    return SourceOverride{path.string(), text.str()};
}

}  // namespace kiln::cu
