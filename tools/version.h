// What `kiln --version` prints: "kiln 0.1.0 (commit 60bf54a1b2c3, RelWithDebInfo build)".
// Generated at build time (cmake/tool_version.cmake): the commit is the source
// tree's when it is a git checkout, else "unknown".
#pragma once

#include <string>

namespace kiln::cli {

std::string version_text();

}  // namespace kiln::cli
