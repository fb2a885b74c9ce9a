// The minimiser: given a failing program, the smallest recipe found that still
// fails the same way. It edits the recipe greedily (fewer views, scalars, grid
// dimensions and operations, no loop, smaller extents, plainer policies), keeps
// each edit under which the program still gets the same verdict, and stops when
// no edit is kept. Edits are named ("view-:2", "ops_after/2" ...), so the result
// reproduces from the seed alone: kiln fuzz --seed S --shrink EDITS --show.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/differential.h"

namespace kiln::fuzz {

// The recipe with one named edit applied, or nothing when the edit does not apply.
std::optional<Recipe> apply_edit(const Recipe& r, const std::string& edit);
// The recipe with edits applied in order (an Error for an edit that does not apply).
Recipe apply_edits(Recipe r, const std::vector<std::string>& edits);
// Every edit that might apply to r, smallest programs first.
std::vector<std::string> candidate_edits(const Recipe& r);

struct Minimized {
    Result original, result;          // the failure, and that of the smallest recipe
    Recipe recipe;                    // the smallest recipe
    std::vector<std::string> edits;   // from make_recipe(seed) to it
    int tried = 0;                    // programs checked
};

// Shrinks program `seed` while check_recipe gives the same verdict as it does for
// the seed itself (which must not be `same`). on_step is told of each edit kept.
Minimized minimize(std::uint64_t seed, const std::vector<Target>& targets, const CompileOptions& options, const Limits& limits = {},
                   const std::function<void(const Minimized&)>& on_step = {});

}  // namespace kiln::fuzz
