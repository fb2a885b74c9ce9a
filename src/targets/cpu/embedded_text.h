// Text embedded into the library at build time (cmake/kiln_cpu_embed.cmake).
#pragma once

#include <string_view>

namespace kiln::native {

// cpu_abi.h, kround.h, kmath.h and cpu_prelude.h, in that order: the head of
// every generated source.
std::string_view embedded_prelude();

// kiln's version and a SHA-256 of the embedded headers and the cpu target's
// sources: part of every cache key.
std::string_view kiln_build_id();

}  // namespace kiln::native
