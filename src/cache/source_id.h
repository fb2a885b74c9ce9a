// kiln's source identity: its version and a SHA-256 over every source and header
// of the library, computed at build time (cmake/kiln_source_id.cmake).
//
// For cache entries that record what kiln itself derived from a program, such
// as the cpu target's index from programs to compiled kernels: any change to kiln
// retires them, at the cost of deriving each again once. Artifacts keyed by what
// they were built from (generated source, toolchain) do not need it and survive
// changes elsewhere in kiln.
#pragma once

#include <string_view>

namespace kiln::cache {

std::string_view kiln_source_id();

}  // namespace kiln::cache
