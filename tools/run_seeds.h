// kiln run --seeds N: the catalog over many seeds, one line per case with its worst
// error/bound ratio and the seed that gave it (how the bounds are checked for
// flakiness; docs/catalog.md).
#pragma once

#include <cstdint>
#include <vector>

#include "catalog.h"

namespace kiln::cli {

// Runs every case of the entries for seeds first, first + 1, ..., first + count - 1;
// prints the summary line and returns the exit status.
int run_seeds(const std::vector<const catalog::Entry*>& entries, const Target& target, catalog::Size size, const CompileOptions& options,
              std::uint64_t first, std::uint64_t count);

}  // namespace kiln::cli
