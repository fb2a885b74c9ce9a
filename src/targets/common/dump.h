// KILN_DUMP_DIR: every target writes each source it generates there, as
// <kernel>-<key prefix>.<extension>, for reading and for filing bugs.
#pragma once

#include <string>
#include <string_view>

namespace kiln::targets {

bool dump_dir_set();
// Writes the source when KILN_DUMP_DIR is set (a directory that cannot take it
// is a warning, once).
void dump_source(const std::string& kernel, const std::string& key, const std::string& source, std::string_view extension);

}  // namespace kiln::targets
